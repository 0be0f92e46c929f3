// The /v1/scanner/live socket without a browser: seat leases against a server clock the test
// moves (a slot is freed after LEASE_MS of silence), protocol errors, revocation, and that a
// scanner frame is answered with the SPEC 2.1 result without touching any Cloud API quota.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import WebSocket from 'ws';
import { startServer, RunningServer } from '../../server/src/server';
import { createCustomer, initKeys, issueLicense, revokeLicense } from '../../server/src/admin';
import { LEASE_MS } from '../../server/src/scanner';
import { currentPeriod } from '../../server/src/store/period';
import { renderSymbol } from './harness';
import * as engine from '../../lib/engine';

interface Msg { type: string; error?: string; message?: string; ok?: boolean; text?: string | null; format?: string | null; [k: string]: unknown }

/** One scanner connection: sends the hello, collects messages and the close code. */
class Device {
  readonly ws: WebSocket;
  readonly messages: Msg[] = [];
  closeCode: Promise<number>;
  private waiters: (() => void)[] = [];

  constructor(url: string) {
    this.ws = new WebSocket(url.replace(/^http/, 'ws') + '/v1/scanner/live');
    this.ws.on('message', (d, isBinary) => {
      if (!isBinary) this.messages.push(JSON.parse(d.toString()));
      this.waiters.splice(0).forEach((w) => w());
    });
    this.closeCode = new Promise((resolve) => this.ws.on('close', (code) => { resolve(code); this.waiters.splice(0).forEach((w) => w()); }));
  }

  async open(): Promise<void> {
    if (this.ws.readyState === WebSocket.OPEN) return;
    await new Promise<void>((resolve, reject) => { this.ws.once('open', () => resolve()); this.ws.once('error', reject); });
  }

  async next(n = this.messages.length + 1, timeoutMs = 10000): Promise<Msg> {
    const t0 = Date.now();
    while (this.messages.length < n) {
      if (Date.now() - t0 > timeoutMs || this.ws.readyState === WebSocket.CLOSED) throw new Error(`no message ${n} (got ${JSON.stringify(this.messages)})`);
      await new Promise<void>((resolve) => { this.waiters.push(resolve); setTimeout(resolve, 200); });
    }
    return this.messages[n - 1];
  }

  async hello(key: string, deviceId: string, extra: object = {}): Promise<Msg> {
    await this.open();
    this.ws.send(JSON.stringify({ type: 'hello', license_key: key, device_id: deviceId, ...extra }));
    return this.next();
  }

  close(): void { this.ws.close(); }
}

describe('scanner socket /v1/scanner/live', function () {
  this.timeout(30000);
  let dir: string;
  let srv: RunningServer;
  let offsetMs = 0; // the server's clock runs this far ahead of the real one
  const open: Device[] = [];
  const device = () => { const d = new Device(srv.url); open.push(d); return d; };
  const issue = async (seats: number, features = ['scanner']) =>
    issueLicense(srv.deps.store, dir, { org: 'Socket Test', plan: 'scanner', seats, features }, Date.now() + offsetMs);

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dotcode-scanner-socket-'));
    initKeys(dir);
    srv = await startServer({ port: 0, host: '127.0.0.1', dataDir: dir, logFile: path.join(dir, 'server.log'), now: () => Date.now() + offsetMs });
  });
  after(async () => {
    open.forEach((d) => d.close());
    await srv.close();
    await engine.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('frees a seat after LEASE_MS of silence, not before; the holder reconnecting keeps it', async () => {
    const { license_key: key } = await issue(1);
    const a = device();
    assert.equal((await a.hello(key, 'device-aaaa-0001')).type, 'ready');
    a.close();
    await a.closeCode;

    // Closed, but its lease runs: another device is refused, the same device comes back.
    offsetMs += LEASE_MS - 5000;
    const b = device();
    const refused = await b.hello(key, 'device-bbbb-0002');
    assert.deepEqual([refused.type, refused.error, refused.message], ['error', 'seat_limit_reached', 'All the machines on this licence are already scanning']);
    assert.equal(await b.closeCode, 4409);
    const a2 = device();
    assert.equal((await a2.hello(key, 'device-aaaa-0001')).type, 'ready', 'same device id keeps its slot');
    a2.close();
    await a2.closeCode;

    // Silence past the lease: the slot is free for another device.
    offsetMs += LEASE_MS + 1000;
    const b2 = device();
    assert.equal((await b2.hello(key, 'device-bbbb-0002')).type, 'ready');
    const a3 = device();
    assert.equal((await a3.hello(key, 'device-aaaa-0001')).error, 'seat_limit_reached');
  });

  it('answers each frame with a SPEC 2.1 result, in order, and charges no Cloud API quota', async () => {
    const { license_key: key } = await issue(2);
    const customer = await createCustomer(srv.deps.store, { name: 'Quota Watch', plan: 'free' });
    const c = await srv.deps.store.getCustomer(customer.customer_id);
    const period = currentPeriod(c!.signup, Date.now() + offsetMs);
    const d = device();
    assert.equal((await d.hello(key, 'device-frames-0001', { format: 'QRCode' })).type, 'ready');
    const png = await renderSymbol('qrcode', 'frame one', 4);
    d.ws.send(png);
    d.ws.send(Buffer.from('not an image'));
    d.ws.send(png);
    const r1 = await d.next(2), r2 = await d.next(3), r3 = await d.next(4);
    assert.deepEqual(Object.keys(r1), ['type', 'ok', 'text', 'format', 'via', 'elapsed_ms', 'error', 'gs1', 'frames_used', 'new']);
    assert.deepEqual([r1.ok, r1.text, r1.format, r1.frames_used, r1.new], [true, 'frame one', 'QRCode', 1, true]);
    assert.equal(r2.ok, false);
    assert.match(String(r2.error), /^decode_error:/);
    // the same code again within the socket's FrameReader: still in view, not new (one beep)
    assert.deepEqual([r3.text, r3.new], ['frame one', false]);
    assert.equal(await srv.deps.store.usage(customer.customer_id, period.start), 0);
  });

  it('refuses protocol misuse, SDK-only, revoked and unknown keys with close codes', async () => {
    const bad = device();
    assert.equal((await bad.hello('DC1.garbage', 'device-bad-00001')).error, 'invalid_license');
    assert.equal(await bad.closeCode, 4401);

    const sdkOnly = await issue(3, ['sdk']);
    const s = device();
    assert.equal((await s.hello(sdkOnly.license_key, 'device-sdk-00001')).message, 'This licence does not include the Live Scanner');
    assert.equal(await s.closeCode, 4403);

    const revoked = await issue(3);
    await revokeLicense(srv.deps.store, revoked.license_id);
    const r = device();
    assert.equal((await r.hello(revoked.license_key, 'device-rev-00001')).error, 'license_revoked');

    const noId = device();
    assert.equal((await noId.hello(revoked.license_key, 'x')).error, 'bad_device_id');
    assert.equal(await noId.closeCode, 4400);

    const frameFirst = device();
    await frameFirst.open();
    frameFirst.ws.send(Buffer.from([0xff, 0xd8, 0xff]));
    assert.equal((await frameFirst.next()).error, 'hello_expected');
  });
});
