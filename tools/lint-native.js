#!/usr/bin/env node
// The native half of the lint gate (`npm run lint`, inside `npm test`): every C++ file of native/
// formatted as .clang-format says (clang-format --dry-run), and the C++ core (core, detector,
// dotcode) free of the bug-prone patterns .clang-tidy lists. Fails with the command to run when a
// file is off, or with the package to install when a tool is missing.
'use strict';
const { spawn, spawnSync } = require('child_process');
const os = require('os');
const fs = require('fs');
const path = require('path');

const root = path.join(__dirname, '..');

function sources(dir, exts) {
  const out = [];
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sources(rel, exts));
    else if (exts.some((e) => entry.name.endsWith(e))) out.push(rel);
  }
  return out.sort();
}

function tool(name) {
  const r = spawnSync(name, ['--version'], { encoding: 'utf8' });
  if (r.error) {
    console.error(`lint-native: ${name} not found. Install it (Debian/Ubuntu: apt-get install -y ${name}).`);
    process.exit(1);
  }
}

tool('clang-format');
const all = sources('native', ['.cpp', '.h']);
const format = spawnSync('clang-format', ['--style=file', '--dry-run', '--Werror', ...all], { cwd: root, encoding: 'utf8' });
if (format.status !== 0) {
  const files = [...new Set((format.stderr.match(/^[^\s:]+\.(?:cpp|h)(?=:\d+:\d+:)/gm) ?? []))];
  console.error(format.stderr.split('\n').slice(0, 20).join('\n'));
  console.error(`lint-native: ${files.length || 'some'} file(s) not formatted as .clang-format says. Fix with:\n  clang-format -i ${files.join(' ') || 'native/**/*.{cpp,h}'}`);
  process.exit(1);
}

tool('clang-tidy');
const core = ['native/core', 'native/detector', 'native/dotcode'].flatMap((d) => sources(d, ['.cpp']));
// Files go to one clang-tidy process each, as many at once as there are cores: a single process
// parses them one after another, and was 90 s of CI's `npm test` on two cores.
const workers = Math.max(1, Math.min(os.availableParallelism?.() ?? os.cpus().length, core.length));
const runTidy = (file) => new Promise((resolve) => {
  const child = spawn('clang-tidy', ['--quiet', file, '--', '-std=c++17', '-Inative'], { cwd: root });
  let stdout = '';
  child.stdout.on('data', (b) => { stdout += b; });
  child.stderr.resume();
  child.on('error', (e) => resolve({ status: 1, stdout: `${file}: error: cannot run clang-tidy: ${e.message}` }));
  child.on('close', (status) => resolve({ status, stdout }));
});
const queue = [...core];
const results = [];
const worker = async () => {
  for (let file = queue.shift(); file; file = queue.shift()) results.push(await runTidy(file));
};
Promise.all(Array.from({ length: workers }, worker)).then(() => {
  const failed = results.filter((r) => r.status !== 0);
  if (failed.length) {
    console.error(failed.flatMap((r) => r.stdout.split('\n')).filter((l) => /warning:|error:/.test(l)).slice(0, 30).join('\n'));
    console.error('lint-native: clang-tidy found the problems above (checks in .clang-tidy); fix them, or turn a check off there with the reason.');
    process.exit(1);
  }
  console.log(`lint-native: ${all.length} files formatted, ${core.length} core files clean under clang-tidy (${workers} at once)`);
});
