// JPEGs decoded by libjpeg-turbo in the addon (lib/engine/jpeg-grey.ts, native/addon/jpeg_grey.cpp)
// must give the very grey plane sharp's pipeline gives, or not be taken at all: the detector then
// sees the same bytes whichever road the image took.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import sharp from 'sharp';
import { loadAddon } from '../../lib/engine/addon';
import { loadGrey, loadGreyPipeline } from '../../lib/engine/image';
import { plainJpeg } from '../../lib/engine/jpeg-grey';
import { corpusDir, repoRoot } from './corpus';

const addon = loadAddon();
const available = !!addon.jpegAvailable?.();

/** A colourful scene with a DotCode: noise for every hue and level, and sharp edges. */
async function scene(width: number, height: number): Promise<Buffer> {
  const noise = await sharp({ create: { width, height, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 128, sigma: 60 } } }).png().toBuffer();
  const code = await sharp(path.join(repoRoot, 'examples', 'dotcode.png')).resize({ width: Math.min(300, width - 10), height: height - 10, fit: 'inside' }).toBuffer();
  return sharp(noise).composite([{ input: code, left: 5, top: 5 }]).png().toBuffer();
}

/**
 * A JPEG with EXIF orientation `o` and nothing else sharp would act on (withMetadata would also
 * embed an ICC profile): the orientation entry of an EXIF block written by withExif, patched.
 */
async function oriented(src: Buffer, o: number): Promise<Buffer> {
  const jpeg = Buffer.from(await sharp(src).jpeg().withExif({ IFD0: { Orientation: '1' } }).toBuffer());
  const little = jpeg.indexOf(Buffer.from([0x12, 0x01, 0x03, 0x00]));
  const big = jpeg.indexOf(Buffer.from([0x01, 0x12, 0x00, 0x03]));
  if (little >= 0) jpeg.writeUInt16LE(o, little + 8); else jpeg.writeUInt16BE(o, big + 8);
  assert.strictEqual((await sharp(jpeg).metadata()).orientation, o);
  return jpeg;
}

/** [name, JPEG, written here (so sharp would only decode it)] */
async function variants(): Promise<[string, Buffer, boolean][]> {
  const out: [string, Buffer, boolean][] = [];
  for (const [w, h] of [[640, 480], [777, 513], [33, 17]]) {
    const src = await scene(w, h);
    out.push([`${w}x${h} baseline 4:2:0`, await sharp(src).jpeg({ quality: 88 }).toBuffer(), true]);
    out.push([`${w}x${h} 4:4:4`, await sharp(src).jpeg({ quality: 50, chromaSubsampling: '4:4:4' }).toBuffer(), true]);
    out.push([`${w}x${h} progressive`, await sharp(src).jpeg({ quality: 75, progressive: true }).toBuffer(), true]);
    out.push([`${w}x${h} mozjpeg`, await sharp(src).jpeg({ quality: 90, mozjpeg: true }).toBuffer(), true]);
    out.push([`${w}x${h} grey`, await sharp(src).greyscale().jpeg({ quality: 70 }).toBuffer(), true]);
    out.push([`${w}x${h} EXIF orientation 1`, await sharp(src).jpeg().withExif({ IFD0: { Orientation: '1', Copyright: 'test' } }).toBuffer(), true]);
  }
  if (fs.existsSync(corpusDir)) {
    for (const f of fs.readdirSync(corpusDir, { recursive: true }) as string[]) {
      if (f.endsWith('.jpg')) out.push([f, fs.readFileSync(path.join(corpusDir, f)), false]);
    }
  }
  return out;
}

describe('engine: JPEGs decoded by libjpeg-turbo in the addon', function () {
  this.timeout(120_000);

  it('the addon\'s plane is libvips\' grey pipeline byte for byte (baseline, 4:4:4, progressive, grey, odd sizes)', async function () {
    if (!available) this.skip(); // no libjpeg-turbo here: every JPEG goes through sharp
    let taken = 0;
    for (const [name, jpeg, ours] of await variants()) {
      // the zxing samples' JPEGs are camera files: those with a profile or a turn stay with sharp
      if (ours) assert.ok(plainJpeg(jpeg), `${name} is taken`);
      else if (!plainJpeg(jpeg)) continue;
      taken++;
      const want = await loadGreyPipeline(jpeg);
      const grey = new Uint8Array(want.width * want.height);
      assert.strictEqual(await addon.jpegToGrey!(jpeg, grey), null, name);
      assert.ok(Buffer.from(grey).equals(Buffer.from(want.data)), `${name}: planes differ`);
      // and the engine's own entry takes that road, to the same bytes
      const got = await loadGrey({ kind: 'bytes', bytes: jpeg });
      assert.ok(Buffer.from(got.data).equals(Buffer.from(want.data)), `${name}: engine plane differs`);
    }
    assert.ok(taken >= 18, `${taken} JPEGs compared`);
  });

  it('the C++ luma\'s float thousandth, truncated, is floor(sum / 1000) for every weighted sum up to 255000', () => {
    const thousandth = Math.fround(0.001);
    let differ = 0;
    for (let sum = 0; sum <= 255_000; sum++) {
      if (Math.trunc(Math.fround(Math.fround(sum) * thousandth)) !== Math.floor(sum / 1000)) differ++;
    }
    assert.strictEqual(differ, 0);
  });

  it('leaves to sharp what it would turn or convert: EXIF orientation, ICC profile, CMYK, cut headers', async () => {
    const src = await scene(64, 48);
    assert.strictEqual(plainJpeg(await sharp(src).jpeg().toBuffer()), true);
    assert.strictEqual(plainJpeg(await oriented(src, 1)), true);
    assert.strictEqual(plainJpeg(await oriented(src, 6)), false);
    assert.strictEqual(plainJpeg(await oriented(src, 2)), false);
    assert.strictEqual(plainJpeg(await sharp(src).jpeg().withIccProfile('srgb').toBuffer()), false);
    assert.strictEqual(plainJpeg(await sharp(src).toColourspace('cmyk').jpeg().toBuffer()), false);
    const plain = await sharp(src).jpeg().toBuffer();
    assert.strictEqual(plainJpeg(plain.subarray(0, 40)), false, 'no scan reached');
    assert.strictEqual(plainJpeg(await sharp(src).png().toBuffer()), false);
  });

  it('an image sharp turns still gets sharp\'s plane (EXIF orientation 6)', async () => {
    const turned = await oriented(await scene(64, 48), 6);
    const got = await loadGrey({ kind: 'bytes', bytes: turned });
    const want = await loadGreyPipeline(turned);
    assert.deepStrictEqual([got.width, got.height], [48, 64]);
    assert.ok(Buffer.from(got.data).equals(Buffer.from(want.data)));
  });

  it('damaged data: the addon refuses, and the engine answers with sharp\'s plane', async function () {
    if (!available) this.skip();
    const jpeg = Buffer.from(await sharp(await scene(320, 240)).jpeg({ quality: 90 }).toBuffer());
    const damaged = Buffer.from(jpeg);
    for (let i = Math.floor(jpeg.length / 2); i < Math.floor(jpeg.length / 2) + 64; i++) damaged[i] = 0xff; // markers in the entropy data
    const cut = jpeg.subarray(0, Math.floor(jpeg.length * 0.7));
    for (const [name, bytes] of [['damaged', damaged], ['cut', cut]] as const) {
      const refused = await addon.jpegToGrey!(bytes, new Uint8Array(320 * 240));
      assert.strictEqual(typeof refused, 'string', name);
      const got = await loadGrey({ kind: 'bytes', bytes });
      const { data, info } = await sharp(bytes, { failOn: 'none' }).rotate().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
      const want = await loadGreyPipeline(await sharp(data, { raw: { width: info.width, height: info.height, channels: 3 } }).png().toBuffer());
      assert.ok(Buffer.from(got.data).equals(Buffer.from(want.data)), `${name}: not sharp's plane`);
    }
  });

  it('refuses a plane buffer of the wrong size instead of writing past it', async function () {
    if (!available) this.skip();
    const jpeg = await sharp(await scene(64, 48)).jpeg().toBuffer();
    assert.strictEqual(await addon.jpegToGrey!(jpeg, new Uint8Array(64 * 47)), 'size');
  });
});
