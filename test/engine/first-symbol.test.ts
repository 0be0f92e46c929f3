// decode() without a format (core.ts, readFirst): DotCode's fast pass, then zxing's plain pass,
// then the detector's harder passes, over a copy with zxing's symbol painted out when there is one
// (blank-symbols.ts). The harder passes must never search another symbology's modules, and a
// DotCode that only they read must still win over the symbol beside it.
import * as assert from 'assert';
import * as path from 'path';
import sharp from 'sharp';

import { blankSymbols } from '../../lib/engine/blank-symbols';
import { inThreadReaders, runJob, type Readers } from '../../lib/engine/core';
import type { DotCodeOptions } from '../../lib/engine/dotcode';
import { loadGrey, type GreyImage } from '../../lib/engine/image';
import { close, decode } from '../../lib/engine';
import { loadAddon } from '../../lib/engine/addon';
import { renderSample, type Sample } from '../fixtures/dotcode-render';
import { repoRoot } from './corpus';

const examples = path.join(repoRoot, 'examples');
const ZXING_EXAMPLES: Array<[string, string]> = [
  ['qrcode.png', 'QRCode'], ['datamatrix.png', 'DataMatrix'], ['aztec.png', 'Aztec'], ['pdf417.png', 'PDF417'], ['maxicode.png', 'MaxiCode'],
];

/** In-thread readers that note the plane and options of every DotCode read. */
function recordingReaders(calls: Array<{ grey: GreyImage; options: DotCodeOptions }>): Readers {
  return {
    ...inThreadReaders,
    dotcode: async (grey, maxSymbols, options) => {
      calls.push({ grey: { data: Uint8Array.from(grey.data), width: grey.width, height: grey.height }, options });
      return inThreadReaders.dotcode(grey, maxSymbols, options);
    },
  };
}

/** How many distinct grey levels the plane holds inside the box (x0, y0)-(x1, y1). */
function levelsIn(g: GreyImage, x0: number, y0: number, x1: number, y1: number): number {
  const seen = new Set<number>();
  for (let y = Math.max(0, y0); y < Math.min(g.height, y1); y++) for (let x = Math.max(0, x0); x < Math.min(g.width, x1); x++) seen.add(g.data[y * g.width + x]);
  return seen.size;
}

describe('decode() without a format: the first symbol', function () {
  this.timeout(60_000);
  after(() => close());

  for (const [file, format] of ZXING_EXAMPLES) {
    it(`${file}: read as ${format}, and the detector's harder passes never search its modules`, async () => {
      const calls: Array<{ grey: GreyImage; options: DotCodeOptions }> = [];
      const answer = await runJob({ input: { kind: 'path', path: path.join(examples, file) }, gs1: 'auto', speed: 'balanced', all: false }, recordingReaders(calls));
      assert.strictEqual(answer.error, null);
      assert.strictEqual(answer.symbols[0].format, format);
      assert.ok(calls.length >= 1 && calls[0].options.tryHarder === false, 'the fast pass goes first');
      const corners = answer.symbols[0].corners!;
      const xs = corners.map((p) => p.x), ys = corners.map((p) => p.y);
      // the middle half of the symbol's box: the modules the harder passes once spent their budget on
      const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
      const [qx, qy] = [(x1 - x0) / 4, (y1 - y0) / 4];
      for (const c of calls.slice(1)) {
        assert.notStrictEqual(c.options.tryHarder, false);
        assert.strictEqual(levelsIn(c.grey, x0 + qx, y0 + qy, x1 - qx, y1 - qy), 1, 'a harder pass was given the symbol');
      }
    });
  }

  it('a DotCode that only the harder passes read wins over a QR Code beside it', async function () {
    const addon = loadAddon();
    // a blurred render the fast pass leaves and the harder passes read (found among the first seeds)
    let sample: Sample | undefined;
    for (let seed = 1; seed < 80 && !sample; seed++) {
      const s = await renderSample('blur', seed);
      const fast = addon.readImageSync(s.grey, s.width, s.height, { tryHarder: false, maxSymbols: 1 });
      const hard = addon.readImageSync(s.grey, s.width, s.height, { timeBudgetMs: 10_000, maxSymbols: 1 });
      if (!fast.length && hard.length && s.expectedText) sample = s;
    }
    assert.ok(sample, 'no blur render of seeds 1-79 needs the harder passes');
    // the QR Code example beside it on white paper
    const qrSide = Math.min(sample.height, 300);
    const qr = await sharp(path.join(examples, 'qrcode.png')).flatten({ background: '#ffffff' }).greyscale().resize(qrSide, qrSide).raw().toBuffer();
    const width = sample.width + qrSide + 40, height = Math.max(sample.height, qrSide);
    const data = new Uint8Array(width * height).fill(235);
    for (let y = 0; y < sample.height; y++) data.set(sample.grey.subarray(y * sample.width, (y + 1) * sample.width), y * width);
    for (let y = 0; y < qrSide; y++) data.set(qr.subarray(y * qrSide, (y + 1) * qrSide), y * width + sample.width + 40);
    const frame = { data, width, height, channels: 1 as const };
    assert.strictEqual((await decode(frame, { format: 'QRCode' })).ok, true, 'the QR Code reads on its own');
    const r = await decode(frame);
    assert.strictEqual(r.format, 'DotCode');
    assert.strictEqual(r.text, sample.expectedText);
  });

  it('blankSymbols paints a grown quadrilateral with its rim grey and leaves the rest', async () => {
    const grey = await loadGrey({ kind: 'path', path: path.join(examples, 'qrcode.png') });
    const corners = [{ x: 100, y: 100 }, { x: 300, y: 100 }, { x: 300, y: 300 }, { x: 100, y: 300 }];
    const out = blankSymbols(grey, [{ corners }]);
    assert.notStrictEqual(out.data, grey.data);
    assert.ok(levelsIn(grey, 100, 100, 300, 300) > 1);
    assert.strictEqual(levelsIn(out, 95, 95, 305, 305), 1, 'grown by 6% a side');
    for (let y = 0; y < grey.height; y++) {
      for (let x = 0; x < grey.width; x++) {
        if (x >= 86 && x <= 314 && y >= 86 && y <= 314) continue;
        assert.strictEqual(out.data[y * grey.width + x], grey.data[y * grey.width + x], `(${x}, ${y}) changed`);
      }
    }
  });
});
