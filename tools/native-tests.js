#!/usr/bin/env node
// Builds the C++ core with CMake (build-native/) and runs its unit tests. Part of `npm test`.
// Set DOTCODE_SANITIZE=1 to build and run them under AddressSanitizer and UBSan (build-asan/).
'use strict';
const { spawnSync } = require('child_process');
const path = require('path');
const os = require('os');

const root = path.join(__dirname, '..');
const sanitize = process.env.DOTCODE_SANITIZE === '1';
const buildDir = path.join(root, sanitize ? 'build-asan' : 'build-native');

function run(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (r.error) {
    console.error(`native tests: cannot run ${cmd}: ${r.error.message}. Install cmake and g++ (apt-get install -y cmake g++).`);
    process.exit(1);
  }
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const configure = ['-S', '.', '-B', buildDir, '-DCMAKE_BUILD_TYPE=' + (sanitize ? 'Debug' : 'RelWithDebInfo')];
if (sanitize) configure.push('-DDOTCODE_SANITIZE=ON');
run('cmake', configure);
run('cmake', ['--build', buildDir, '--target', 'native_tests', '-j', String(Math.max(1, os.cpus().length))]);
run(path.join(buildDir, 'native_tests'), process.argv.slice(2));
