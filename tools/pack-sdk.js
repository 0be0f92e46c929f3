#!/usr/bin/env node
// Builds the SDK tarball dotcode-sdk-<version>.tgz from a clean staging folder.
//
//   npm run build && node tools/pack-sdk.js [--out DIR] [--prebuild auto|always|never]
//                                           [--stamp-data DATA_DIR] [--url URL]
//
// Why a staging folder rather than `npm pack` in the checkout: the checkout's supplier.json is a
// developer/test stamp (git-ignored) and must never ship; the staging copy is stamped only when
// asked (--stamp-data), the way /v1/sdk/download stamps its copy. The staged package.json keeps
// only what a consumer needs (no workspaces, no dev dependencies, no build scripts but the
// `install` one, tools/install-addon.js, which finds the prebuilt addon and compiles nothing on
// linux-x64 and linux-arm64, and never fails an install: the WebAssembly reader is the fallback).
//
// The tarball carries prebuilds/linux-x64 and prebuilds/linux-arm64 (tools/prebuild.js: the
// host's g++ and Debian's aarch64 cross g++) and dist/lib/wasm/dotcode_reader.wasm
// (tools/build-wasm.js, emscripten; rebuilt here when stale, required).
// --prebuild: `always` rebuilds both addons in the staging folder (never in the checkout, whose
// build/ other work shares); `auto` (default) rebuilds an arch only when prebuilds/linux-<arch>
// holds no addon or any native source is newer than it; `never` ships what prebuilds/ holds
// (fails if an arch is missing).
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..');
const { prebuild, ARCHES, addons, prebuildDir, staleReason } = require('./prebuild');
const WASM = 'dist/lib/wasm/dotcode_reader.wasm';

function copy(rel, stage) {
  fs.cpSync(path.join(ROOT, rel), path.join(stage, rel), {
    recursive: true,
    // The tarball carries the library only: no tests, benches or server (they live outside
    // dist/lib anyway), and no native build products other than prebuilds/.
    filter: (src) => !/\.tsbuildinfo$/.test(src),
  });
}

/**
 * Packs the SDK. Returns the absolute path of the tarball.
 * @param {{ outDir?: string, prebuild?: 'auto'|'always'|'never', stampPublicKeyPem?: string, url?: string, quiet?: boolean }} opts
 */
function packSdk(opts = {}) {
  const outDir = path.resolve(opts.outDir || ROOT);
  const mode = opts.prebuild || 'auto';
  const log = opts.quiet ? () => {} : (m) => console.error(`pack-sdk: ${m}`);
  if (!fs.existsSync(path.join(ROOT, 'dist/lib/index.js'))) throw new Error('dist/lib is not built: run "npm run build" first');
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'dotcode-sdk-stage-'));
  try {
    for (const rel of ['bin', 'dist/lib', 'native', 'binding.gyp', 'tools/list-sources.js', 'tools/install-addon.js']) copy(rel, stage);
    const readme = path.join(ROOT, 'docs', 'sdk.md');
    if (fs.existsSync(readme)) fs.copyFileSync(readme, path.join(stage, 'README.md'));
    const consumerPkg = {
      name: pkg.name, version: pkg.version, description: pkg.description, license: pkg.license,
      main: pkg.main, types: pkg.types, exports: pkg.exports, bin: pkg.bin, engines: pkg.engines,
      files: ['bin/', 'dist/lib/', 'prebuilds/', 'native/', 'binding.gyp', 'tools/list-sources.js', 'tools/install-addon.js', 'supplier.json', 'README.md'],
      gypfile: true,
      // Prebuilt addon where there is one, else a compile attempt, else the WebAssembly reader:
      // installing never fails for want of a compiler.
      scripts: { install: 'node tools/install-addon.js' },
      dependencies: pkg.dependencies,
    };
    fs.writeFileSync(path.join(stage, 'package.json'), JSON.stringify(consumerPkg, null, 2) + '\n');

    // The WebAssembly reader (the fallback wherever no addon loads) must be there and current.
    execFileSync(process.execPath, [path.join(ROOT, 'tools/build-wasm.js'), '--require'], { stdio: opts.quiet ? 'pipe' : 'inherit' });
    fs.mkdirSync(path.join(stage, path.dirname(WASM)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, WASM), path.join(stage, WASM));

    // One prebuilt addon per CPU (tools/prebuild.js): rebuilt in the staging folder when asked
    // or stale, else taken from the checkout's prebuilds/.
    const rebuild = ARCHES.filter((arch) => {
      const why = mode === 'always' ? 'asked to' : mode === 'auto' ? staleReason(arch) : null;
      if (why) log(`building the linux-${arch} addon with prebuildify (${why})`);
      else if (addons(prebuildDir(arch)).length === 0) throw new Error(`no prebuilt addon in ${prebuildDir(arch)}: run with --prebuild auto`);
      return !!why;
    });
    if (rebuild.length) {
      prebuild({ dir: stage, arches: rebuild, quiet: opts.quiet, name: pkg.name });
      // Keep the checkout's prebuilds/ current too (replacing older binaries, so node-gyp-build
      // can never pick a stale one), so `npm pack` there ships the same addons.
      for (const arch of rebuild) {
        fs.rmSync(prebuildDir(arch), { recursive: true, force: true });
        fs.mkdirSync(prebuildDir(arch), { recursive: true });
        for (const f of addons(path.join(stage, 'prebuilds', `linux-${arch}`))) fs.copyFileSync(f, path.join(prebuildDir(arch), path.basename(f)));
      }
    }
    for (const arch of ARCHES.filter((a) => !rebuild.includes(a))) copy(`prebuilds/linux-${arch}`, stage);

    if (opts.stampPublicKeyPem) {
      // stamping is the supplier's side, which lives in the server (the SDK only reads stamps)
      const { writeStamp } = require(path.join(ROOT, 'dist/server/src/signing'));
      writeStamp(stage, opts.stampPublicKeyPem, opts.url || '', { replace: true });
    }

    fs.mkdirSync(outDir, { recursive: true });
    const out = execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', outDir], { cwd: stage, encoding: 'utf8' });
    const file = path.join(outDir, out.trim().split('\n').pop());
    const expected = `${pkg.name}-${pkg.version}.tgz`;
    if (path.basename(file) !== expected) throw new Error(`npm pack made ${file}, expected ${expected}`);
    // Check the contents: the library and its types, the addon, and nothing of the server.
    const list = execFileSync('tar', ['-tzf', file], { encoding: 'utf8' }).split('\n').filter(Boolean);
    const must = ['package/dist/lib/index.js', 'package/dist/lib/index.d.ts', 'package/dist/lib/scanner.d.ts'];
    for (const m of must) if (!list.includes(m)) throw new Error(`${expected} lacks ${m}`);
    for (const arch of ARCHES) {
      if (!list.some((f) => new RegExp(`^package/prebuilds/linux-${arch}/[^/]+\\.node$`).test(f))) throw new Error(`${expected} lacks a prebuilt linux-${arch} addon`);
    }
    if (!list.includes(`package/${WASM}`)) throw new Error(`${expected} lacks the WebAssembly reader ${WASM}`);
    const leak = list.find((f) => /^package\/(server|dist\/server|dist\/test|dist\/bench|test|data)\//.test(f));
    if (leak) throw new Error(`${expected} must not contain ${leak}`);
    log(`${file} (${list.length} files, ${(fs.statSync(file).size / 1024).toFixed(0)} KiB)`);
    return file;
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
}

module.exports = { packSdk };

if (require.main === module) {
  const args = process.argv.slice(2);
  const opt = (name) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  try {
    const stampData = opt('--stamp-data');
    let stampPublicKeyPem;
    if (stampData) stampPublicKeyPem = fs.readFileSync(path.join(stampData, 'supplier', 'public-key.pem'), 'utf8');
    const file = packSdk({ outDir: opt('--out'), prebuild: opt('--prebuild'), stampPublicKeyPem, url: opt('--url') });
    console.log(file);
  } catch (e) {
    console.error(`pack-sdk: ${e.message}`);
    process.exit(1);
  }
}
