#!/usr/bin/env node
// Builds the WebAssembly DotCode reader (the same C++ detector and decoding core as the addon,
// plus native/wasm/ glue) with emscripten into dist/lib/wasm/dotcode_reader.wasm. Run by
// `npm run build`; the SDK falls back to this file wherever no native addon loads, and the Live
// Scanner page reads with it in the browser.
//
//   node tools/build-wasm.js [--force] [--require]
//
// Why built rather than committed: the C++ sources change often, and a committed .wasm would go
// stale (and fail the native-vs-wasm equality test) with every detector change. The output is
// rebuilt only when a source under native/ (or this script) is newer than it. Without emcc on
// PATH the build is skipped with a notice (the SDK then simply has no wasm fallback in this
// checkout) unless --require or DOTCODE_REQUIRE_WASM=1 is given (CI, and tools/pack-sdk.js,
// which must never pack an SDK without it).
//
// Output: a standalone .wasm module (no emscripten JS glue): its only imports are a clock, a
// process exit and a memory-growth notice, which lib/engine/wasm-module.ts provides in Node and
// in the browser alike.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..');
const OUT = path.join(ROOT, 'dist', 'lib', 'wasm', 'dotcode_reader.wasm');
const SOURCE_DIRS = ['native/core', 'native/dotcode', 'native/detector', 'native/wasm'];
const EXPORTS = ['_dc_alloc', '_dc_free', '_dc_out_ptr', '_dc_out_len', '_dc_read_image', '_dc_inspect_image', '_dc_decode_grid',
  '_dc_fusion_new', '_dc_fusion_free', '_dc_fusion_reset', '_dc_fusion_push'];

function sources() {
  const files = [];
  for (const dir of SOURCE_DIRS) {
    const abs = path.join(ROOT, dir);
    if (!fs.existsSync(abs)) continue;
    for (const name of fs.readdirSync(abs).sort()) if (name.endsWith('.cpp')) files.push(path.join(abs, name));
  }
  return files;
}

function newestInput() {
  let m = fs.statSync(__filename).mtimeMs;
  for (const dir of SOURCE_DIRS) {
    const abs = path.join(ROOT, dir);
    if (!fs.existsSync(abs)) continue;
    for (const name of fs.readdirSync(abs)) m = Math.max(m, fs.statSync(path.join(abs, name)).mtimeMs);
  }
  return m;
}

function haveEmcc() {
  return spawnSync('emcc', ['--version'], { stdio: 'ignore' }).status === 0;
}

/**
 * Builds when stale. Resolves to the output path, or null when skipped for want of emcc (and not
 * required).
 * @param {{ force?: boolean, require?: boolean, quiet?: boolean }} opts
 */
async function buildWasm(opts = {}) {
  const log = opts.quiet ? () => {} : (m) => console.error(`build-wasm: ${m}`);
  const required = opts.require || process.env.DOTCODE_REQUIRE_WASM === '1';
  if (!opts.force && fs.existsSync(OUT) && fs.statSync(OUT).mtimeMs >= newestInput()) return OUT;
  if (!haveEmcc()) {
    const msg = 'emcc (emscripten) is not on PATH: the WebAssembly reader is not built (apt-get install emscripten)';
    if (required) throw new Error(msg);
    log(`${msg}; skipped`);
    return null;
  }
  const t0 = Date.now();
  fs.mkdirSync(path.dirname(OUT), { recursive: true });
  const objDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dotcode-wasm-'));
  try {
    const cflags = [
      '-O3', '-std=c++17', `-I${path.join(ROOT, 'native')}`,
      // Nothing in the core throws; a failed allocation aborts (a trap the JS side recovers
      // from by starting a fresh instance). No -ffast-math, as in the addon's g++ build, so
      // both readers take the same decisions on the same pixels (test/engine/wasm-parity.ts, run within test/readrate/readrate.test.ts).
      '-fno-exceptions',
    ];
    const objs = await compileAll(sources(), objDir, cflags);
    // The .wasm suffix matters: emcc picks what to emit (a bare module, or JS glue) from it.
    const tmp = OUT.replace(/\.wasm$/, `.${process.pid}.tmp.wasm`);
    await run('emcc', [
      ...objs, '-O3', '-o', tmp, '--no-entry',
      '-s', 'STANDALONE_WASM=1',
      '-s', `EXPORTED_FUNCTIONS=${EXPORTS.join(',')}`,
      // Images up to the engine's 40-megapixel cap need room for the plane and the detector's
      // work buffers; memory grows on demand from 16 MiB.
      '-s', 'ALLOW_MEMORY_GROWTH=1', '-s', 'INITIAL_MEMORY=16MB', '-s', 'MAXIMUM_MEMORY=2GB',
      '-s', 'FILESYSTEM=0',
    ]);
    fs.renameSync(tmp, OUT);
  } finally {
    fs.rmSync(objDir, { recursive: true, force: true });
  }
  log(`${path.relative(ROOT, OUT)} (${(fs.statSync(OUT).size / 1024).toFixed(0)} KiB, ${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  return OUT;
}

function run(cmd, args) {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    p.stderr.on('data', (d) => { err += d; });
    p.on('error', reject);
    p.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} failed (${code}):\n${err}`))));
  });
}

/** em++ on every source, at most two at a time (CI is a 2-core machine), into objDir. */
async function compileAll(files, objDir, cflags) {
  const objs = files.map((f, i) => path.join(objDir, `${i}-${path.basename(f, '.cpp')}.o`));
  let next = 0;
  const lane = async () => {
    while (next < files.length) {
      const i = next++;
      await run('em++', [...cflags, '-c', files[i], '-o', objs[i]]);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(2, os.cpus().length)) }, lane));
  return objs;
}

module.exports = { buildWasm, WASM_OUT: OUT };

if (require.main === module) {
  buildWasm({ force: process.argv.includes('--force'), require: process.argv.includes('--require') }).catch((e) => {
    console.error(`build-wasm: ${e.message}`);
    process.exit(1);
  });
}
