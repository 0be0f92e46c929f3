// The Cloud API over HTTP: a real server on an ephemeral port, a real SQLite file, the real engine.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import sharp from 'sharp';
import WebSocket from 'ws';
import { SqliteStore } from '../../server/src/store/sqlite';
import { customer, documented, DOTCODE_PNG, GS1_PNG, request, tempDir, testServer, TestServer } from './helpers';
import * as path from 'node:path';

/** a PNG whose header claims 8000x6000 pixels: refused before any decoding */
function hugePngHeader(): Buffer {
  const b = Buffer.from(DOTCODE_PNG.subarray(0, 64));
  b.writeUInt32BE(8000, 16);
  b.writeUInt32BE(6000, 20);
  return b;
}

describe('Cloud API (SQLite store)', function () {
  let srv: TestServer;
  let store: SqliteStore;
  let key: string;
  let cid: string;
  const hdr = () => ({ 'X-API-Key': key });
  const used = async () => (await request(`${srv.url}/v1/usage`, { headers: hdr() })).body.used as number;

  before(async () => {
    store = new SqliteStore(path.join(tempDir('api'), 'dotcode.sqlite'));
    srv = await testServer({ store, config: { rateLimit: { limit: 1000, windowMs: 1000 } } });
    ({ key, id: cid } = await customer(store, 100));
  });
  after(async () => { await srv.close(); await store.close(); });

  it('decodes raw bytes and a multipart form identically, each costing one scan', async () => {
    const a = await request(`${srv.url}/v1/decode`, { body: DOTCODE_PNG, headers: { ...hdr(), 'Content-Type': 'image/png' } });
    assert.equal(a.status, 200);
    documented('/v1/decode', 'POST', a);
    assert.deepEqual(Object.keys(a.body), ['ok', 'text', 'format', 'via', 'elapsed_ms', 'error', 'gs1']);
    assert.equal(a.body.ok, true);
    assert.equal(a.body.text, 'Hello from DotCode Reader');
    assert.equal(a.body.format, 'DotCode');
    const b = await request(`${srv.url}/v1/decode`, { body: { form: { note: Buffer.from('x'), file: DOTCODE_PNG } }, headers: hdr() });
    assert.equal(b.status, 200);
    assert.equal(b.body.text, a.body.text);
    assert.equal(await used(), 2);
  });

  it('/v2/decode adds quota {used, remaining, limit, resets_on}; gs1 parameter is honoured', async () => {
    const before = await used();
    const a = await request(`${srv.url}/v2/decode`, { body: GS1_PNG, headers: hdr() });
    assert.equal(a.status, 200);
    documented('/v2/decode', 'POST', a);
    assert.equal(a.body.gs1.is_gs1, true);
    assert.equal(a.body.gs1.fields['01'], '09506000134352');
    assert.deepEqual(Object.keys(a.body.quota), ['used', 'remaining', 'limit', 'resets_on']);
    assert.equal(a.body.quota.used, before + 1);
    assert.equal(a.body.quota.remaining, 100 - before - 1);
    const off = await request(`${srv.url}/v1/decode?gs1=off`, { body: GS1_PNG, headers: hdr() });
    assert.equal(off.body.gs1, null);
    assert.ok(off.body.text.includes('\u001d'), 'raw text keeps the group separator');
  });

  it('speed (our extension): video and thorough read the sample DotCode, each one scan', async () => {
    const before = await used();
    for (const speed of ['video', 'thorough']) {
      const a = await request(`${srv.url}/v1/decode?speed=${speed}`, { body: DOTCODE_PNG, headers: hdr() });
      assert.equal(a.status, 200, speed);
      documented('/v1/decode', 'POST', a);
      assert.equal(a.body.text, 'Hello from DotCode Reader', speed);
    }
    assert.equal(await used(), before + 2);
  });

  it('an image without a code is 200 ok=false and still costs a scan; format restricts readers', async () => {
    const blank = await sharp({ create: { width: 200, height: 120, channels: 3, background: '#ffffff' } }).jpeg().toBuffer();
    const before = await used();
    const a = await request(`${srv.url}/v1/decode`, { body: blank, headers: hdr() });
    assert.equal(a.status, 200);
    assert.equal(a.body.ok, false);
    assert.equal(a.body.error, 'no_dotcode_found');
    const q = await request(`${srv.url}/v1/decode?format=QRCode`, { body: DOTCODE_PNG, headers: hdr() });
    assert.equal(q.status, 200);
    assert.equal(q.body.ok, false);
    assert.equal(await used(), before + 2);
  });

  it('400 for empty body, missing field, non-image bytes, bad parameters: all free', async () => {
    const before = await used();
    const cases: [string, Parameters<typeof request>[1], string][] = [
      ['/v1/decode', { method: 'POST', body: Buffer.alloc(0), headers: hdr() }, 'empty_body'],
      ['/v1/decode', { body: { form: { image: DOTCODE_PNG } }, headers: hdr() }, 'missing_file'],
      ['/v1/decode', { body: { form: { file: Buffer.alloc(0) } }, headers: hdr() }, 'empty_file'],
      // content decides, not the declared type
      ['/v1/decode', { body: Buffer.from('GIF89a this is not a png at all'), headers: { ...hdr(), 'Content-Type': 'image/png' } }, 'unsupported_image'],
      ['/v1/decode', { body: Buffer.concat([DOTCODE_PNG.subarray(0, 40), Buffer.alloc(200)]), headers: hdr() }, 'unreadable_image'],
      ['/v1/decode?format=EAN13', { body: DOTCODE_PNG, headers: hdr() }, 'invalid_format'],
      ['/v2/decode?gs1=maybe', { body: DOTCODE_PNG, headers: hdr() }, 'invalid_gs1'],
      ['/v1/decode?speed=fast', { body: DOTCODE_PNG, headers: hdr() }, 'invalid_parameter'],
      ['/v1/decode?speed=video&speed=video', { body: DOTCODE_PNG, headers: hdr() }, 'invalid_parameter'],
    ];
    for (const [p, o, code] of cases) {
      const a = await request(`${srv.url}${p}`, o);
      assert.equal(a.status, 400, `${code}: ${JSON.stringify(a.body)}`);
      assert.equal(a.body.error, code);
      documented(p.split('?')[0], 'POST', a);
    }
    assert.equal(await used(), before);
  });

  it('401 for a missing key, a wrong key, and a key with a stray space or line break inside', async () => {
    const before = await used();
    const bad = [undefined, key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A'), key.slice(0, 10) + ' ' + key.slice(10), `${key}\u00a0`, 'dck_'];
    for (const k of bad) {
      const a = await request(`${srv.url}/v1/decode`, { body: DOTCODE_PNG, headers: k === undefined ? {} : { 'X-API-Key': k } });
      assert.equal(a.status, 401, `key ${JSON.stringify(k)}`);
      documented('/v1/decode', 'POST', a);
    }
    // a line break inside the header value cannot even be sent: the HTTP layer refuses it
    assert.throws(() => http.request(`${srv.url}/v1/usage`, { headers: { 'X-API-Key': `${key}\n` } }), /Invalid character/);
    assert.equal(await used(), before);
  });

  it('401 for a key with a stray space or tab around it on the wire (HTTP parsers strip them)', async () => {
    const u = new URL(srv.url);
    const raw = (keyLine: string) => new Promise<number>((resolve, reject) => {
      const sock = net.connect(Number(u.port), u.hostname, () => {
        sock.write(`GET /v1/usage HTTP/1.1\r\nHost: x\r\n${keyLine}\r\nConnection: close\r\n\r\n`);
      });
      let text = '';
      sock.on('data', (d) => { text += d.toString(); });
      sock.on('end', () => resolve(Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1])));
      sock.on('error', reject);
    });
    assert.equal(await raw(`X-API-Key: ${key}`), 200);
    assert.equal(await raw(`x-api-key:${key}`), 200);
    assert.equal(await raw(`X-API-Key: ${key} `), 401, 'trailing space');
    assert.equal(await raw(`X-API-Key: ${key}\t`), 401, 'trailing tab');
    assert.equal(await raw(`X-API-Key:  ${key}`), 401, 'leading space copied with the key');
    assert.equal(await raw(`X-API-Key: ${key}`), 200, 'a later clean request on a fresh connection is fine');
  });

  it('413 over 8 MB (declared, and streamed without a length) and 413 image_too_large: free', async () => {
    const before = await used();
    const big = Buffer.alloc(8 * 1024 * 1024 + 1, 0);
    DOTCODE_PNG.copy(big);
    const a = await request(`${srv.url}/v1/decode`, { body: big, headers: hdr() });
    assert.equal(a.status, 413);
    assert.equal(a.body.error, 'payload_too_large');
    documented('/v1/decode', 'POST', a);
    const m = await request(`${srv.url}/v1/decode`, { body: { form: { file: big } }, headers: hdr() });
    assert.equal(m.status, 413);
    // chunked upload: the cap is found while streaming; the answer comes before the client is done
    const streamed = await new Promise<number>((resolve, reject) => {
      // A raw socket: the server answers 413 and closes while we are still sending, so a write
      // may fail (EPIPE, ECONNRESET) before an HTTP client would hand us the answer it received.
      const u = new URL(`${srv.url}/v1/decode`);
      const sock = net.connect(Number(u.port), u.hostname);
      let got = '';
      const headers = Object.entries(hdr()).map(([k, v]) => `${k}: ${v}\r\n`).join('');
      sock.on('connect', () => {
        sock.write(`POST ${u.pathname} HTTP/1.1\r\nHost: ${u.host}\r\n${headers}Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n`);
        const chunk = Buffer.alloc(1024 * 1024);
        let sent = 0;
        const pump = () => {
          while (sent < 20 && !sock.destroyed) {
            sent++;
            sock.write(`${chunk.length.toString(16)}\r\n`);
            sock.write(chunk);
            if (!sock.write('\r\n')) return void sock.once('drain', pump);
          }
          if (!sock.destroyed) sock.write('0\r\n\r\n');
        };
        pump();
      });
      sock.on('data', (d) => { got += d.toString('latin1'); });
      sock.on('error', () => { /* the answer, if any, is already in `got` */ });
      sock.on('close', () => {
        const m = /^HTTP\/1\.1 (\d{3})/.exec(got);
        if (m) resolve(Number(m[1]));
        else reject(new Error(`no HTTP answer before the server closed (got ${JSON.stringify(got.slice(0, 80))})`));
      });
    });
    assert.equal(streamed, 413);
    const huge = await request(`${srv.url}/v1/decode`, { body: hugePngHeader(), headers: hdr() });
    assert.equal(huge.status, 413);
    assert.equal(huge.body.error, 'image_too_large');
    assert.equal(await used(), before);
  });

  it('Idempotency-Key: a retry answers the stored result without a second scan; another body is 409', async () => {
    const before = await used();
    const h = { ...hdr(), 'Idempotency-Key': `req-${Date.now()}` };
    const a = await request(`${srv.url}/v2/decode`, { body: DOTCODE_PNG, headers: h });
    const b = await request(`${srv.url}/v2/decode`, { body: DOTCODE_PNG, headers: h });
    assert.equal(a.status, 200);
    assert.equal(b.status, 200);
    assert.equal(b.headers['idempotent-replayed'], 'true');
    assert.deepEqual(b.body, a.body);
    assert.equal(await used(), before + 1);
    const c = await request(`${srv.url}/v2/decode`, { body: GS1_PNG, headers: h });
    assert.equal(c.status, 409);
    assert.equal(c.body.error, 'idempotency_key_reused');
    documented('/v2/decode', 'POST', c);
    assert.equal(await used(), before + 1);
  });

  it('402 once the quota is spent, with resets_on; nothing decoded', async () => {
    const { key: k2 } = await customer(store, 1);
    const h = { 'X-API-Key': k2 };
    assert.equal((await request(`${srv.url}/v1/decode`, { body: DOTCODE_PNG, headers: h })).status, 200);
    const a = await request(`${srv.url}/v1/decode`, { body: DOTCODE_PNG, headers: h });
    assert.equal(a.status, 402);
    assert.equal(a.body.error, 'quota_exhausted');
    assert.match(a.body.resets_on, /^\d{4}-\d{2}-\d{2}$/);
    documented('/v1/decode', 'POST', a);
    const u = await request(`${srv.url}/v1/usage`, { headers: h });
    assert.deepEqual({ used: u.body.used, remaining: u.body.remaining, quota: u.body.quota }, { used: 1, remaining: 0, quota: 1 });
  });

  it('security headers on every answer; /healthz, /metrics, 404 and 405 are JSON or text as documented', async () => {
    const h = await request(`${srv.url}/healthz`);
    assert.equal(h.status, 200);
    assert.deepEqual([h.body.ok, h.body.store], [true, 'sqlite']);
    for (const [k, v] of Object.entries({ 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY', 'referrer-policy': 'no-referrer', 'cache-control': 'no-store' })) {
      assert.equal(h.headers[k], v, k);
    }
    assert.ok(h.headers['content-security-policy']);
    const m = await request(`${srv.url}/metrics`);
    assert.match(m.body, /dotcode_scans_total\{source="v1",outcome="read"\} \d+/);
    assert.match(m.body, /dotcode_http_requests_total/);
    const nf = await request(`${srv.url}/v9/nothing`);
    assert.deepEqual([nf.status, nf.body.ok, nf.body.error], [404, false, 'not_found']);
    const na = await request(`${srv.url}/v1/decode`, { method: 'GET', headers: hdr() });
    assert.deepEqual([na.status, na.body.error], [405, 'method_not_allowed']);
  });

  it('the log never holds an API key', async () => {
    const text = fs.readFileSync(srv.logFile, 'utf8');
    assert.ok(text.includes('"url":"/v1/decode"'), 'requests are logged');
    assert.ok(!text.includes(key), 'key leaked into the log');
    assert.ok(!text.includes(key.slice(4, 20)));
    assert.ok(text.includes(cid));
  });
});

describe('Cloud API: burst limit and periods', function () {
  let srv: TestServer;
  let store: SqliteStore;
  // injected clock: 15 Feb 2025, for a customer who signed up on 31 Jan
  const now = Date.parse('2025-02-15T09:00:00Z');
  before(async () => {
    store = new SqliteStore(path.join(tempDir('burst'), 'dotcode.sqlite'));
    srv = await testServer({ store, now: () => now, config: { rateLimit: { limit: 3, windowMs: 60_000 } } });
  });
  after(async () => { await srv.close(); await store.close(); });

  it('resets_on follows the signup anchor (31 Jan -> 28 Feb)', async () => {
    const c = await customer(store, 500, '2025-01-31', now);
    const u = await request(`${srv.url}/v1/usage`, { headers: { 'X-API-Key': c.key } });
    assert.deepEqual(u.body, { plan: 'free', quota: 500, used: 0, remaining: 500, resets_on: '2025-02-28' });
  });

  it('429 with Retry-After and RateLimit headers past the burst; costs nothing; per key', async () => {
    const c = await customer(store, 500, '2025-01-01', now);
    const h = { 'X-API-Key': c.key };
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await request(`${srv.url}/v1/decode`, { body: DOTCODE_PNG, headers: h }));
    assert.deepEqual(answers.map((a) => a.status), [200, 200, 200, 429]);
    assert.equal(answers[0].headers['ratelimit-policy'], '"burst";q=3;w=60');
    assert.match(String(answers[0].headers.ratelimit), /^"burst";r=2;t=\d+$/);
    const limited = answers[3];
    assert.equal(limited.body.error, 'rate_limited');
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    assert.match(String(limited.headers.ratelimit), /^"burst";r=0;t=\d+$/);
    documented('/v1/decode', 'POST', limited);
    // another key is not affected
    const other = await customer(store, 500, '2025-01-01', now);
    const u = await request(`${srv.url}/v1/usage`, { headers: { 'X-API-Key': other.key } });
    assert.equal(u.status, 200);
    assert.equal(await store.usage(c.id, '2025-02-01'), 3);
  });

  it('opening live sockets counts against the same burst window (close 4429 past it)', async () => {
    const c = await customer(store, 500, '2025-01-01', now);
    const open = () => new Promise<number>((resolve, reject) => {
      const ws = new WebSocket(`${srv.url.replace('http', 'ws')}/v1/live?api_key=${c.key}`);
      ws.on('open', () => setTimeout(() => ws.close(1000), 100));
      ws.on('close', (code) => resolve(code));
      ws.on('error', reject);
    });
    const codes = [];
    for (let i = 0; i < 4; i++) codes.push(await open());
    assert.deepEqual(codes, [1000, 1000, 1000, 4429]);
  });
});
