import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { LicenseError, Scanner } from '../../lib';
import { generateSupplierKeyPair } from '../../server/src/signing';
import { collector, DAY, gs1DataMatrixPng, makeKey, now, qrPng, sleep, stampRepo, supplier, tmpDir } from './helpers';

// eslint-disable-next-line @typescript-eslint/no-var-requires
const sharp = require('sharp') as typeof import('sharp');
const ROOT = path.resolve(__dirname, '../../..');

function expectLicenseError(fn: () => unknown, re: RegExp, code?: string): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof LicenseError, `expected LicenseError, got ${String(e)}`);
    assert.match(e.message, re);
    if (code) assert.equal(e.code, code);
    return true;
  });
}

describe('Scanner: licence', function () {
  this.timeout(20000);
  before(stampRepo);

  it('verifies a good key and exposes scanner.license', async () => {
    const t = now();
    const key = makeKey({ lid: 'lic_good', org: 'Acme', plan: 'edge', seats: 5, exp: t + 100 * DAY, features: ['sdk', 'scanner'] });
    const log = collector();
    const s = new Scanner(key, { telemetry: false, logger: log });
    assert.deepEqual({ ...s.license }, { id: 'lic_good', org: 'Acme', plan: 'edge', seats: 5, exp: t + 100 * DAY, features: ['sdk', 'scanner'] });
    assert.equal(s.cloudOk, false);
    assert.deepEqual(log.messages, []);
    await s.close();
  });

  it('throws "invalid license key" for empty, truncated, altered and foreign keys', () => {
    const key = makeKey();
    expectLicenseError(() => new Scanner('', { telemetry: false }), /^invalid license key/, 'invalid_license');
    expectLicenseError(() => new Scanner(key.slice(0, key.length - 5), { telemetry: false }), /^invalid license key/);
    expectLicenseError(() => new Scanner(key.slice(0, 40), { telemetry: false }), /^invalid license key/);
    const i = 10;
    const altered = key.slice(0, i) + (key[i] === 'x' ? 'y' : 'x') + key.slice(i + 1);
    expectLicenseError(() => new Scanner(altered, { telemetry: false }), /^invalid license key/);
    const foreign = generateSupplierKeyPair();
    expectLicenseError(() => new Scanner(makeKey({}, foreign.privateKeyPem), { telemetry: false }), /^invalid license key.*another supplier/);
  });

  it('throws "license expired" once term plus 14 days has passed', () => {
    const t = now();
    const key = makeKey({ iat: t - 400 * DAY, exp: t - 15 * DAY });
    expectLicenseError(() => new Scanner(key, { telemetry: false }), /^license expired.*renewed key/, 'license_expired');
  });

  it('in grace: constructs, decodes, and warns once with the days left', async () => {
    const t = now();
    const key = makeKey({ iat: t - 370 * DAY, exp: t - 11 * DAY + 3600 });
    const log = collector();
    const s = new Scanner(key, { telemetry: false, logger: log });
    const r = await s.decode(await qrPng('grace'));
    assert.equal(r.ok, true);
    await s.decode(await qrPng('grace 2'));
    assert.equal(log.messages.length, 1);
    assert.match(log.messages[0], /grace period, 4 day\(s\) left/);
    await s.close();
  });

  it('a Live-Scanner-only key constructs but every decode answers feature_not_licensed', async () => {
    const s = new Scanner(makeKey({ features: ['scanner'] }), { telemetry: false });
    const png = await qrPng('not for you');
    const r = await s.decode(png);
    assert.deepEqual(JSON.parse(JSON.stringify(r)), { ok: false, text: null, format: null, via: 'none', elapsed_ms: 0, error: 'feature_not_licensed', gs1: null, fields: {} });
    assert.equal(s.decodeSync(png).error, 'feature_not_licensed');
    assert.equal((await s.decodeAll(png)).error, 'feature_not_licensed');
    const fr = s.frameReader();
    assert.deepEqual(JSON.parse(JSON.stringify(await fr.push(png))),
      { ok: false, text: null, format: null, via: 'none', elapsed_ms: 0, error: 'feature_not_licensed', gs1: null, frames_used: 0, new: false, fields: {} });
    await s.close();
  });

  it('frameReader: camera frames under the licence, each push a scan; frames_used, new and fields', async () => {
    const s = new Scanner(makeKey(), { telemetry: false });
    const fr = s.frameReader({ format: 'QRCode' });
    const png = await qrPng('frame by frame');
    const a = await fr.push(png);
    const b = await fr.push(png);
    assert.deepEqual([a.ok, a.text, a.frames_used, a.new, b.new], [true, 'frame by frame', 1, true, false]);
    assert.deepEqual(a.fields, {});
    assert.equal(a.field('01'), null);
    fr.reset();
    assert.equal((await fr.push(png)).new, true);
    await s.close();
    await assert.rejects(fr.push(png), /closed/);
  });

  it('answers license_expired:renew_required when grace ends while it runs', async () => {
    const t = Date.now() / 1000;
    // Grace ends 1.5 s from now.
    const key = makeKey({ iat: Math.floor(t) - 400 * DAY, exp: Math.floor(t + 1.5) - 14 * DAY });
    const log = collector();
    const s = new Scanner(key, { telemetry: false, logger: log });
    const png = await qrPng('soon');
    assert.equal((await s.decode(png)).ok, true);
    await sleep(Math.max(0, (Math.floor(t + 1.5) - Date.now() / 1000) * 1000) + 50);
    const r = await s.decode(png);
    assert.equal(r.ok, false);
    assert.equal(r.error, 'license_expired:renew_required');
    assert.equal(s.decodeSync(png).error, 'license_expired:renew_required');
    await s.close();
  });

  it('warns once when the term ends while it runs, and keeps scanning in grace', async () => {
    const t = Date.now() / 1000;
    const key = makeKey({ iat: Math.floor(t) - 300 * DAY, exp: Math.floor(t) + 1 });
    const log = collector();
    const s = new Scanner(key, { telemetry: false, logger: log });
    const png = await qrPng('term');
    assert.equal((await s.decode(png)).ok, true);
    assert.deepEqual(log.messages, []);
    await sleep(Math.max(0, (Math.floor(t) + 1 - Date.now() / 1000) * 1000) + 50);
    assert.equal((await s.decode(png)).ok, true);
    assert.equal(s.decodeSync(png).ok, true);
    assert.equal(log.messages.length, 1);
    assert.match(log.messages[0], /grace period, 14 day\(s\) left/);
    await s.close();
  });

  it('a logger that throws never breaks scanning', async () => {
    const t = now();
    const s = new Scanner(makeKey({ exp: t - DAY, iat: t - 300 * DAY, url: 'http://127.0.0.1:9' }), {
      logger: { warn() { throw new Error('broken logger'); } }, cloud: { requestTimeoutMs: 200 },
    });
    await sleep(300); // the failing registration logs from a timer
    assert.equal((await s.decode(await qrPng('logger'))).ok, true);
    assert.equal(s.cloudOk, false);
    await s.close();
  });

  it('an unstamped SDK package refuses every key and says how to stamp it', () => {
    // A copy of the compiled library in a package folder with no supplier.json.
    const pkg = tmpDir('dc-unstamped-');
    try {
      fs.cpSync(path.join(ROOT, 'dist/lib'), path.join(pkg, 'dist/lib'), { recursive: true });
      fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: 'dotcode-sdk', version: '0.0.0-test' }));
      fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(pkg, 'node_modules'));
      const Copy = (require(path.join(pkg, 'dist/lib/scanner.js')) as typeof import('../../lib/scanner')).Scanner;
      assert.throws(() => new Copy(makeKey(), { telemetry: false }), (e: Error & { code?: string }) => {
        assert.equal(e.name, 'LicenseError');
        assert.equal(e.code, 'sdk_not_stamped');
        assert.match(e.message, /^invalid license key: this SDK package is not stamped/);
        assert.match(e.message, /dotcode admin stamp/);
        return true;
      });
    } finally {
      fs.rmSync(pkg, { recursive: true, force: true });
    }
  });
});

describe('Scanner: decoding', function () {
  this.timeout(30000);
  let s: Scanner;
  let gs1Png: Buffer;
  before(async () => {
    s = new Scanner(makeKey(), { telemetry: false });
    gs1Png = await gs1DataMatrixPng();
  });
  after(() => s.close());

  it('decodes a file path, bytes, a raw frame and an OpenCV Mat; fields and field(ai)', async () => {
    const dir = tmpDir('dc-scan-');
    const file = path.join(dir, 'gs1.png');
    fs.writeFileSync(file, gs1Png);
    const grey = await sharp(gs1Png).greyscale().raw().toBuffer({ resolveWithObject: true });
    const rgb = await sharp(gs1Png).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
    const bgr = Buffer.from(rgb.data);
    for (let i = 0; i < bgr.length; i += 3) { const r = bgr[i]; bgr[i] = bgr[i + 2]; bgr[i + 2] = r; }
    const mat = { rows: rgb.info.height, cols: rgb.info.width, channels: 3, getData: () => bgr };
    const frame = { data: grey.data, width: grey.info.width, height: grey.info.height, channels: 1 as const };
    for (const [name, input] of [['path', file], ['bytes', gs1Png], ['frame', frame], ['mat', mat]] as const) {
      const r = await s.decode(input);
      assert.equal(r.ok, true, `${name}: ${r.error}`);
      assert.equal(r.format, 'DataMatrix');
      assert.equal(r.text, '0109506000134352172612311' + '0ABC123\x1d21SN0001', name);
      assert.equal(r.field('17'), '261231', name);
      assert.equal(r.field('(10)'), 'ABC123');
      assert.equal(r.field('99'), null);
      assert.deepEqual(r.fields, { '01': '09506000134352', '17': '261231', '10': 'ABC123', '21': 'SN0001' });
      assert.equal(r.gs1?.is_gs1, true);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reads the GS1 DotCode sample, with field(ai) on the parsed element string', async () => {
    const r = await s.decode(path.join(ROOT, 'examples/gs1-dotcode.png'));
    assert.equal(r.ok, true, r.error ?? '');
    assert.equal(r.format, 'DotCode');
    assert.match(r.via, /^dotcode:/);
    assert.equal(r.text, '01095060001343521726123110ABC123\x1d21SN0001');
    assert.deepEqual([r.field('01'), r.field('17'), r.field('10'), r.field('21')], ['09506000134352', '261231', 'ABC123', 'SN0001']);
    const plain = await s.decode(path.join(ROOT, 'examples/dotcode.png'), { format: 'DotCode' });
    assert.equal(plain.text, 'Hello from DotCode Reader');
    assert.deepEqual(plain.fields, {});
  });

  it('results serialise to exactly the Cloud API members plus fields', async () => {
    const r = s.decodeSync(gs1Png);
    assert.deepEqual(Object.keys(JSON.parse(JSON.stringify(r))), ['ok', 'text', 'format', 'via', 'elapsed_ms', 'error', 'gs1', 'fields']);
    assert.equal(typeof r.elapsed_ms, 'number');
  });

  it('parseGs1:false gives gs1 null and empty fields', async () => {
    const plain = new Scanner(makeKey(), { telemetry: false, parseGs1: false });
    const r = await plain.decode(gs1Png);
    assert.equal(r.ok, true);
    assert.equal(r.gs1, null);
    assert.deepEqual(r.fields, {});
    assert.equal(r.field('17'), null);
    await plain.close();
  });

  it('answers no_dotcode_found for a blank image and decode_error:<detail> for bad input', async () => {
    const blank = await sharp({ create: { width: 200, height: 200, channels: 3, background: '#ffffff' } }).png().toBuffer();
    assert.equal((await s.decode(blank)).error, 'no_dotcode_found');
    const junk = await s.decode(Buffer.from('this is not an image'));
    assert.equal(junk.ok, false);
    assert.match(junk.error!, /^decode_error:/);
    assert.match(s.decodeSync('/nonexistent/file.png').error!, /^decode_error:file_not_found/);
    const all = await s.decodeAll(gs1Png);
    assert.equal(all.ok, true);
    assert.equal(all.symbols[0].field('21'), 'SN0001');
  });

  it('stays correct under 48 concurrent decodes of different images', async () => {
    const texts = Array.from({ length: 12 }, (_, i) => `concurrent-${i}`);
    const pngs = await Promise.all(texts.map((t) => qrPng(t)));
    const jobs = Array.from({ length: 48 }, (_, i) => s.decode(pngs[i % 12]).then((r) => [i % 12, r] as const));
    for (const [k, r] of await Promise.all(jobs)) assert.equal(r.text, texts[k]);
  });

  it('is usable from worker_threads while the main thread decodes too', async () => {
    const key = makeKey();
    const code = `
      const { parentPort, workerData } = require('node:worker_threads');
      const { Scanner } = require(workerData.lib);
      (async () => {
        const s = new Scanner(workerData.key, { telemetry: false });
        const out = [];
        for (let i = 0; i < 6; i++) out.push((await s.decode(Buffer.from(workerData.png))).text);
        out.push(s.decodeSync(Buffer.from(workerData.png)).text);
        await s.close();
        parentPort.postMessage(out);
      })().catch((e) => parentPort.postMessage(String(e && e.stack || e)));`;
    const pngs = await Promise.all([0, 1, 2].map((i) => qrPng(`worker-${i}`)));
    const workers = pngs.map((png) => new Promise<unknown>((resolve, reject) => {
      const w = new Worker(code, { eval: true, workerData: { lib: path.join(ROOT, 'dist/lib/index.js'), key, png } });
      w.once('message', (m) => { resolve(m); void w.terminate(); });
      w.once('error', reject);
    }));
    const main = Promise.all(Array.from({ length: 6 }, () => s.decode(gs1Png)));
    const [results, mainResults] = await Promise.all([Promise.all(workers), main]);
    results.forEach((r, i) => assert.deepEqual(r, Array(7).fill(`worker-${i}`)));
    for (const r of mainResults) assert.equal(r.field('01'), '09506000134352');
  });

  it('refuses to decode after close()', async () => {
    const c = new Scanner(makeKey(), { telemetry: false });
    await c.close();
    await assert.rejects(() => c.decode(gs1Png), /closed/);
  });

  it('is stamped with this run\'s supplier key', () => {
    const stamp = JSON.parse(fs.readFileSync(path.join(ROOT, 'supplier.json'), 'utf8'));
    assert.ok(stamp.keys.some((k: { kid: string }) => k.kid === supplier.kid));
  });
});
