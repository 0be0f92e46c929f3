#!/usr/bin/env node
// The native half of the lint gate (`npm run lint`, inside `npm test`): every C++ file of native/
// formatted as .clang-format says (clang-format --dry-run), and the C++ core (core, detector,
// dotcode) free of the bug-prone patterns .clang-tidy lists. Fails with the command to run when a
// file is off, or with the package to install when a tool is missing.
'use strict';
const { spawnSync } = require('child_process');
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
const tidy = spawnSync('clang-tidy', ['--quiet', ...core, '--', '-std=c++17', '-Inative'], { cwd: root, encoding: 'utf8' });
if (tidy.status !== 0) {
  console.error(tidy.stdout.split('\n').filter((l) => /warning:|error:/.test(l)).slice(0, 30).join('\n'));
  console.error('lint-native: clang-tidy found the problems above (checks in .clang-tidy); fix them, or turn a check off there with the reason.');
  process.exit(1);
}
console.log(`lint-native: ${all.length} files formatted, ${core.length} core files clean under clang-tidy`);
