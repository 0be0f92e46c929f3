// `dotcode inspect` as a user runs it (bin/dotcode.js in a child process): what it prints, what
// it writes, and its exit codes (0 read, 1 not read, 2 usage error or an image it cannot load).
import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import sharp from 'sharp';
import type { InspectReport } from '../../lib/engine';
import { repoRoot } from '../engine/corpus';

const bin = path.join(repoRoot, 'bin', 'dotcode.js');

function run(args: string[], input?: Buffer) {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 60_000, input });
  assert.strictEqual(r.error, undefined);
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('dotcode inspect', function () {
  this.timeout(120_000);
  let tmp: string;
  before(() => { tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dc-inspect-cli-')); });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('a DotCode that reads: the counts, the verdict, the text, the folder; exit 0', () => {
    const out = path.join(tmp, 'read');
    const r = run(['inspect', 'examples/dotcode.png', '--out', out]);
    assert.strictEqual(r.code, 0, r.stderr);
    assert.strictEqual(r.stderr, '');
    const lines = r.stdout.trimEnd().split('\n');
    assert.strictEqual(lines[0], 'examples/dotcode.png: 553x421');
    assert.match(lines[1], /^ {2}\d+ pass(es)?, \d+ dot candidates, \d+ clusters?, \d+ lattice fits? \(\d+ sampled\), \d+ grids? tried \(1 decoded\)$/);
    assert.match(lines[2], /^ {2}verdict: read: 34x23 DotCode via dotcode:\w+/);
    assert.strictEqual(lines[3], '  read: Hello from DotCode Reader');
    assert.strictEqual(lines[4], `  wrote ${fs.readdirSync(out).length} files to ${out} (start with report.txt)`);
    for (const f of ['dots.png', 'clusters.png', 'grid-1.png', 'hypotheses.png', 'report.txt', 'report.json']) {
      assert.ok(fs.existsSync(path.join(out, f)), f);
    }
    assert.strictEqual(JSON.parse(fs.readFileSync(path.join(out, 'report.json'), 'utf8')).stage, 'read');
  });

  it('--speed video: the read decode makes at that speed, the fast pass alone', () => {
    const out = path.join(tmp, 'video');
    const r = run(['inspect', 'examples/dotcode.png', '--out', out, '--speed', 'video']);
    assert.strictEqual(r.code, 0, r.stderr);
    const report = JSON.parse(fs.readFileSync(path.join(out, 'report.json'), 'utf8')) as InspectReport;
    assert.ok(report.passes.length > 0 && report.passes.every((p) => p.via === 'dotcode:fast'), report.passes.map((p) => p.via).join(' '));
  });

  it('an image without a DotCode (from standard input): the verdict, files written, exit 1', async () => {
    const blank = await sharp({ create: { width: 200, height: 150, channels: 3, background: '#ffffff' } }).png().toBuffer();
    const out = path.join(tmp, 'blank');
    const r = run(['inspect', '-', `--out=${out}`, '--format', 'dotcode'], blank);
    assert.strictEqual(r.code, 1, r.stderr);
    assert.match(r.stdout, /^-: 200x150\n/);
    assert.match(r.stdout, /\n {2}verdict: no dots: /);
    assert.doesNotMatch(r.stdout, / {2}read: /);
    assert.ok(fs.existsSync(path.join(out, 'dots.png')));
    assert.match(fs.readFileSync(path.join(out, 'report.txt'), 'utf8'), /verdict: no dots/);
  });

  it('an image that cannot be loaded: a clear message, nothing written, exit 2', () => {
    const out = path.join(tmp, 'missing');
    let r = run(['inspect', 'no/such.png', '--out', out]);
    assert.strictEqual(r.code, 2);
    assert.strictEqual(r.stdout, '');
    assert.match(r.stderr, /no\/such\.png: no such file \(decode_error:file_not_found\)/);
    assert.strictEqual(fs.existsSync(out), false);
    r = run(['inspect', 'package.json', '--out', out]);
    assert.strictEqual(r.code, 2);
    assert.match(r.stderr, /not a PNG, JPEG or WebP image/);
  });

  it('a folder that cannot be written: exit 2', () => {
    const file = path.join(tmp, 'a-file');
    fs.writeFileSync(file, '');
    const r = run(['inspect', 'examples/dotcode.png', '--out', path.join(file, 'sub')]);
    assert.strictEqual(r.code, 2);
    assert.match(r.stderr, /cannot write .*a-file\/sub: ENOTDIR/);
  });

  it('usage errors exit 2: no --out, no IMAGE, two IMAGEs, another --format, an unknown option or speed', () => {
    const out = path.join(tmp, 'usage');
    for (const args of [['inspect', 'examples/dotcode.png'], ['inspect', '--out', out], ['inspect'],
      ['inspect', 'examples/dotcode.png', 'examples/qrcode.png', '--out', out],
      ['inspect', 'examples/dotcode.png', '--out', out, '--format', 'QRCode'],
      ['inspect', 'examples/dotcode.png', '--out', out, '--json'], ['inspect', 'examples/dotcode.png', '--out'],
      ['inspect', 'examples/dotcode.png', '--out', out, '--speed', 'fastest']]) {
      const r = run(args);
      assert.strictEqual(r.code, 2, `${args.join(' ')} -> ${r.code}`);
      assert.strictEqual(r.stdout, '');
      assert.match(r.stderr, /^dotcode: .+\nRun "dotcode --help" for usage\.\n$/);
    }
    assert.strictEqual(fs.existsSync(out), false);
  });

  it('--help shows the command', () => {
    const h = run(['--help']);
    assert.strictEqual(h.code, 0);
    assert.match(h.stdout, /dotcode inspect IMAGE --out DIR \[--format DotCode\]/);
  });
});
