// DotCode symbols that switch character set mid-message (FORMAT.md 8.5, 8.8): the native core
// reports where each ECI takes effect and the engine decodes the bytes segment by segment.
// End to end: zint renders multi-ECI symbols to PNG (no bwip-js involved), the public decode reads
// them from the file. zint is an optional tool here: without it those cases are skipped, loudly.
import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { close, decode, decodeAll, warmUp } from '../../lib/engine';
import { textFromEciSegments } from '../../lib/engine/charset';

function zintAvailable(): boolean {
  const r = spawnSync('zint', ['--version'], { encoding: 'utf8' });
  return !r.error && r.status === 0;
}

/** Renders one DotCode PNG with zint; scale 3 gives a dot pitch of 6 px. */
function zintPng(file: string, args: string[]): void {
  const r = spawnSync('zint', ['-b', 'DOTCODE', '--scale=3', '-o', file, ...args], { encoding: 'utf8' });
  if (r.error || r.status !== 0) throw new Error(`zint ${args.join(' ')} failed: ${r.stderr || r.error}`);
}

describe('engine: DotCode ECI segments', function () {
  this.timeout(30_000);

  describe('textFromEciSegments', () => {
    const latin1 = (s: string) => Buffer.from(s, 'latin1');

    it('bytes before the first ECI are ISO-8859-1, then each ECI up to the next one', () => {
      // "é" as Latin-1 (0xE9), then ECI 7 (ISO-8859-5: 0xBF = П), then ECI 26 (UTF-8 "✓").
      const bytes = Buffer.concat([latin1('\xe9 '), Buffer.from([0xbf]), Buffer.from('✓', 'utf8')]);
      assert.strictEqual(textFromEciSegments(bytes, [{ offset: 2, eci: 7 }, { offset: 3, eci: 26 }]), 'é П✓');
      // The same bytes with ECI 26 from the start: the Latin-1 0xE9 and 0xBF are not UTF-8.
      assert.strictEqual(textFromEciSegments(bytes, [{ offset: 0, eci: 26 }]), '\ufffd \ufffd✓');
      assert.strictEqual(textFromEciSegments(bytes, []), bytes.toString('latin1'));
    });

    it('two ECIs at one offset: the later wins; a trailing ECI adds nothing; bad offsets are clamped', () => {
      const bytes = Buffer.from([0x41, 0xbf, 0xbf]);
      assert.strictEqual(textFromEciSegments(bytes, [{ offset: 1, eci: 26 }, { offset: 1, eci: 7 }]), 'AПП');
      assert.strictEqual(textFromEciSegments(bytes, [{ offset: 1, eci: 7 }, { offset: 3, eci: 26 }]), 'AПП');
      // A non-charset ECI (899, binary) keeps each byte as its own code point, like Latin-1.
      assert.strictEqual(textFromEciSegments(bytes, [{ offset: 0, eci: 7 }, { offset: 2, eci: 899 }]), 'AП\xbf');
      // Offsets past the end or going backwards never drop or repeat bytes.
      assert.strictEqual(textFromEciSegments(bytes, [{ offset: 2, eci: 7 }, { offset: 1, eci: 3 }, { offset: 9, eci: 26 }]), 'A\xbf\xbf');
      assert.strictEqual(textFromEciSegments(Buffer.alloc(0), [{ offset: 0, eci: 26 }]), '');
    });
  });

  describe('zint multi-ECI symbols through the public decode', () => {
    let dir = '';
    before(async function () {
      // (the engine's warm-up starts its workers and compiles zxing-wasm: seconds when idle, over
      // 30 s once with .ci/run and another npm test on the same two cores)
      this.timeout(120_000);
      if (!zintAvailable()) {
        console.log('    [skipped] zint is not installed (apt-get install zint): multi-ECI DotCode symbols not rendered');
        this.skip();
      }
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dc-eciseg-'));
      await warmUp();
    });
    after(async () => {
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
      await close();
    });

    it('default Latin-1, then ECI 7 (Cyrillic), then ECI 26 (UTF-8), switched by FNC2', async () => {
      const file = path.join(dir, 'three.png');
      zintPng(file, ['-d', 'Grüße, ', '--seg1=7,Привет, ', '--seg2=26,日本語 ✓']);
      const r = await decode(file, { format: 'DotCode' });
      assert.strictEqual(r.error, null);
      assert.strictEqual(r.text, 'Grüße, Привет, 日本語 ✓');
      assert.strictEqual(r.format, 'DotCode');
      const all = await decodeAll(file, { format: 'DotCode' });
      assert.strictEqual(all.symbols.length, 1);
      assert.deepStrictEqual(all.symbols[0].ecis, [7, 26]);
      // 7 Latin-1 bytes, 8 ISO-8859-5 bytes, then UTF-8: the bytes stay exactly as encoded.
      assert.strictEqual(all.symbols[0].bytes.subarray(0, 15).toString('latin1'), 'Grüße, \xbf\xe0\xd8\xd2\xd5\xe2, ');
      assert.strictEqual(all.symbols[0].bytes.subarray(15).toString('utf8'), '日本語 ✓');
    });

    it('ECI 899 binary bytes, then ECI 26 by a 256 marker inside the same binary run', async () => {
      const file = path.join(dir, 'binary.png');
      zintPng(file, ['--eci=899', '--binary', '--esc', '-d', '\\x00\\x01\\x02\\x80\\xff\\xfe\\x00\\x9f', '--seg1=26,€ ok']);
      const r = await decode(file, { format: 'DotCode' });
      assert.strictEqual(r.error, null);
      assert.strictEqual(r.text, '\x00\x01\x02\x80\xff\xfe\x00\x9f€ ok');
    });
  });
});
