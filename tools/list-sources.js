#!/usr/bin/env node
// Lists the C++ sources of the addon for binding.gyp, so a new file in native/ needs no edit there.
// The CMake build globs the same folders.
'use strict';
const fs = require('fs');
const path = require('path');
const root = path.join(__dirname, '..');
const dirs = ['native/core', 'native/dotcode', 'native/detector', 'native/addon'];
const files = [];
for (const dir of dirs) {
  const abs = path.join(root, dir);
  if (!fs.existsSync(abs)) continue;
  for (const name of fs.readdirSync(abs).sort()) {
    if (name.endsWith('.cpp')) files.push(`${dir}/${name}`);
  }
}
process.stdout.write(files.join(' '));
