// The engine through its public functions: every input kind, the SPEC 2.1 result shape, format
// restriction, errors that never throw, decodeSync/decodeAll, probeImage, ECI text, threads.
import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import sharp from 'sharp';
import {
  close, decode, decodeAll, decodeSync, probeImage, warmUp, type DecodeResult,
} from '../../lib/engine';
import { textFromEciList, textFromEciProtocol } from '../../lib/engine/charset';
import { skipWithoutShared } from '../support/shared-data';
import { corpusDir, repoRoot } from './corpus';

const examples = path.join(repoRoot, 'examples');
const qrPath = path.join(examples, 'qrcode.png');
const QR_TEXT = 'https://example.com/dotcode-reader';
const SPEC_KEYS = ['ok', 'text', 'format', 'via', 'elapsed_ms', 'error', 'gs1'];

function assertRead(r: DecodeResult, format: string, text: string): void {
  assert.deepStrictEqual(Object.keys(r), SPEC_KEYS);
  assert.strictEqual(r.error, null, `expected a read, got ${r.error}`);
  assert.strictEqual(r.ok, true);
  assert.strictEqual(r.format, format);
  assert.strictEqual(r.text, text);
  assert.strictEqual(r.via, 'zxing');
  assert.ok(typeof r.elapsed_ms === 'number' && r.elapsed_ms >= 0);
}

function assertFailed(r: DecodeResult, error: string): void {
  assert.deepStrictEqual(Object.keys(r), SPEC_KEYS);
  assert.deepStrictEqual({ ok: r.ok, text: r.text, format: r.format, error: r.error, gs1: r.gs1 },
    { ok: false, text: null, format: null, error, gs1: null });
}

describe('engine', function () {
  this.timeout(30_000);
  before(() => warmUp());
  after(() => close());

  describe('inputs', () => {
    it('a file path', async () => assertRead(await decode(qrPath), 'QRCode', QR_TEXT));

    it('PNG bytes as Buffer and as a plain Uint8Array', async () => {
      const buf = fs.readFileSync(qrPath);
      assertRead(await decode(buf), 'QRCode', QR_TEXT);
      assertRead(await decode(new Uint8Array(buf)), 'QRCode', QR_TEXT);
    });

    it('JPEG and WebP bytes, recognised by content whatever the name', async () => {
      const jpeg = await sharp(qrPath).flatten({ background: '#fff' }).jpeg({ quality: 90 }).toBuffer();
      const webp = await sharp(qrPath).webp({ lossless: true }).toBuffer();
      assertRead(await decode(jpeg), 'QRCode', QR_TEXT);
      assertRead(await decode(webp), 'QRCode', QR_TEXT);
    });

    it('raw frames with 1, 3 and 4 channels', async () => {
      const rgba = await sharp(qrPath).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
      const { width, height } = rgba.info;
      const rgb = await sharp(qrPath).removeAlpha().raw().toBuffer();
      const grey = await sharp(qrPath).greyscale().extractChannel(0).raw().toBuffer();
      assertRead(await decode({ data: grey, width, height, channels: 1 }), 'QRCode', QR_TEXT);
      assertRead(await decode({ data: rgb, width, height, channels: 3 }), 'QRCode', QR_TEXT);
      assertRead(await decode({ data: new Uint8ClampedArray(rgba.data), width, height, channels: 4 }), 'QRCode', QR_TEXT);
    });

    it('an OpenCV Mat by duck type (BGR, channels as a method or a number)', async () => {
      const rgb = await sharp(qrPath).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      const bgr = Buffer.from(rgb.data);
      for (let i = 0; i < bgr.length; i += 3) [bgr[i], bgr[i + 2]] = [bgr[i + 2], bgr[i]];
      const mat = { rows: rgb.info.height, cols: rgb.info.width, channels: () => 3, getData: () => bgr };
      assertRead(await decode(mat), 'QRCode', QR_TEXT);
      assertRead(await decode({ ...mat, channels: 3 }), 'QRCode', QR_TEXT);
    });

    it('BGR order is honoured for Mats (the grey values the readers see)', async () => {
      // zxing reads inverted codes too, so a swapped channel order could go unnoticed in a
      // decode; check the luma of a pure red and a pure blue pixel instead.
      const { rawToGrey } = await import('../../lib/engine/image');
      const px = Uint8Array.from([255, 0, 0, 0, 0, 255]); // pixel 0 = (255,0,0), pixel 1 = (0,0,255)
      const asRgb = rawToGrey(px, 2, 1, 3, false).data;
      const asBgr = rawToGrey(px, 2, 1, 3, true).data;
      assert.deepStrictEqual([...asRgb], [77, 29]);
      assert.deepStrictEqual([...asBgr], [29, 77]);
    });
  });

  describe('formats', () => {
    const cases: [string, string, string][] = [
      ['qrcode.png', 'QRCode', QR_TEXT],
      ['datamatrix.png', 'DataMatrix', 'DataMatrix sample 12345'],
      ['pdf417.png', 'PDF417', 'PDF417 sample text'],
      ['aztec.png', 'Aztec', 'Aztec sample'],
      ['maxicode.png', 'MaxiCode', 'MaxiCode sample 42'],
    ];
    for (const [file, format, text] of cases) {
      it(`${format}: read without a selector and with its own`, async () => {
        assertRead(await decode(path.join(examples, file)), format, text);
        assertRead(await decode(path.join(examples, file), { format: format as never }), format, text);
      });
    }

    it('a selector for another symbology reads nothing', async () => {
      assertFailed(await decode(qrPath, { format: 'DataMatrix' }), 'no_dotcode_found');
      assertFailed(await decode(qrPath, { format: 'DotCode' }), 'no_dotcode_found');
    });

    it('an unknown selector is an error answer, not an exception', async () => {
      assertFailed(await decode(qrPath, { format: 'EAN13' as never }), 'decode_error:unknown_format_option');
      assertFailed(await decode(qrPath, { gs1: 'maybe' as never }), 'decode_error:unknown_gs1_option');
    });
  });

  describe('bad input never throws', () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dc-engine-'));
    after(() => fs.rmSync(tmp, { recursive: true, force: true }));

    it('empty, missing, directory, not an image, damaged', async () => {
      assertFailed(await decode(''), 'decode_error:empty_input');
      assertFailed(await decode(Buffer.alloc(0)), 'decode_error:empty_input');
      assertFailed(await decode(path.join(tmp, 'nope.png')), 'decode_error:file_not_found');
      assertFailed(await decode(tmp), 'decode_error:not_a_file');
      assertFailed(await decode(Buffer.from('hello, not an image at all')), 'decode_error:unsupported_format');
      const png = fs.readFileSync(qrPath);
      assertFailed(await decode(png.subarray(0, 100)), 'decode_error:unreadable_image');
      assertFailed(await decode(null as never), 'decode_error:unsupported_input');
      assertFailed(await decode(42 as never), 'decode_error:unsupported_input');
      assertFailed(await decode({ data: Buffer.alloc(10), width: 10, height: 10, channels: 1 }), 'decode_error:invalid_frame');
      assertFailed(await decode({ data: Buffer.alloc(100), width: 10, height: 10, channels: 2 as never }), 'decode_error:invalid_frame');
      assertFailed(decodeSync(path.join(tmp, 'nope.png')), 'decode_error:file_not_found');
    });

    it('over 40 megapixels: image_too_large, refused from the header', async () => {
      // A real 8000x6000 PNG would take seconds to make; the header alone must be enough.
      const png = fs.readFileSync(qrPath);
      const fake = Buffer.from(png);
      fake.writeUInt32BE(8000, 16);
      fake.writeUInt32BE(6000, 20);
      assert.deepStrictEqual(probeImage(fake), { type: 'png', width: 8000, height: 6000 });
      assertFailed(await decode(fake), 'decode_error:image_too_large');
      assertFailed(await decode({ data: Buffer.alloc(1), width: 7000, height: 7000, channels: 1 }), 'decode_error:image_too_large');
    });
  });

  describe('decodeSync and decodeAll', () => {
    it('decodeSync gives what decode gives', async () => {
      const a = await decode(path.join(examples, 'pdf417.png'));
      const b = decodeSync(path.join(examples, 'pdf417.png'));
      assert.deepStrictEqual({ ...b, elapsed_ms: 0 }, { ...a, elapsed_ms: 0 });
      assertRead(decodeSync(fs.readFileSync(qrPath)), 'QRCode', QR_TEXT);
    });

    it('decodeAll returns every symbol with bytes, identifier and corners', async () => {
      const left = await sharp(qrPath).flatten({ background: '#fff' }).toBuffer({ resolveWithObject: true });
      const dm = await sharp(path.join(examples, 'datamatrix.png')).flatten({ background: '#fff' }).png().toBuffer();
      const both = await sharp({ create: { width: left.info.width * 2 + 100, height: left.info.height + 100, channels: 3, background: '#ffffff' } })
        .composite([{ input: qrPath, left: 20, top: 20 }, { input: dm, left: left.info.width + 80, top: 40 }])
        .png().toBuffer();
      const all = await decodeAll(both);
      assert.strictEqual(all.ok, true);
      assert.strictEqual(all.error, null);
      const byFormat = Object.fromEntries(all.symbols.map((s) => [s.format, s]));
      assert.deepStrictEqual(Object.keys(byFormat).sort(), ['DataMatrix', 'QRCode']);
      assert.strictEqual(byFormat.QRCode.text, QR_TEXT);
      assert.ok(Buffer.isBuffer(byFormat.QRCode.bytes));
      assert.strictEqual(byFormat.QRCode.bytes.toString('latin1'), QR_TEXT);
      assert.match(byFormat.QRCode.symbology_id, /^\]Q\d$/);
      assert.strictEqual(byFormat.QRCode.corners.length, 4);
      assert.ok(byFormat.DataMatrix.corners[0].x > left.info.width, 'corners are in image pixels');
      const one = await decode(both);
      assert.strictEqual(one.ok, true);
    });

    it('decodeAll on nothing', async () => {
      const blank = await sharp({ create: { width: 200, height: 200, channels: 3, background: '#ffffff' } }).png().toBuffer();
      const all = await decodeAll(blank);
      assert.deepStrictEqual({ ...all, elapsed_ms: 0 }, { ok: false, symbols: [], elapsed_ms: 0, error: 'no_dotcode_found' });
    });
  });

  describe('text follows the ECI', () => {
    it('zxing symbols: per-segment character sets, every byte kept', async function () {
      skipWithoutShared(this, 'corpus/zxing-samples/datamatrix-1/eci.png');
      const sample = path.join(corpusDir, 'datamatrix-1', 'eci.png');
      const r = await decodeAll(sample);
      assert.strictEqual(r.symbols[0].text, '¶Ж'); // ECI 3 then ECI 7 (ISO-8859-5), byte 0xB6 each
      assert.deepStrictEqual(r.symbols[0].ecis, [3, 7]);
    });

    it('the ECI protocol form: UTF-8 under ECI 26, escaped backslashes, Latin-1 high bytes', () => {
      const enc = (s: string) => Buffer.from(s, 'latin1');
      const utf8 = Buffer.concat([enc(']d4\\000026'), Buffer.from('Grüße\\\\', 'utf8').subarray(0, 0), Buffer.from('Grüße', 'utf8'), enc('\\\\x')]);
      assert.deepStrictEqual(textFromEciProtocol(utf8), { text: 'Grüße\\x', ecis: [26] });
      const latin = enc(']d4\\000003\x80\x9f\xe9');
      assert.strictEqual(textFromEciProtocol(latin).text, '\u0080\u009f\u00e9'); // not windows-1252
    });

    it('the DotCode ECI list', () => {
      const bytes = Buffer.from('Grüße', 'utf8');
      assert.strictEqual(textFromEciList(bytes, [26]), 'Grüße');
      assert.strictEqual(textFromEciList(bytes, []), bytes.toString('latin1'));
      assert.strictEqual(textFromEciList(Buffer.from([0xb6]), [7]), 'Ж');
      assert.strictEqual(textFromEciList(Buffer.from([0x1d, 0x80]), [899]), '\u001d\u0080');
    });
  });

  describe('probeImage', () => {
    it('PNG, JPEG, WebP and unknown', async () => {
      assert.deepStrictEqual(probeImage(fs.readFileSync(qrPath)).type, 'png');
      const meta = await sharp(qrPath).metadata();
      assert.deepStrictEqual(probeImage(fs.readFileSync(qrPath)), { type: 'png', width: meta.width, height: meta.height });
      const jpeg = await sharp({ create: { width: 321, height: 123, channels: 3, background: '#fff' } }).jpeg().toBuffer();
      assert.deepStrictEqual(probeImage(jpeg), { type: 'jpeg', width: 321, height: 123 });
      for (const opts of [{ lossless: true }, { lossless: false }]) {
        const webp = await sharp({ create: { width: 301, height: 77, channels: 3, background: '#fff' } }).webp(opts).toBuffer();
        assert.deepStrictEqual(probeImage(webp), { type: 'webp', width: 301, height: 77 });
      }
      assert.deepStrictEqual(probeImage(Buffer.from('GIF89a........')), { type: null, width: null, height: null });
      assert.deepStrictEqual(probeImage(new Uint8Array(0)), { type: null, width: null, height: null });
    });
  });

  describe('threads', () => {
    it('decode runs off the event loop', async () => {
      const big = await sharp({ create: { width: 3000, height: 3000, channels: 3, background: '#ffffff' } })
        .composite([{ input: qrPath, left: 1400, top: 1400 }]).png().toBuffer();
      let ticks = 0;
      const timer = setInterval(() => ticks++, 1);
      const t0 = Date.now();
      const r = await decode(big);
      const took = Date.now() - t0;
      clearInterval(timer);
      assert.strictEqual(r.ok, true);
      // A blocked loop would tick once at the end; a free one ticks every few milliseconds.
      assert.ok(ticks >= Math.min(5, took / 10), `only ${ticks} timer ticks in ${took} ms`);
    });

    it('idle workers do not keep the process alive, and no network is needed', function () {
      this.timeout(30_000);
      // The preload makes every socket connection, DNS lookup and fetch fail loudly, in the main
      // thread and in every worker (NODE_OPTIONS reaches workers). Under `unshare -n` (when the
      // system allows it) the child has no network interface but loopback at all.
      const preload = path.join(os.tmpdir(), `dc-no-network-${process.pid}.js`);
      fs.writeFileSync(preload, `
        const net = require('net'); const dns = require('dns');
        const no = (what) => { process.stderr.write('NETWORK ATTEMPT: ' + what + '\\n'); throw new Error('network disabled: ' + what); };
        net.Socket.prototype.connect = function () { no('socket connect'); };
        dns.lookup = function (h) { no('dns ' + h); };
        globalThis.fetch = async (u) => no('fetch ' + u);
      `);
      const script = `require(${JSON.stringify(path.join(repoRoot, 'dist', 'lib', 'engine'))})` +
        `.decode(${JSON.stringify(path.join(examples, 'maxicode.png'))}).then((r) => console.log(JSON.stringify(r)));`;
      const env = { ...process.env, NODE_OPTIONS: `--require ${preload}` };
      const canUnshare = spawnSync('unshare', ['-n', 'true']).status === 0;
      const cmd = canUnshare ? 'unshare' : process.execPath;
      const args = canUnshare ? ['-n', process.execPath, '-e', script] : ['-e', script];
      const t0 = Date.now();
      const res = spawnSync(cmd, args, { env, encoding: 'utf8', timeout: 20_000 });
      fs.rmSync(preload, { force: true });
      assert.strictEqual(res.error, undefined, `child did not exit by itself: ${res.error}`);
      assert.doesNotMatch(res.stderr, /NETWORK ATTEMPT/);
      assert.strictEqual(res.status, 0, res.stderr);
      const r = JSON.parse(res.stdout.trim());
      assert.strictEqual(r.text, 'MaxiCode sample 42');
      assert.ok(Date.now() - t0 < 15_000);
    });
  });
});
