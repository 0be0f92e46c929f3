// Loaded by mocha before any test file (.mocharc.json "require"): every temporary folder the
// tests make through os.tmpdir() (server data folders with their SQLite files and signing keys,
// unpacked SDK tarballs, CLI outputs), in this process and in the processes it starts, goes under
// one folder per run, removed when the run ends. A run used to leave about 130 folders (40 MB) in
// the machine's /tmp. Mocha runs test files in parallel worker processes (.mocharc.json): each
// worker loads this file too, inherits the main process's TMPDIR and so makes its own folder inside
// the main one, which the main process's global teardown removes with everything in it.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'dotcode-tests-'));
// os.tmpdir() reads TMPDIR on every call, and child processes inherit it.
process.env.TMPDIR = root;

export function mochaGlobalTeardown(): void {
  fs.rmSync(root, { recursive: true, force: true });
}
