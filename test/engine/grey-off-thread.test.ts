// Large encoded images are turned grey in a pool worker for decode()/decodeAll() (index.ts,
// greyStep; image.ts, decodesBetterOffThread), small ones and raw frames in the caller's thread,
// JPEGs sharp would only decode by the addon on a libuv thread (jpeg-grey.ts), and decodeSync()
// always in its helper: the answers must not depend on where the plane was made, and neither must
// the errors. The JPEGs meant for the worker carry an sRGB ICC profile, which keeps them with sharp.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import sharp from 'sharp';
import { close, decode, decodeAll, decodeSync } from '../../lib/engine';
import { loadAddon } from '../../lib/engine/addon';
import { decodesBetterOffThread, SMALL_IMAGE_PIXELS } from '../../lib/engine/image';
import { renderFrame720 } from '../fixtures/dotcode-render/categories';
import { repoRoot } from './corpus';

describe('engine: grey planes made off the caller\'s thread', function () {
  this.timeout(120_000);
  after(close);

  it('chooses the worker for encoded images over SMALL_IMAGE_PIXELS only, and not for JPEGs the addon decodes', async () => {
    const small = await sharp({ create: { width: 512, height: 512, channels: 3, background: '#fff' } }).jpeg().withIccProfile('srgb').toBuffer();
    const large = await sharp({ create: { width: 513, height: 512, channels: 3, background: '#fff' } }).jpeg().withIccProfile('srgb').toBuffer();
    const largePng = await sharp({ create: { width: 513, height: 512, channels: 3, background: '#fff' } }).png().toBuffer();
    const plainLarge = await sharp({ create: { width: 513, height: 512, channels: 3, background: '#fff' } }).jpeg().toBuffer();
    assert.strictEqual(512 * 512, SMALL_IMAGE_PIXELS);
    assert.strictEqual(decodesBetterOffThread(small), false);
    assert.strictEqual(decodesBetterOffThread(large), true);
    assert.strictEqual(decodesBetterOffThread(largePng), true);
    assert.strictEqual(decodesBetterOffThread(plainLarge), !loadAddon().jpegAvailable?.());
    assert.strictEqual(decodesBetterOffThread(Buffer.from('not an image at all')), false);
  });

  it('a 1280x720 JPEG frame with a DotCode: decode, decodeAll, a path and decodeSync agree', async () => {
    const f = await renderFrame720(true, 1);
    const jpeg = await sharp(f.encoded!).jpeg({ quality: 90 }).withIccProfile('srgb').toBuffer();
    assert.ok(decodesBetterOffThread(jpeg));
    const a = await decode(jpeg, { format: 'DotCode' });
    const s = decodeSync(jpeg, { format: 'DotCode' });
    assert.strictEqual(a.ok, true, a.error ?? '');
    assert.deepStrictEqual({ ...a, elapsed_ms: 0 }, { ...s, elapsed_ms: 0 });
    const all = await decodeAll(jpeg);
    assert.ok(all.symbols.some((x) => x.format === 'DotCode' && x.text === a.text));
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'dc-grey-')), 'frame.jpg');
    fs.writeFileSync(file, jpeg);
    const p = await decode(file, { format: 'DotCode' });
    assert.deepStrictEqual({ ...p, elapsed_ms: 0 }, { ...a, elapsed_ms: 0 });
  });

  it('over 1 MP (the whole libvips pipeline in the worker, sharp\'s own buffer sent back): the same answer', async () => {
    const code = path.join(repoRoot, 'examples', 'dotcode.png');
    const frame = await sharp({ create: { width: 1920, height: 1080, channels: 3, background: '#f4f4f4' } })
      .composite([{ input: code, left: 360, top: 150 }]).jpeg({ quality: 88 }).withIccProfile('srgb').toBuffer();
    assert.ok(decodesBetterOffThread(frame));
    const a = await decode(frame, { format: 'DotCode' });
    assert.strictEqual(a.ok, true, a.error ?? '');
    assert.deepStrictEqual({ ...a, elapsed_ms: 0 }, { ...decodeSync(frame, { format: 'DotCode' }), elapsed_ms: 0 });
  });

  it('errors are the same wherever the plane is made: damaged large JPEG, missing file', async () => {
    const big = await sharp(path.join(repoRoot, 'examples', 'dotcode.png')).resize(1280, 720, { fit: 'fill' }).jpeg().withIccProfile('srgb').toBuffer();
    const cutAfterScan = (jpeg: Buffer) => jpeg.subarray(0, jpeg.indexOf(Buffer.from([0xff, 0xda])) + 200);
    const cut = cutAfterScan(big);
    assert.ok(decodesBetterOffThread(cut), 'the header still names a large image');
    const off = await decode(cut);
    const here = decodeSync(cut);
    assert.strictEqual(off.ok, false);
    assert.strictEqual(off.error, here.error);
    // the same cut without the profile goes to the addon, which refuses it: sharp's error again
    const plainCut = cutAfterScan(await sharp(path.join(repoRoot, 'examples', 'dotcode.png')).resize(1280, 720, { fit: 'fill' }).jpeg().toBuffer());
    assert.ok(!decodesBetterOffThread(plainCut) || !loadAddon().jpegAvailable?.());
    assert.strictEqual((await decode(plainCut)).error, decodeSync(plainCut).error);
    const gone = await decode(path.join(os.tmpdir(), 'no-such-dir-dc', 'x.jpg'));
    assert.strictEqual(gone.error, 'decode_error:file_not_found');
  });
});
