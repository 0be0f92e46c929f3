#!/usr/bin/env node
// The `dotcode` command: a thin launcher for the compiled CLI.
'use strict';
require('../dist/lib/cli/main.js').main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err) => { console.error(`dotcode: ${err && err.message ? err.message : err}`); process.exitCode = 2; },
);
