// Small WebPs are decoded in the caller's thread (lib/engine/webp-grey.ts) by the system's libwebp
// through the addon, or by libwebp in WebAssembly where that is missing: which ones they take,
// which they leave to sharp, and that both give the grey plane the whole libvips pipeline gives
// (every corpus WebP is also compared through loadGrey in png-grey.test.ts).
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import sharp from 'sharp';
import { loadGrey, loadGreyPipeline } from '../../lib/engine/image';
import { loadAddon } from '../../lib/engine/addon';
import { plainWebP, WEBP_IN_THREAD_PIXELS, webpToGrey, webpViaAddon, webpViaWasm } from '../../lib/engine/webp-grey';
import { decode } from '../../lib/engine';
import { corpusDir } from './corpus';

/** Whether the addon opened libwebp here (else only the WebAssembly decoder is checked, with a notice). */
function addonHasWebP(): boolean {
  try {
    return loadAddon().webpAvailable?.() === true;
  } catch {
    return false;
  }
}

/** Both in-thread decoders give the pipeline's grey bytes for this WebP of w x h. */
async function decodersAgree(bytes: Buffer, w: number, h: number, what: string): Promise<void> {
  const whole = await loadGreyPipeline(bytes);
  assert.deepStrictEqual([whole.width, whole.height], [w, h], what);
  const byWasm = await webpViaWasm(bytes, w, h);
  assert.ok(byWasm && Buffer.from(byWasm.data).equals(Buffer.from(whole.data)), `${what}: WebAssembly decoder's grey bytes differ`);
  if (!addonHasWebP()) return;
  const byAddon = webpViaAddon(bytes, w, h);
  assert.ok(byAddon && Buffer.from(byAddon.data).equals(Buffer.from(whole.data)), `${what}: addon's grey bytes differ`);
}

async function sameAsPipeline(bytes: Buffer, what: string): Promise<void> {
  const fast = await loadGrey({ kind: 'bytes', bytes });
  const whole = await loadGreyPipeline(bytes);
  assert.deepStrictEqual([fast.width, fast.height], [whole.width, whole.height], what);
  assert.ok(Buffer.from(fast.data).equals(Buffer.from(whole.data)), `${what}: grey bytes differ`);
}

/** A noisy RGBA test card: smooth gradients, hard edges, and alpha from 0 to 255. */
function card(width: number, height: number): Buffer {
  const px = Buffer.alloc(width * height * 4);
  let s = 7;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      s = (s * 1103515245 + 12345) >>> 0;
      const o = 4 * (y * width + x);
      px[o] = (x * 255) / width;
      px[o + 1] = ((x >> 3) + (y >> 3)) & 1 ? 230 : 20;
      px[o + 2] = s >>> 24;
      px[o + 3] = (y * 255) / (height - 1);
    }
  }
  return px;
}

describe('engine: WebP straight to grey (webp-grey.ts)', function () {
  this.timeout(120_000);
  const w = 97, h = 61;
  const raw = { raw: { width: w, height: h, channels: 4 as const } };
  before(() => {
    if (!addonHasWebP()) console.log('      (no libwebp.so.7 for the addon here: only the WebAssembly decoder is checked)');
  });

  it('takes lossy, lossless and alpha WebPs, with the grey bytes of the libvips pipeline', async () => {
    const made: [string, Buffer][] = [
      ['lossy', await sharp(card(w, h), raw).removeAlpha().webp({ quality: 80 }).toBuffer()],
      ['lossless', await sharp(card(w, h), raw).removeAlpha().webp({ lossless: true }).toBuffer()],
      ['lossy with alpha', await sharp(card(w, h), raw).webp({ quality: 60 }).toBuffer()],
      ['lossless with alpha', await sharp(card(w, h), raw).webp({ lossless: true }).toBuffer()],
    ];
    for (const [what, bytes] of made) {
      assert.ok(plainWebP(bytes), `${what}: header not taken`);
      const g = await webpToGrey(bytes, w, h);
      assert.ok(g, `${what}: not decoded in this thread`);
      assert.deepStrictEqual([g.width, g.height], [w, h]);
      await sameAsPipeline(bytes, what);
      await decodersAgree(bytes, w, h, what);
    }
  });

  it('leaves to sharp: a colour profile, EXIF orientation, large images, damaged files', async () => {
    const opaque = sharp(card(w, h), raw).removeAlpha();
    const icc = await opaque.clone().withIccProfile('p3').webp().toBuffer();
    const exif = await opaque.clone().withMetadata({ orientation: 6 }).webp().toBuffer();
    for (const [what, bytes] of [['ICC profile', icc], ['EXIF orientation 6', exif]] as const) {
      assert.strictEqual(plainWebP(bytes), false, `${what}: should be left to sharp`);
      assert.strictEqual(await webpToGrey(bytes, w, h), null);
      await sameAsPipeline(bytes, what);
    }
    const big = await sharp({ create: { width: 600, height: 600, channels: 3, background: '#777' } }).webp().toBuffer();
    assert.ok(600 * 600 > WEBP_IN_THREAD_PIXELS);
    assert.strictEqual(await webpToGrey(big, 600, 600), null);
    await sameAsPipeline(big, 'large');

    const good = await opaque.clone().webp().toBuffer();
    const cut = good.subarray(0, good.length >> 1);
    for (const bad of [cut]) {
      assert.strictEqual(await webpToGrey(bad, w, h), null);
      assert.strictEqual(await webpViaWasm(bad, w, h), null);
      assert.strictEqual(webpViaAddon(bad, w, h), null);
    }
    const scrambled = Buffer.from(good);
    for (let i = 40; i < scrambled.length; i += 5) scrambled[i] ^= 0xa5;
    assert.strictEqual(await webpToGrey(scrambled, w, h), null);
    assert.strictEqual(await webpViaWasm(scrambled, w, h), null);
    assert.strictEqual(webpViaAddon(scrambled, w, h), null);
    // a header that names another size than the file holds: refused, not written past the plane
    assert.strictEqual(webpViaAddon(good, w + 1, h), null);
    assert.strictEqual(await webpViaWasm(good, w, h - 1), null);
    // the engine still answers as before for a damaged file (sharp's error), never throws
    const r = await decode(cut);
    assert.strictEqual(r.ok, false);
    assert.match(r.error!, /^decode_error:/);
    // and the decoder still works after bad input
    assert.ok(await webpToGrey(good, w, h));
    if (addonHasWebP()) assert.ok(webpViaAddon(good, w, h));
    assert.ok(await webpViaWasm(good, w, h));
  });

  it('both decoders give the grey bytes of the pipeline on every WebP of the sample corpus', async function () {
    const files = fs.existsSync(corpusDir)
      ? fs.readdirSync(corpusDir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.webp'))
      : [];
    if (!files.length) this.skip();
    let taken = 0;
    for (const f of files) {
      const bytes = fs.readFileSync(path.join(corpusDir, f));
      const meta = await sharp(bytes).metadata();
      if (!plainWebP(bytes) || meta.width! * meta.height! > WEBP_IN_THREAD_PIXELS) continue;
      await decodersAgree(bytes, meta.width!, meta.height!, f);
      taken++;
    }
    assert.ok(taken >= 100, `only ${taken} corpus WebPs taken`);
  });

  it('reads a corpus QR Code WebP through the in-thread decoder', async function () {
    const file = path.join(corpusDir, 'qrcode-4', '02.webp');
    if (!fs.existsSync(file)) this.skip();
    const bytes = fs.readFileSync(file);
    assert.ok(await webpToGrey(bytes, 240, 240));
    const r = await decode(bytes, { format: 'QRCode' });
    assert.strictEqual(r.ok, true);
    assert.strictEqual(r.text, fs.readFileSync(file.replace(/\.webp$/, '.txt'), 'utf8'));
  });
});
