// The short roads to the grey plane (lib/engine/png-grey.ts, luma.ts, image.ts decodeEncoded)
// must give exactly the bytes of the whole libvips pipeline, or reads would change: checked on
// every image of the sample corpora, on PNGs of every colour type and bit depth with every row
// filter, and on samples of the luma and flatten arithmetic.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { deflateSync } from 'zlib';
import sharp from 'sharp';
import { loadGrey, loadGreyPipeline } from '../../lib/engine/image';
import { flattenOnWhite, lumaOf, lumaOfSum, lumaPlane, rgbaToGrey } from '../../lib/engine/luma';
import { pngToGrey } from '../../lib/engine/png-grey';
import { renderFrame720 } from '../fixtures/dotcode-render';
import { corpusDir, repoRoot } from './corpus';

function* images(dir: string): Generator<string> {
  if (!fs.existsSync(dir)) return;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* images(p);
    else if (/\.(png|jpe?g|webp)$/i.test(e.name)) yield p;
  }
}

async function sameAsPipeline(bytes: Buffer, what: string): Promise<void> {
  const fast = await loadGrey({ kind: 'bytes', bytes });
  const whole = await loadGreyPipeline(bytes);
  assert.deepStrictEqual([fast.width, fast.height], [whole.width, whole.height], what);
  assert.ok(Buffer.from(fast.data).equals(Buffer.from(whole.data)), `${what}: grey bytes differ`);
}

// A minimal PNG writer, so every colour type, bit depth and filter can be made on purpose.
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(b: Buffer): number {
  let c = 0xffffffff;
  for (const x of b) c = CRC_TABLE[(c ^ x) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), body])), 0);
  return Buffer.concat([head, body, crc]);
}

/** Rows of packed samples -> PNG; row y uses filter y % 5 (the encoder side of each filter). */
function png(width: number, height: number, depth: number, colour: number, rows: Buffer[], extra: Buffer[] = []): Buffer {
  const channels = ({ 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 } as Record<number, number>)[colour];
  const bpp = Math.max(1, (channels * depth) >> 3);
  const out: Buffer[] = [];
  rows.forEach((row, y) => {
    const f = y % 5;
    const prev = y > 0 ? rows[y - 1] : Buffer.alloc(row.length);
    const enc = Buffer.alloc(row.length);
    for (let i = 0; i < row.length; i++) {
      const a = i >= bpp ? row[i - bpp] : 0, b = prev[i], c = i >= bpp ? prev[i - bpp] : 0;
      const p = a + b - c;
      const pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
      const pred = [0, a, b, (a + b) >> 1, pa <= pb && pa <= pc ? a : pb <= pc ? b : c][f];
      enc[i] = (row[i] - pred) & 0xff;
    }
    out.push(Buffer.from([f]), enc);
  });
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = depth; ihdr[9] = colour;
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), ...extra,
    chunk('IDAT', deflateSync(Buffer.concat(out))), chunk('IEND', Buffer.alloc(0))]);
}

function randomRows(width: number, height: number, bitsPerPixel: number, seed: number): Buffer[] {
  let s = seed;
  const next = () => ((s = (s * 1103515245 + 12345) >>> 0) >>> 16) & 0xff;
  return Array.from({ length: height }, () => Buffer.from(Array.from({ length: Math.ceil((width * bitsPerPixel) / 8) }, next)));
}

describe('engine: grey plane by the short roads equals the libvips pipeline', function () {
  this.timeout(120_000);

  it('every image of the zxing samples, the real DotCode photos and the examples', async () => {
    let n = 0;
    for (const dir of [corpusDir, path.join(corpusDir, '..', 'real-dotcode'), path.join(repoRoot, 'examples')]) {
      for (const f of images(dir)) {
        await sameAsPipeline(fs.readFileSync(f), f);
        n++;
      }
    }
    assert.ok(n >= 7, `only ${n} images found`);
  });

  it('1280x720 camera-like JPEG frames (with and without a DotCode) and a grey JPEG', async () => {
    for (const withSymbol of [true, false]) {
      for (const seed of [1, 2]) {
        const f = await renderFrame720(withSymbol, seed);
        await sameAsPipeline(f.encoded!, `frame720 ${withSymbol} ${seed}`);
      }
    }
    const grey = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#808080' } }).toColourspace('b-w').jpeg().toBuffer();
    await sameAsPipeline(grey, 'grey JPEG');
  });

  it('PNGs of every colour type and bit depth, each row filter, palettes with transparency', async () => {
    const w = 37, h = 23;
    const cases: [string, Buffer][] = [];
    for (const depth of [1, 2, 4, 8]) cases.push([`grey ${depth}-bit`, png(w, h, depth, 0, randomRows(w, h, depth, depth))]);
    for (const depth of [1, 2, 4, 8]) {
      const entries = 1 << depth;
      const plte = Buffer.from(Array.from({ length: entries * 3 }, (_, i) => (i * 97 + 13) & 0xff));
      const trns = Buffer.from(Array.from({ length: entries >> 1 }, (_, i) => (i * 61) & 0xff));
      cases.push([`palette ${depth}-bit`, png(w, h, depth, 3, randomRows(w, h, depth, 10 + depth), [chunk('PLTE', plte)])]);
      cases.push([`palette ${depth}-bit with tRNS`, png(w, h, depth, 3, randomRows(w, h, depth, 20 + depth), [chunk('PLTE', plte), chunk('tRNS', trns)])]);
    }
    cases.push(['RGB', png(w, h, 8, 2, randomRows(w, h, 24, 3))]);
    cases.push(['grey + alpha', png(w, h, 8, 4, randomRows(w, h, 16, 4))]);
    cases.push(['RGBA', png(w, h, 8, 6, randomRows(w, h, 32, 5))]);
    for (const [what, bytes] of cases) {
      assert.ok(pngToGrey(bytes), `${what}: not taken by the in-thread decoder`);
      await sameAsPipeline(bytes, what);
    }
    // Left to sharp, and still the same bytes: 16-bit, a gamma chunk, a transparent grey level.
    const gama = Buffer.alloc(4);
    gama.writeUInt32BE(45455, 0);
    const left: [string, Buffer][] = [
      ['RGB 16-bit', png(w, h, 16, 2, randomRows(w, h, 48, 6))],
      ['RGB with gAMA', png(w, h, 8, 2, randomRows(w, h, 24, 7), [chunk('gAMA', gama)])],
      ['grey with tRNS', png(w, h, 8, 0, randomRows(w, h, 8, 8), [chunk('tRNS', Buffer.from([0, 7]))])],
    ];
    for (const [what, bytes] of left) {
      assert.strictEqual(pngToGrey(bytes), null, `${what}: should be left to sharp`);
      await sameAsPipeline(bytes, what);
    }
    // Damaged: null, and the engine reports what sharp reports.
    const good = png(w, h, 8, 2, randomRows(w, h, 24, 9));
    assert.strictEqual(pngToGrey(good.subarray(0, good.length - 30)), null);
  });

  it('luma and flatten: the same as libvips on sampled colours and on every (value, alpha) pair', async () => {
    const n = 256 * 256;
    const rgb = Buffer.alloc(n * 3);
    for (let i = 0; i < rgb.length; i++) rgb[i] = (i * 2654435761) >>> 24;
    const grey = await loadGreyPipeline(await sharp(rgb, { raw: { width: 256, height: 256, channels: 3 } }).png().toBuffer());
    for (let i = 0; i < n; i++) {
      assert.strictEqual(lumaOf(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]), grey.data[i], `rgb ${rgb.subarray(3 * i, 3 * i + 3).join(',')}`);
    }
    const rgba = Buffer.alloc(n * 4);
    for (let i = 0; i < n; i++) rgba.fill(i >> 8, 4 * i, 4 * i + 3).writeUInt8(i & 0xff, 4 * i + 3);
    const flat = await loadGreyPipeline(await sharp(rgba, { raw: { width: 256, height: 256, channels: 4 } }).png().toBuffer());
    for (let i = 0; i < n; i++) {
      const f = flattenOnWhite(i >> 8, i & 0xff);
      assert.strictEqual(lumaOf(f, f, f), flat.data[i], `value ${i >> 8} alpha ${i & 0xff}`);
    }
  });

  it('the integer luma the plane loops use equals lumaOf for all 2^24 colours', () => {
    let differ = 0;
    for (let r = 0; r < 256; r++) {
      for (let g = 0; g < 256; g++) {
        for (let b = 0; b < 256; b++) if (lumaOfSum(r, g, b) !== lumaOf(r, g, b)) differ++;
      }
    }
    assert.strictEqual(differ, 0);
  });

  it('lumaPlane and rgbaToGrey: word loops and byte loops, any offset and length, give lumaOf', () => {
    const bytes = Buffer.alloc(4 * 1031 + 8);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 2654435761) >>> 24;
    for (const offset of [0, 1, 2, 3, 4]) {
      for (const n of [0, 1, 3, 4, 5, 1031]) {
        const rgb = new Uint8Array(bytes.buffer, bytes.byteOffset + offset, n * 3);
        const grey = lumaPlane(rgb, n);
        for (let i = 0; i < n; i++) assert.strictEqual(grey[i], lumaOf(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]), `rgb offset ${offset} n ${n} pixel ${i}`);
        const rgba = new Uint8Array(bytes.buffer, bytes.byteOffset + offset, n * 4);
        const fromRgba = rgbaToGrey(rgba, n);
        for (let i = 0; i < n; i++) {
          const a = rgba[4 * i + 3];
          const want = lumaOf(flattenOnWhite(rgba[4 * i], a), flattenOnWhite(rgba[4 * i + 1], a), flattenOnWhite(rgba[4 * i + 2], a));
          assert.strictEqual(fromRgba[i], want, `rgba offset ${offset} n ${n} pixel ${i}`);
        }
      }
    }
  });
});
