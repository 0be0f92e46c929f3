#!/usr/bin/env node
// The package's install step. linux-x64 and linux-arm64 (glibc) get the prebuilt addon from
// prebuilds/ and nothing is compiled. Elsewhere node-gyp-build tries to compile the addon from
// the shipped sources (needs g++/clang, make, python3); if that is impossible or fails, the
// install still succeeds: the SDK then reads DotCode with its WebAssembly build (same results,
// slower; lib/engine/backend.ts logs this once at run time). DOTCODE_ENGINE=wasm skips the
// compile attempt altogether.
'use strict';
const path = require('node:path');
const { spawnSync } = require('node:child_process');

if (process.env.DOTCODE_ENGINE === 'wasm') process.exit(0);

let bin;
try {
  bin = require.resolve('node-gyp-build/bin.js');
} catch {
  console.warn('dotcode-sdk: node-gyp-build is missing; the WebAssembly reader will be used');
  process.exit(0);
}
// node-gyp-build: a prebuilt binary for this platform if there is one, else `node-gyp rebuild`.
const r = spawnSync(process.execPath, [bin], { cwd: path.join(__dirname, '..'), stdio: 'inherit' });
if (r.status !== 0) {
  console.warn(`dotcode-sdk: no prebuilt DotCode addon for ${process.platform}-${process.arch} and compiling one failed; ` +
    'the SDK will use its WebAssembly reader (same results, slower)');
}
process.exit(0);
