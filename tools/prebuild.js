#!/usr/bin/env node
// Builds the prebuilt addons the SDK ships, with prebuildify (N-API: one binary per OS and CPU
// serves every Node version from the one it was built with):
//   prebuilds/linux-x64/dotcode-sdk.node    with the host's g++
//   prebuilds/linux-arm64/dotcode-sdk.node  with Debian's aarch64 cross toolchain
//                                           (g++-aarch64-linux-gnu), same Node-API headers
// Both are glibc builds (Debian 12: glibc 2.36 and newer run them).
//
//   node tools/prebuild.js [--arch x64,arm64] [--if-stale]
//
// --if-stale (the `prebuild` npm script, run before every `npm run build`): only the arches whose
// prebuilds/linux-<arch> binary is missing or older than native/ and binding.gyp; first, a local
// build/Release addon older than those is recompiled (it is the one node-gyp-build loads).
//
// prebuild({dir}) builds in DIR, which must hold package.json, binding.gyp, native/ and
// tools/list-sources.js (node-gyp's build/ there is removed afterwards); the binaries land in
// DIR/prebuilds/. tools/pack-sdk.js calls it on its staging folder. The command line stages a
// copy of the checkout itself and copies the binaries into the checkout's prebuilds/ (never
// building in the checkout, whose build/ holds the developer's own addon).
//
// Offline: node-gyp compiles against the running Node's local headers (npm's `nodedir`, e.g.
// /usr for Debian's and NodeSource's packages), never downloading any; Node-API headers are the
// same for every CPU, so the x64 Node's headers serve the arm64 build too.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync, spawnSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..');
const ARCHES = ['x64', 'arm64'];

/** Per target CPU: the compilers and strip to use (the host's own for the host's CPU). */
function toolchain(arch) {
  if (arch === process.arch) return { pkg: 'g++', env: {} };
  if (arch === 'arm64' && process.platform === 'linux') {
    const t = 'aarch64-linux-gnu';
    return { pkg: `g++-${t}`, env: { CC: `${t}-gcc`, CXX: `${t}-g++`, LINK: `${t}-g++`, AR: `${t}-ar`, PREBUILD_STRIP_BIN: `${t}-strip` } };
  }
  throw new Error(`no cross toolchain known for ${process.platform}-${arch} on ${process.arch}`);
}

function requireTool(bin, pkg) {
  if (spawnSync(bin, ['--version'], { stdio: 'ignore' }).status !== 0) {
    throw new Error(`${bin} is not on PATH: the ${pkg} addon needs it (apt-get install ${pkg})`);
  }
}

/** node-gyp: a local install if any, else the copy bundled with npm (what `npx node-gyp` runs). */
function nodeGypBin() {
  const candidates = [path.join(ROOT, 'node_modules/node-gyp/bin/node-gyp.js'),
    path.join(path.dirname(process.execPath), '../lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js')];
  const found = candidates.find((c) => fs.existsSync(c));
  if (!found) throw new Error(`node-gyp not found (looked in ${candidates.join(', ')})`);
  return found;
}

function nodedir() {
  let dir = process.env.npm_config_nodedir;
  if (!dir) {
    try { dir = execFileSync('npm', ['config', 'get', 'nodedir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim(); } catch { /* none */ }
  }
  if (!dir || dir === 'undefined' || dir === 'null') {
    // The running Node's own prefix, when it carries its headers (Debian, NodeSource, tarballs).
    const prefix = path.resolve(path.dirname(process.execPath), '..');
    if (fs.existsSync(path.join(prefix, 'include', 'node', 'node_api.h'))) dir = prefix;
  }
  return dir && dir !== 'undefined' && dir !== 'null' ? dir : undefined;
}

/**
 * Builds the addon for each arch into dir/prebuilds/linux-<arch>/ (replacing what was there).
 * @param {{ dir?: string, arches?: string[], quiet?: boolean, name?: string }} opts
 * @returns {string[]} the .node files made
 */
function prebuild(opts = {}) {
  if (!opts.dir) throw new Error('prebuild needs a staging folder (opts.dir)');
  const dir = path.resolve(opts.dir);
  const arches = opts.arches || ARCHES;
  const name = opts.name || JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).name;
  const made = [];
  const gyp = nodeGypBin();
  const headers = nodedir();
  // prebuildify resolves its node-gyp and the addon's build deps from here.
  const linked = !fs.existsSync(path.join(dir, 'node_modules'));
  if (linked) fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  try {
    for (const arch of arches) {
      const tools = toolchain(arch);
      requireTool(tools.env.CXX || 'g++', tools.pkg);
      const out = path.join(dir, 'prebuilds', `${process.platform}-${arch}`);
      fs.rmSync(out, { recursive: true, force: true });
      const env = { ...process.env, ...tools.env, PATH: `${path.join(ROOT, 'node_modules/.bin')}${path.delimiter}${process.env.PATH}` };
      if (headers) env.npm_config_nodedir = headers;
      execFileSync(process.execPath, [
        require.resolve('prebuildify/bin.js'), '--napi', '--strip', '--name', name, '--arch', arch,
        '--target', process.versions.node, '--node-gyp', gyp,
      ], { cwd: dir, env, stdio: opts.quiet ? 'pipe' : 'inherit' });
      fs.rmSync(path.join(dir, 'build'), { recursive: true, force: true });
      for (const f of fs.readdirSync(out)) if (f.endsWith('.node')) made.push(path.join(out, f));
    }
  } finally {
    if (linked) fs.rmSync(path.join(dir, 'node_modules'));
  }
  return made;
}

function newestMtime(p) {
  const st = fs.statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  let m = 0;
  for (const e of fs.readdirSync(p)) m = Math.max(m, newestMtime(path.join(p, e)));
  return m;
}

/** When the addon's sources (native/, binding.gyp) last changed. */
function sourcesMtime() {
  return Math.max(newestMtime(path.join(ROOT, 'native')), newestMtime(path.join(ROOT, 'binding.gyp')));
}

/** The checkout's prebuilt addon folder for a CPU. */
const prebuildDir = (arch) => path.join(ROOT, 'prebuilds', `${process.platform}-${arch}`);

/** The .node files in a folder (none when it does not exist). */
function addons(dir) {
  try {
    return fs.readdirSync(dir).filter((f) => f.endsWith('.node')).map((f) => path.join(dir, f));
  } catch {
    return [];
  }
}

/** Why the checkout's prebuilt addon for `arch` must be rebuilt, or null when it is current. */
function staleReason(arch) {
  const built = addons(prebuildDir(arch));
  if (built.length === 0) return 'no prebuilt addon';
  const when = Math.min(...built.map((f) => fs.statSync(f).mtimeMs));
  return sourcesMtime() > when ? 'native sources are newer than the prebuilt addon' : null;
}

/** The checkout's own addon (node-gyp's build/Release), which node-gyp-build loads before prebuilds/. */
const LOCAL_BUILD = path.join(ROOT, 'build', 'Release', 'dotcode_native.node');

/** 'missing', 'stale' (older than native/ and binding.gyp) or 'current'. */
function localBuildState() {
  let when;
  try { when = fs.statSync(LOCAL_BUILD).mtimeMs; } catch { return 'missing'; }
  return sourcesMtime() > when ? 'stale' : 'current';
}

/**
 * node-gyp-build loads build/Release before prebuilds/, so a checkout's own addon left from before
 * a pull or merge that changed native/ would be what the tests and the CLI run (the wasm reader,
 * rebuilt on such changes, then disagrees with it). Recompiles it when it is older than the
 * sources; a checkout without one (a clean clone whose install took the prebuilt) has nothing to do.
 */
function refreshLocalBuild() {
  if (localBuildState() !== 'stale') return;
  console.log('prebuild: build/Release/dotcode_native.node is older than native/: recompiling it');
  const args = [nodeGypBin(), 'rebuild', '-j', String(Math.max(1, os.cpus().length))];
  const headers = nodedir();
  if (headers) args.push(`--nodedir=${headers}`);
  const r = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) {
    process.stderr.write(`${r.stdout}${r.stderr}`);
    throw new Error('recompiling build/Release failed (output above); run `npx node-gyp rebuild` to see why');
  }
}

/** Copies a current build/Release addon into prebuilds/<platform>-<arch>/<name>.node, stripped. */
function reuseLocalBuild(arch) {
  if (localBuildState() !== 'current') return false;
  const name = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).name;
  const dir = prebuildDir(arch);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const to = path.join(dir, `${name}.node`);
  fs.copyFileSync(LOCAL_BUILD, to);
  if (spawnSync('strip', ['--strip-all', to], { stdio: 'ignore' }).status !== 0) {
    fs.rmSync(dir, { recursive: true, force: true });
    return false;
  }
  console.log(`${to} (the local build, stripped)`);
  return true;
}

module.exports = { prebuild, ARCHES, addons, prebuildDir, staleReason };

if (require.main === module) {
  const args = process.argv.slice(2);
  const opt = (n) => { const i = args.indexOf(n); return i >= 0 ? args[i + 1] : undefined; };
  try {
    let arches = opt('--arch') ? opt('--arch').split(',') : ARCHES;
    if (args.includes('--if-stale')) {
      refreshLocalBuild();
      arches = arches.filter((arch) => staleReason(arch) !== null);
      // As part of `npm run build`, a missing cross compiler is a notice, not a failed build (a
      // developer without g++-aarch64-linux-gnu still builds and tests); tools/pack-sdk.js and
      // CI (DOTCODE_REQUIRE_PREBUILDS=1) require every arch.
      if (process.env.DOTCODE_REQUIRE_PREBUILDS !== '1') {
        arches = arches.filter((arch) => {
          const t = toolchain(arch);
          if (spawnSync(t.env.CXX || 'g++', ['--version'], { stdio: 'ignore' }).status === 0) return true;
          console.error(`prebuild: ${t.env.CXX || 'g++'} is not on PATH: prebuilds/linux-${arch} not built (apt-get install ${t.pkg}); skipped`);
          return false;
        });
      }
    }
    // The host's own addon was just compiled by the install step (build/Release) from the same
    // binding.gyp: when it is current, a stripped copy is the prebuilt binary (saves a compile).
    arches = arches.filter((arch) => !(args.includes('--if-stale') && arch === process.arch && reuseLocalBuild(arch)));
    if (arches.length === 0) process.exit(0);
    const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'dotcode-prebuild-'));
    try {
      for (const rel of ['package.json', 'binding.gyp', 'native', 'tools/list-sources.js']) {
        fs.cpSync(path.join(ROOT, rel), path.join(stage, rel), { recursive: true });
      }
      const files = prebuild({ dir: stage, arches });
      for (const f of files) {
        const to = path.join(ROOT, path.relative(stage, f));
        fs.rmSync(path.dirname(to), { recursive: true, force: true });
        fs.mkdirSync(path.dirname(to), { recursive: true });
        fs.copyFileSync(f, to);
        console.log(to);
      }
    } finally {
      fs.rmSync(stage, { recursive: true, force: true });
    }
  } catch (e) {
    console.error(`prebuild: ${e.message}`);
    process.exit(1);
  }
}
