// The `dotcode` command as a user runs it (bin/dotcode.js in a child process), plus the progress
// bar through main() with a fake terminal.
import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as path from 'path';
import { Writable } from 'stream';
import { main } from '../../lib/cli/main';
import { repoRoot } from '../engine/corpus';

const bin = path.join(repoRoot, 'bin', 'dotcode.js');
const ex = (f: string) => path.join('examples', f);

function run(args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 30_000 });
  assert.strictEqual(r.error, undefined);
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

class Capture extends Writable {
  text = '';
  isTTY: boolean;
  columns = 100;
  constructor(tty: boolean) { super(); this.isTTY = tty; }
  _write(chunk: Buffer, _enc: string, cb: () => void) { this.text += chunk.toString(); cb(); }
}

describe('dotcode CLI', function () {
  this.timeout(60_000);

  it('decode --json: one SPEC-shaped line per file for the five zxing symbologies, exit 0', () => {
    const files = ['qrcode.png', 'datamatrix.png', 'pdf417.png', 'aztec.png', 'maxicode.png'].map(ex);
    const r = run(['decode', '--json', ...files]);
    assert.strictEqual(r.code, 0, r.stderr);
    assert.strictEqual(r.stderr, '');
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    assert.deepStrictEqual(lines.map((l) => l.file), files);
    assert.deepStrictEqual(lines.map((l) => l.format), ['QRCode', 'DataMatrix', 'PDF417', 'Aztec', 'MaxiCode']);
    for (const l of lines) {
      assert.deepStrictEqual(Object.keys(l), ['file', 'ok', 'text', 'format', 'via', 'elapsed_ms', 'error', 'gs1']);
      assert.strictEqual(l.ok, true);
    }
    assert.strictEqual(lines[4].text, 'MaxiCode sample 42');
  });

  it('a missing file: JSON line with the error, a clear message, exit 1', () => {
    const r = run(['decode', '--json', ex('qrcode.png'), 'no/such.png']);
    assert.strictEqual(r.code, 1);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    assert.strictEqual(lines.length, 2);
    assert.deepStrictEqual([lines[1].file, lines[1].ok, lines[1].error], ['no/such.png', false, 'decode_error:file_not_found']);
    assert.match(r.stderr, /no\/such\.png: no such file/);
  });

  it('human output; a file with no code makes exit 1; --format and --gs1 are honoured', () => {
    let r = run(['decode', ex('aztec.png')]);
    assert.strictEqual(r.code, 0);
    assert.strictEqual(r.stdout, `${ex('aztec.png')}: Aztec: Aztec sample\n`);
    r = run(['decode', '--format', 'QRCode', ex('aztec.png')]);
    assert.strictEqual(r.code, 1);
    assert.match(r.stderr, /no code found \(no_dotcode_found\)/);
    r = run(['decode', '--format=aztec', '--gs1', 'off', '--json', ex('aztec.png')]);
    assert.strictEqual(r.code, 0);
    assert.strictEqual(JSON.parse(r.stdout).gs1, null);
  });

  it('--speed video|balanced|thorough is honoured; another value is a usage error', () => {
    for (const speed of ['video', 'balanced', 'thorough']) {
      const r = run(['decode', '--speed', speed, '--json', ex('qrcode.png')]);
      assert.strictEqual(r.code, 0, `${speed}: ${r.stderr}`);
      assert.strictEqual(JSON.parse(r.stdout).format, 'QRCode');
    }
    const bad = run(['decode', '--speed=fast', ex('qrcode.png')]);
    assert.strictEqual(bad.code, 2);
    assert.match(bad.stderr, /unknown --speed "fast" \(one of: video, balanced, thorough\)/);
  });

  it('usage errors exit 2: unknown option, bad --format, bad --gs1, no files, unknown command', () => {
    for (const args of [['decode', '--fast', ex('qrcode.png')], ['decode', '--format', 'EAN13', ex('qrcode.png')],
      ['decode', '--gs1', 'yes', ex('qrcode.png')], ['decode'], ['decode', '--json'], ['frobnicate'], []]) {
      const r = run(args);
      assert.strictEqual(r.code, 2, `${args.join(' ')} -> ${r.code}`);
      assert.strictEqual(r.stdout, '');
      assert.ok(r.stderr.length > 0);
    }
    assert.match(run(['decode', '--format', 'EAN13', 'x.png']).stderr, /unknown --format "EAN13" \(one of: DotCode, QRCode/);
  });

  it('--help and --version', () => {
    const h = run(['--help']);
    assert.strictEqual(h.code, 0);
    assert.match(h.stdout, /dotcode decode FILE\.\.\. \[--format F\] \[--gs1 auto\|always\|off\] \[--json\]/);
    const v = run(['--version']);
    assert.strictEqual(v.code, 0);
    assert.strictEqual(v.stdout.trim(), require(path.join(repoRoot, 'package.json')).version);
  });

  it('a progress bar on a terminal for many files, never with --json or when piped', async () => {
    const files = Array.from({ length: 10 }, () => ex('qrcode.png')).map((f) => path.join(repoRoot, f));
    let out = new Capture(false);
    let err = new Capture(true);
    assert.strictEqual(await main(['decode', ...files], { stdout: out, stderr: err }), 0);
    assert.match(err.text, /\[#+-*\] \d+\/10/);
    assert.doesNotMatch(out.text, /\[#/);
    assert.strictEqual(out.text.trim().split('\n').length, 10);

    out = new Capture(false);
    err = new Capture(true);
    await main(['decode', '--json', ...files], { stdout: out, stderr: err });
    assert.strictEqual(err.text, '');

    out = new Capture(false);
    err = new Capture(false);
    await main(['decode', ...files], { stdout: out, stderr: err });
    assert.strictEqual(err.text, '');
  });
});
