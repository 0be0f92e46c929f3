// The two-level pass (lib/engine/speed.ts TWO_LEVELS, zxing.ts twoLevels): a plane of exactly two
// grey levels either side of 127 is first read with zxing-cpp's fixed-threshold binarizer, and
// the speed's own ladder still runs when that finds nothing. Read counts on the whole corpus are
// held by corpus.test.ts; here: when the pass applies, and that it never takes a read away.
import * as assert from 'assert';
import sharp from 'sharp';
import * as path from 'path';
import { close, decode, decodeAll } from '../../lib/engine';
import { loadGrey } from '../../lib/engine/image';
import { zxingPasses } from '../../lib/engine/speed';
import { loadZXing, readZXingNow, twoLevels } from '../../lib/engine/zxing';
import { repoRoot } from './corpus';

const plane = (values: number[], width: number) => ({ data: Uint8Array.from(values), width, height: values.length / width });

describe('engine: zxing two-level pass', function () {
  this.timeout(60_000);
  after(close);

  it('applies to exactly two levels either side of 127, and only when asked', () => {
    assert.strictEqual(twoLevels(plane([0, 255, 255, 0], 2)), true);
    assert.strictEqual(twoLevels(plane([40, 200, 40, 40], 2)), true);
    assert.strictEqual(twoLevels(plane([0, 0, 0, 0], 2)), false, 'one level');
    assert.strictEqual(twoLevels(plane([100, 120, 120, 100], 2)), false, 'both dark');
    assert.strictEqual(twoLevels(plane([0, 255, 128, 0], 2)), false, 'three levels');
    for (const speed of ['video', 'balanced', 'thorough'] as const) {
      const plain = zxingPasses(speed);
      const two = zxingPasses(speed, true);
      assert.strictEqual(two[0].binarizer, 'FixedThreshold');
      assert.deepStrictEqual(two.slice(1), [...plain], `${speed}: the whole ladder follows`);
      assert.ok(!plain.some((p) => p.binarizer === 'FixedThreshold'));
    }
  });

  it('counts levels a word at a time exactly as pixel by pixel, at every offset and size', () => {
    // the definition, one pixel at a time
    const reference = (d: Uint8Array): boolean => {
      const levels = [...new Set(d)];
      return levels.length === 2 && (levels[0] <= 127) !== (levels[1] <= 127);
    };
    let seed = 11;
    const rand = (k: number) => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 8) % k;
    const backing = new Uint8Array(300);
    let agreed = 0, two = 0;
    for (let t = 0; t < 4000; t++) {
      const offset = rand(4), width = 1 + rand(37), height = 1 + rand(6);
      const d = backing.subarray(offset, offset + width * height);
      const lo = rand(3) ? rand(128) : 128 + rand(128), hi = rand(3) ? 128 + rand(128) : rand(128);
      // runs of the two levels (a rendered symbol), sometimes one stray third level or only one level
      for (let i = 0, v = lo; i < d.length; i++) {
        if (rand(5) === 0) v = v === lo ? hi : lo;
        d[i] = v;
      }
      if (rand(4) === 0) d[rand(d.length)] = rand(256);
      if (rand(10) === 0) d.fill(lo);
      const want = reference(d);
      assert.strictEqual(twoLevels({ data: d, width, height }), want, `offset ${offset}, ${width}x${height}: ${[...d].join(',')}`);
      agreed++;
      two += want ? 1 : 0;
    }
    assert.ok(two > 800 && agreed - two > 800, `both answers drawn (${two} of ${agreed} two-level)`);
  });

  it('a black-and-white QR Code reads the same through the pass; a two-level plane it misses still gets the ladder', async () => {
    await loadZXing();
    const qr = await loadGrey({ kind: 'bytes', bytes: await sharp(path.join(repoRoot, 'examples', 'qrcode.png')).threshold(128).png().toBuffer() });
    assert.ok(twoLevels(qr));
    const viaPass = readZXingNow(qr, ['QRCode'], 1);
    const ladderOnly = readZXingNow(qr, ['QRCode'], 2); // more than one symbol wanted: no two-level pass
    assert.strictEqual(viaPass.length, 1);
    assert.strictEqual(viaPass[0].text, ladderOnly[0].text);
    assert.strictEqual((await decode({ ...qr, channels: 1 as const }, { format: 'QRCode' })).text, 'https://example.com/dotcode-reader');
    // Inverted (light symbol on dark): the fixed-threshold plain pass finds nothing, the
    // ladder's inverting pass still reads it.
    const inverted = { data: qr.data.map((v) => 255 - v), width: qr.width, height: qr.height, channels: 1 as const };
    assert.ok(twoLevels(inverted));
    const r = await decode(inverted, { format: 'QRCode' });
    assert.strictEqual(r.text, 'https://example.com/dotcode-reader');
    assert.strictEqual((await decodeAll(inverted, { format: 'QRCode' })).symbols.length, 1);
  });
});
