#!/usr/bin/env node
// The `dotcode` command: a thin launcher. `serve` and `admin` belong to the Cloud API server
// package (dotcode-server, an npm workspace of a checkout); everything else is the SDK's own
// command line (dist/lib/cli). The SDK never names the server: an SDK-only install has no
// server package, and the SDK's command line then says so.
'use strict';

const argv = process.argv.slice(2);

/** The server package's command line, or null when it is not installed (an SDK-only install). */
function serverCli() {
  try {
    return require('dotcode-server');
  } catch (e) {
    if (e && e.code === 'MODULE_NOT_FOUND' && /dotcode-server/.test(String(e.message))) return null;
    throw e;
  }
}

function run() {
  const server = argv[0] === 'serve' || argv[0] === 'admin' ? serverCli() : null;
  if (server) return Promise.resolve().then(() => (argv[0] === 'serve' ? server.runServe : server.runAdmin)(argv.slice(1)));
  return require('../dist/lib/cli/main.js').main(argv);
}

run().then(
  (code) => { process.exitCode = code; },
  (err) => { console.error(`dotcode: ${err && err.message ? err.message : err}`); process.exitCode = 2; },
);
