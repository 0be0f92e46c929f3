// How decode()/decodeAll() split the work (lib/engine/index.ts): grey plane and DotCode in the
// caller's thread, asynchronously; the zxing step alone in the worker pool. Checks that a DotCode
// read starts no worker thread, that the event loop stays free on the DotCode path too, that a
// caller's grey frame is not taken away by the transfer to a worker, and that the off-thread raw
// colour conversion gives the same bytes as the in-thread one.
import * as assert from 'assert';
import * as path from 'path';
import sharp from 'sharp';
import { close, decode, decodeAll } from '../../lib/engine';
import { rawToGrey, rawToGreyOffThread, RAW_IN_THREAD_PIXELS } from '../../lib/engine/image';
import { repoRoot } from './corpus';

const examples = path.join(repoRoot, 'examples');
const DOTCODE = path.join(examples, 'dotcode.png');
const DOTCODE_TEXT = 'Hello from DotCode Reader';
const QR = path.join(examples, 'qrcode.png');
const QR_TEXT = 'https://example.com/dotcode-reader';

/**
 * Counts engine worker threads started while `fn` runs. pool.ts (compiled to CommonJS) reads
 * `Worker` off the worker_threads module object at call time, so a counting subclass put on that
 * object sees every start.
 */
async function workersStartedDuring(fn: () => Promise<void>): Promise<number> {
  // The module object itself, not a TypeScript namespace copy (whose members are read-only).
  const mod = require('worker_threads') as { Worker: typeof import('worker_threads').Worker };
  const Original = mod.Worker;
  let started = 0;
  class Counting extends Original {
    constructor(...args: ConstructorParameters<typeof Original>) {
      super(...args);
      started += 1;
    }
  }
  mod.Worker = Counting;
  try {
    await fn();
  } finally {
    mod.Worker = Original;
  }
  return started;
}

describe('engine: grey plane and DotCode in the caller, zxing in the pool', function () {
  this.timeout(30_000);
  beforeEach(() => close()); // every test starts with no engine thread
  after(() => close());

  it('a DotCode read starts no worker thread (no format, and format DotCode)', async () => {
    const started = await workersStartedDuring(async () => {
      const r = await decode(DOTCODE);
      assert.strictEqual(r.error, null);
      assert.strictEqual(r.format, 'DotCode');
      assert.strictEqual(r.text, DOTCODE_TEXT);
      assert.notStrictEqual(r.via, 'zxing');
      const only = await decode(QR, { format: 'DotCode' });
      assert.strictEqual(only.error, 'no_dotcode_found');
    });
    assert.strictEqual(started, 0);
  });

  it('the zxing step does start the pool (the counter can see a start)', async () => {
    const started = await workersStartedDuring(async () => {
      const r = await decode(QR);
      assert.strictEqual(r.text, QR_TEXT);
      assert.strictEqual(r.via, 'zxing');
    });
    assert.ok(started >= 1, `started ${started}`);
  });

  it('decodeAll still runs both readers: a DotCode and a QR Code in one image', async () => {
    const [dc, qr] = await Promise.all([sharp(DOTCODE).flatten({ background: '#fff' }).toBuffer({ resolveWithObject: true }), sharp(QR).metadata()]);
    const both = await sharp({ create: { width: dc.info.width + (qr.width ?? 0) + 60, height: Math.max(dc.info.height, qr.height ?? 0) + 40, channels: 3, background: '#ffffff' } })
      .composite([{ input: DOTCODE, left: 20, top: 20 }, { input: QR, left: dc.info.width + 40, top: 20 }]).png().toBuffer();
    const all = await decodeAll(both);
    assert.strictEqual(all.error, null);
    assert.deepStrictEqual(all.symbols.map((s) => [s.format, s.text]), [['DotCode', DOTCODE_TEXT], ['QRCode', QR_TEXT]]);
  });

  it('the event loop keeps running while a large image is read for DotCode', async () => {
    const big = await sharp({ create: { width: 3000, height: 3000, channels: 3, background: '#ffffff' } })
      .composite([{ input: DOTCODE, left: 1400, top: 1400 }]).png().toBuffer();
    await decode(DOTCODE); // load sharp and the addon first: module loading is not decoding
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const t0 = Date.now();
    const r = await decode(big, { format: 'DotCode' });
    const took = Date.now() - t0;
    clearInterval(timer);
    assert.strictEqual(r.text, DOTCODE_TEXT);
    // A blocked loop would tick once at the end; a free one ticks every few milliseconds.
    assert.ok(ticks >= Math.min(5, took / 10), `only ${ticks} timer ticks in ${took} ms`);
  });

  it("a caller's grey frame is read by zxing and left intact (copied, not transferred)", async () => {
    const { data, info } = await sharp(QR).flatten({ background: '#fff' }).greyscale().extractChannel(0).raw().toBuffer({ resolveWithObject: true });
    const frame = new Uint8Array(data);
    const before = Buffer.from(frame);
    const r = await decode({ data: frame, width: info.width, height: info.height, channels: 1 });
    assert.strictEqual(r.text, QR_TEXT);
    assert.strictEqual(frame.byteLength, before.length, 'the frame was detached');
    assert.ok(Buffer.from(frame).equals(before), 'the frame was changed');
  });

  it('raw colour frames: libvips gives the same grey bytes as the in-thread fold', async () => {
    const w = 317;
    const h = 211;
    for (const channels of [3, 4] as const) {
      const data = new Uint8Array(w * h * channels);
      let x = 12345;
      for (let i = 0; i < data.length; i++) { x = (Math.imul(x, 1103515245) + 12345) >>> 0; data[i] = x >>> 24; }
      for (const bgr of [false, true]) {
        const a = rawToGrey(data, w, h, channels, bgr);
        const b = await rawToGreyOffThread(data, w, h, channels, bgr);
        assert.ok(Buffer.from(a.data).equals(Buffer.from(b.data)), `channels ${channels} bgr ${bgr}`);
      }
    }
  });

  it('a raw colour frame above the in-thread size is read (through libvips)', async () => {
    const W = 1400;
    const H = Math.ceil(RAW_IN_THREAD_PIXELS / W) + 10;
    const { data } = await sharp({ create: { width: W, height: H, channels: 3, background: '#ffffff' } })
      .composite([{ input: QR, left: 500, top: 200 }]).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const bgr = Buffer.from(data);
    for (let i = 0; i < bgr.length; i += 3) [bgr[i], bgr[i + 2]] = [bgr[i + 2], bgr[i]];
    const r = await decode({ rows: H, cols: W, channels: 3, getData: () => bgr });
    assert.strictEqual(r.text, QR_TEXT);
  });
});
