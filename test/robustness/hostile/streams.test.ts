// Issue 16, item 1: one malformed or abandoned stream must cost one request, never the process.
// A multipart body whose file part ends without its closing boundary made busboy's part stream
// emit an 'error' nobody listened to, and `dotcode serve` exited. Each case below runs against a
// real `dotcode serve` child, then checks the server is still alive, still answers, and charged
// nothing.
import * as assert from 'node:assert/strict';
import * as net from 'node:net';
import WebSocket from 'ws';
import { DOTCODE_PNG, request } from '../../server/helpers';
import { dropPlace, eachStore, newCustomer, openPlace, place, raw, serve, type Place, type Served } from './serve';
import type { Store } from '../../../server/src/store/types';

function multipartHead(port: number, key: string, boundary: string, length: number): string {
  return `POST /v1/decode HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-API-Key: ${key}\r\n` +
    `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${length}\r\nConnection: close\r\n\r\n`;
}

eachStore('hostile streams: a bad body ends the request, never the server', (storeName) => {
  let p: Place;
  let s: Served;
  let store: Store;
  let key: string;

  before(async () => {
    p = place(storeName);
    store = await openPlace(p);
    key = (await newCustomer(store, 100)).key;
    s = await serve(p);
  });
  after(async () => { await s?.stop(); if (store) await dropPlace(p, store); });

  async function healthyAndUnused(): Promise<void> {
    assert.ok(s.alive(), `the server died:\n${s.stderr()}`);
    const h = await request(`${s.url}/healthz`);
    assert.equal(h.status, 200);
    // serve's last-resort guard (server/src/guard.ts) must not be what kept it alive
    const m = /^dotcode_escaped_errors_total (\d+)$/m.exec(String((await request(`${s.url}/metrics`)).body));
    assert.equal(m?.[1], '0', `an error escaped its request:\n${s.stdout().split('\n').filter((l) => l.includes('escaped')).join('\n')}`);
    // a client's broken or abandoned request is its failure, not the service's: no error-level log
    // line (those page an operator), no 500
    const errors = s.stdout().split('\n').filter((l) => l.includes('"level":50') || l.includes('"status":500'));
    assert.deepEqual(errors, [], 'logged as a service error');
    const u = await request(`${s.url}/v1/usage`, { headers: { 'X-API-Key': key } });
    assert.equal(u.body.used, 0, 'a refused upload was charged');
  }

  it('a file part without its closing boundary: 400 bad_multipart, nothing charged, server alive', async () => {
    const part = Buffer.concat([Buffer.from('--XB\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n'), DOTCODE_PNG]);
    const r = await raw(s.port, Buffer.concat([Buffer.from(multipartHead(s.port, key, 'XB', part.length)), part]));
    assert.equal(r.status, 400, r.head);
    assert.equal(JSON.parse(r.body).error, 'bad_multipart');
    await healthyAndUnused();
  });

  it('the same cut inside a second (ignored) file part, and a form with no parts at all', async () => {
    const form = Buffer.concat([
      Buffer.from('--XB\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\n'), DOTCODE_PNG,
      Buffer.from('\r\n--XB\r\nContent-Disposition: form-data; name="other"; filename="b.bin"\r\n\r\nabc'),
    ]);
    const a = await raw(s.port, Buffer.concat([Buffer.from(multipartHead(s.port, key, 'XB', form.length)), form]));
    assert.equal(a.status, 400, a.head);
    const b = await raw(s.port, multipartHead(s.port, key, 'XB', 4) + '--XB');
    assert.equal(b.status, 400, b.head);
    await healthyAndUnused();
  });

  it('clients that hang up mid-body (multipart, raw, SDK report, portal sign-in): server alive', async () => {
    const half = DOTCODE_PNG.subarray(0, 500);
    const mp = Buffer.concat([Buffer.from('--XB\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\n'), half]);
    await raw(s.port, Buffer.concat([Buffer.from(multipartHead(s.port, key, 'XB', 100_000)), mp]), { hangUp: true });
    await raw(s.port, Buffer.concat([Buffer.from(`POST /v1/decode HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Length: 100000\r\n\r\n`), half]), { hangUp: true });
    await raw(s.port, `POST /v1/sdk/usage HTTP/1.1\r\nHost: x\r\nAuthorization: License DC1.x.y\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"machine_id":`, { hangUp: true });
    await raw(s.port, 'POST /v1/portal/session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"key":"dck_', { hangUp: true });
    // chunked bodies cut inside a chunk, with a chunk-size line that lies
    await raw(s.port, `POST /v1/decode HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nTransfer-Encoding: chunked\r\n\r\nfffff\r\nabc`, { hangUp: true });
    await raw(s.port, `POST /v1/decode HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\nabc\r\n0\r\n\r\n`);
    await new Promise((r) => setTimeout(r, 300));
    await healthyAndUnused();
  });

  it('web-socket upgrades reset by the client before the answer (unknown path, /v1/live, scanner): server alive', async () => {
    const upgrade = (target: string) => new Promise<void>((resolve) => {
      const sock = net.connect(s.port, '127.0.0.1', () => {
        sock.write(`GET ${target} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n');
        sock.resetAndDestroy();
        resolve();
      });
      sock.on('error', () => resolve());
    });
    for (let i = 0; i < 20; i++) {
      await Promise.all(['/nowhere', `/v1/live?api_key=${key}`, '/v1/scanner/live'].map(upgrade));
    }
    await new Promise((r) => setTimeout(r, 300));
    await healthyAndUnused();
  });

  it('a live socket that sends broken web-socket framing, or hangs up mid-frame: server alive', async () => {
    const ws = new WebSocket(`${s.url.replace('http', 'ws')}/v1/live?api_key=${key}`);
    await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
    // an unmasked client frame with a reserved opcode: a protocol error on the server's side
    const sock = (ws as unknown as { _socket: import('node:net').Socket })._socket;
    sock.write(Buffer.from([0x83, 0x05, 1, 2, 3, 4, 5]));
    await new Promise((r) => ws.once('close', r));
    const ws2 = new WebSocket(`${s.url.replace('http', 'ws')}/v1/live?api_key=${key}`);
    await new Promise((resolve, reject) => { ws2.once('open', resolve); ws2.once('error', reject); });
    const sock2 = (ws2 as unknown as { _socket: import('node:net').Socket })._socket;
    sock2.write(Buffer.from([0x82, 0xfe, 0xff, 0xff, 1, 2, 3, 4, 9, 9]), () => sock2.destroy());
    await new Promise((r) => setTimeout(r, 300));
    await healthyAndUnused();
  });
});
