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
// `install` one, which finds the prebuilt addon and compiles nothing).
//
// --prebuild: `always` runs `prebuildify --napi --strip` in the staging folder (never in the
// checkout, whose build/ other work shares); `auto` (default) does so only when
// prebuilds/linux-x64 holds no addon or any native source is newer than it; `never` ships what
// prebuilds/ holds (fails if it is empty).
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..');
const PREBUILD_DIR = path.join(ROOT, 'prebuilds', `${process.platform}-${process.arch}`);

function newestMtime(p) {
  const st = fs.statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  let m = 0;
  for (const e of fs.readdirSync(p)) m = Math.max(m, newestMtime(path.join(p, e)));
  return m;
}

function addons(dir) {
  try {
    return fs.readdirSync(dir).filter((f) => f.endsWith('.node')).map((f) => path.join(dir, f));
  } catch {
    return [];
  }
}

function prebuildStale() {
  const built = addons(PREBUILD_DIR);
  if (built.length === 0) return 'no prebuilt addon';
  const when = Math.min(...built.map((f) => fs.statSync(f).mtimeMs));
  const src = Math.max(newestMtime(path.join(ROOT, 'native')), newestMtime(path.join(ROOT, 'binding.gyp')));
  return src > when ? 'native sources are newer than the prebuilt addon' : null;
}

/** node-gyp: a local install if any, else the copy bundled with npm (what `npx node-gyp` runs). */
function nodeGypBin() {
  const candidates = [path.join(ROOT, 'node_modules/node-gyp/bin/node-gyp.js'),
    path.join(path.dirname(process.execPath), '../lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js')];
  const found = candidates.find((c) => fs.existsSync(c));
  if (!found) throw new Error(`node-gyp not found (looked in ${candidates.join(', ')})`);
  return found;
}

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
    for (const rel of ['bin', 'dist/lib', 'native', 'binding.gyp', 'tools/list-sources.js']) copy(rel, stage);
    const readme = path.join(ROOT, 'docs', 'sdk.md');
    if (fs.existsSync(readme)) fs.copyFileSync(readme, path.join(stage, 'README.md'));
    const consumerPkg = {
      name: pkg.name, version: pkg.version, description: pkg.description, license: pkg.license,
      main: pkg.main, types: pkg.types, exports: pkg.exports, bin: pkg.bin, engines: pkg.engines,
      files: ['bin/', 'dist/lib/', 'prebuilds/', 'native/', 'binding.gyp', 'tools/list-sources.js', 'supplier.json', 'README.md'],
      gypfile: true,
      scripts: { install: 'node-gyp-build' },
      dependencies: pkg.dependencies,
    };
    fs.writeFileSync(path.join(stage, 'package.json'), JSON.stringify(consumerPkg, null, 2) + '\n');

    const why = mode === 'always' ? 'asked to' : mode === 'auto' ? prebuildStale() : null;
    if (why) {
      log(`building the addon with prebuildify (${why})`);
      fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(stage, 'node_modules'));
      // Offline: build for the running Node (N-API, so the binary serves every later Node too)
      // against its local headers (npm's `nodedir`), never downloading headers for a newer one.
      let nodedir = process.env.npm_config_nodedir;
      if (!nodedir) {
        try { nodedir = execFileSync('npm', ['config', 'get', 'nodedir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim(); } catch { /* none */ }
      }
      const env = { ...process.env, PATH: `${path.join(ROOT, 'node_modules/.bin')}${path.delimiter}${process.env.PATH}` };
      if (nodedir && nodedir !== 'undefined') env.npm_config_nodedir = nodedir;
      execFileSync(process.execPath, [
        require.resolve('prebuildify/bin.js'), '--napi', '--strip', '--name', pkg.name,
        '--target', process.versions.node, '--node-gyp', nodeGypBin(),
      ], { cwd: stage, env, stdio: opts.quiet ? 'pipe' : 'inherit' });
      fs.rmSync(path.join(stage, 'node_modules'));
      fs.rmSync(path.join(stage, 'build'), { recursive: true, force: true });
      // Keep the checkout's prebuilds/ current too (replacing older binaries, so node-gyp-build
      // can never pick a stale one), so `npm pack` there ships the same addon.
      fs.mkdirSync(PREBUILD_DIR, { recursive: true });
      for (const f of addons(PREBUILD_DIR)) fs.rmSync(f);
      for (const f of addons(path.join(stage, 'prebuilds', path.basename(PREBUILD_DIR)))) fs.copyFileSync(f, path.join(PREBUILD_DIR, path.basename(f)));
    } else {
      if (addons(PREBUILD_DIR).length === 0) throw new Error(`no prebuilt addon in ${PREBUILD_DIR}: run with --prebuild auto`);
      copy('prebuilds', stage);
    }

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
    if (!list.some((f) => /^package\/prebuilds\/linux-x64\/.*\.node$/.test(f))) throw new Error(`${expected} lacks a prebuilt linux-x64 addon`);
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
