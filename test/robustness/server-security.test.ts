// Security review of the Cloud API over a real server (QA, task item 2): secrets at rest (SQLite
// file, Redis keys), secrets in logs, key handling (stray whitespace), the supplier private key,
// path traversal, security headers, oversize uploads streamed slowly, pixel bombs.
// Each check runs against real components: an in-process server on an ephemeral port, a real
// SQLite file, the Redis at 127.0.0.1:6379 (skipped with a notice only where none answers).
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import * as zlib from 'node:zlib';
import WebSocket from 'ws';
import Redis from 'ioredis';
import { issueLicense, initKeys } from '../../server/src/admin';
import { customer, DOTCODE_PNG, redisAvailable, REDIS_URL, request, tempDir, testPrefix, testServer, type TestServer } from '../server/helpers';

const BIN = path.resolve(__dirname, '..', '..', '..', 'bin', 'dotcode.js');

/** One raw HTTP/1.1 exchange: the bytes go out exactly as written (no client-side cleanup). */
function rawHttp(port: number, text: string | Buffer, timeoutMs = 10_000): Promise<{ status: number; head: string; body: string }> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const t = setTimeout(() => { s.destroy(); reject(new Error('raw request timed out')); }, timeoutMs);
    s.on('data', (c) => chunks.push(c));
    s.on('error', reject);
    s.on('close', () => {
      clearTimeout(t);
      const all = Buffer.concat(chunks).toString('latin1');
      const i = all.indexOf('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(all)?.[1] ?? 0), head: all.slice(0, i), body: all.slice(i + 4) });
    });
    s.end(text);
  });
}

function rawGet(port: number, target: string, headers: string[] = []): Promise<{ status: number; head: string; body: string }> {
  return rawHttp(port, [`GET ${target} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close', ...headers, '', ''].join('\r\n'));
}

/** A PNG whose IHDR declares width x height (pixel bomb: a few bytes claiming gigapixels). */
function pngDeclaring(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0); ihdr.writeUInt32BE(height, 4); ihdr[8] = 8; ihdr[9] = 0;
  const len = Buffer.alloc(4); len.writeUInt32BE(13);
  const body = Buffer.concat([Buffer.from('IHDR'), ihdr]);
  const crc = Buffer.alloc(4); crc.writeUInt32BE(zlib.crc32 ? zlib.crc32(body) : 0);
  const idat = zlib.deflateSync(Buffer.alloc(4096));
  const ilen = Buffer.alloc(4); ilen.writeUInt32BE(idat.length);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), len, body, crc, ilen, Buffer.from('IDAT'), idat, Buffer.alloc(4)]);
}

async function used(s: TestServer, key: string): Promise<number> {
  const u = await request(`${s.url}/v1/usage`, { headers: { 'X-API-Key': key } });
  assert.equal(u.status, 200, JSON.stringify(u.body));
  return u.body.used;
}

/** Every way we can think of to send a key that is almost right. */
function nearMisses(key: string): [string, string][] {
  return [
    ['trailing space', `${key} `], ['leading space', ` ${key}`], ['two spaces before', `  ${key}`], ['trailing tab', `${key}\t`],
    ['space inside', `${key.slice(0, 10)} ${key.slice(10)}`], ['tab inside', `${key.slice(0, 10)}\t${key.slice(10)}`],
    ['no-break space after', `${key}\u00a0`], ['upper-cased', key.toUpperCase()], ['one char short', key.slice(0, -1)],
    ['one char more', `${key}A`], ['quoted', `"${key}"`], ['comma-joined twice', `${key}, ${key}`],
  ];
}

describe('robustness: Cloud API security (SQLite store)', function () {
  this.timeout(60_000);
  let s: TestServer;
  let key: string;
  let licenseKey: string;

  before(async () => {
    const dataDir = tempDir('qa-sec');
    initKeys(dataDir);
    s = await testServer({ dataDir });
    key = (await customer(s.deps.store, 100)).key;
    licenseKey = (await issueLicense(s.deps.store, dataDir, { org: 'QA Org', plan: 'sdk-pro', seats: 2, features: ['sdk', 'scanner'] })).license_key;
  });
  after(async () => { await s?.close(); });

  it('the SQLite file (and its WAL) holds the API key only as a SHA-256 hash', async () => {
    assert.equal((await request(`${s.url}/v1/decode`, { headers: { 'X-API-Key': key }, body: DOTCODE_PNG })).status, 200);
    const files = fs.readdirSync(s.dataDir).filter((f) => /sqlite/.test(f)).map((f) => path.join(s.dataDir, f));
    assert.ok(files.length >= 1, `no SQLite file in ${s.dataDir}`);
    const all = Buffer.concat(files.map((f) => fs.readFileSync(f))).toString('latin1');
    assert.ok(!all.includes(key), 'plaintext API key found in the SQLite file');
    assert.ok(!all.includes(key.slice(4, 30)), 'part of the API key found in the SQLite file');
    const sha = require('node:crypto').createHash('sha256').update(key).digest('hex') as string;
    assert.ok(all.includes(sha), 'the SHA-256 of the key is not what is stored (test assumption broken)');
  });

  it('a key with stray whitespace, or almost right, is 401 and costs nothing (raw bytes on the wire)', async () => {
    const before = await used(s, key);
    for (const [what, k] of nearMisses(key)) {
      const r = await rawHttp(s.port, Buffer.concat([Buffer.from(`POST /v1/decode HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-API-Key: `, 'latin1'),
        Buffer.from(k, 'utf8'), Buffer.from(`\r\nContent-Length: ${DOTCODE_PNG.length}\r\n\r\n`, 'latin1'), DOTCODE_PNG]));
      assert.ok(r.status === 401 || r.status === 400, `${what}: ${r.status} ${r.body}`);
    }
    // two X-API-Key headers (one right, one wrong): never "first wins" silently
    const two = await rawHttp(s.port, `GET /v1/usage HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-API-Key: ${key}\r\nX-API-Key: dck_${'A'.repeat(43)}\r\n\r\n`);
    assert.equal(two.status, 401, `two keys: ${two.status}`);
    // the same key, correctly sent, still works on the same server
    const ok = await rawHttp(s.port, `GET /v1/usage HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-API-Key: ${key}\r\n\r\n`);
    assert.equal(ok.status, 200, ok.body);
    assert.equal(await used(s, key), before);
  });

  it('the live socket refuses near-miss keys in api_key with close code 4401', async () => {
    for (const [what, k] of nearMisses(key).slice(0, 8)) {
      const code = await new Promise<number>((resolve, reject) => {
        const ws = new WebSocket(`${s.url.replace('http', 'ws')}/v1/live?api_key=${encodeURIComponent(k)}`);
        ws.on('close', (c) => resolve(c));
        ws.on('error', reject);
      });
      assert.equal(code, 4401, what);
    }
  });

  it('a malformed query string (bad percent-encoding) is answered normally, not 500, and the key stays out of the log', async () => {
    // FINDING F1 (fixed): server/src/logger.ts safeUrl() called decodeURIComponent on each query
    // parameter name; "%zz" threw URIError inside the request-log `finally`, turning an already
    // decoded (and charged) request into a bare 500, which SPEC 7.1 tells clients to retry.
    const before = await used(s, key);
    const r = await request(`${s.url}/v1/decode?%zz=1`, { headers: { 'X-API-Key': key }, body: DOTCODE_PNG });
    assert.notEqual(r.status, 500, `answered ${r.status} ${JSON.stringify(r.body)}`);
    assert.equal(r.status, 200);
    assert.equal(await used(s, key), before + 1);
    const dl = await request(`${s.url}/v1/sdk/download?%E0%A4%A=1&key=${encodeURIComponent(licenseKey)}x`);
    assert.notEqual(dl.status, 500);
    const log = fs.readFileSync(s.logFile, 'utf8');
    assert.ok(!log.includes(licenseKey.slice(4, 60)), 'licence key in the log');
  });

  it('no API key or licence key reaches the log, whatever route, header, query or socket carried it', async () => {
    const lk = encodeURIComponent(licenseKey);
    await request(`${s.url}/v1/decode?format=DotCode`, { headers: { 'X-API-Key': key }, body: DOTCODE_PNG });
    await request(`${s.url}/v2/decode`, { headers: { 'X-API-Key': key }, body: { form: { file: DOTCODE_PNG } } });
    await request(`${s.url}/v1/decode`, { headers: { 'X-API-Key': `${key}x` }, body: DOTCODE_PNG });
    await request(`${s.url}/v1/decode?api_key=${key}&key=${lk}`, { headers: { 'X-API-Key': key }, body: Buffer.from('not an image') });
    await request(`${s.url}/v1/nowhere?API_KEY=${key}&Key=${lk}&license_key=${lk}`);
    await request(`${s.url}/v1/sdk/download?key=${lk.slice(0, -3)}`); // invalid: 401, must not log the key
    await request(`${s.url}/v1/sdk/register`, { headers: { Authorization: `License ${licenseKey}`, 'Content-Type': 'application/json' },
      body: Buffer.from(JSON.stringify({ machine_id: 'qa-machine-0001', hostname: 'qa', platform: 'linux', sdk_version: '0.0.0' })) });
    await request(`${s.url}/v1/sdk/register`, { headers: { Authorization: `License ${licenseKey}x`, 'Content-Type': 'application/json' }, body: Buffer.from('{}') });
    await request(`${s.url}/v1/sdk/usage`, { headers: { Authorization: `License ${licenseKey}`, 'Content-Type': 'application/json' }, body: Buffer.from('{not json') });
    for (const q of [`api_key=${key}`, `api_key=${key}x`, `api_key=${key}&format=Nope`]) {
      await new Promise<void>((resolve) => {
        const ws = new WebSocket(`${s.url.replace('http', 'ws')}/v1/live?${q}`);
        ws.on('open', () => ws.send(Buffer.from('junk frame'), () => setTimeout(() => ws.close(), 200)));
        ws.on('close', () => resolve());
        ws.on('error', () => resolve());
      });
    }
    for (const k of [licenseKey, `${licenseKey}x`]) {
      await new Promise<void>((resolve) => {
        const ws = new WebSocket(`${s.url.replace('http', 'ws')}/v1/scanner/live`);
        ws.on('open', () => ws.send(JSON.stringify({ type: 'hello', license_key: k, device_id: 'qa-device-0001' }), () => setTimeout(() => ws.close(), 300)));
        ws.on('close', () => resolve());
        ws.on('error', () => resolve());
      });
    }
    await new Promise((r) => setTimeout(r, 200));
    const log = fs.readFileSync(s.logFile, 'utf8');
    assert.ok(log.split('\n').length > 8, 'the log is nearly empty: the test would prove nothing');
    for (const [what, secret] of [['API key', key.slice(4)], ['licence payload', licenseKey.split('.')[1].slice(0, 40)], ['licence signature', licenseKey.split('.')[2].slice(0, 40)]]) {
      const line = log.split('\n').find((l) => l.includes(secret));
      assert.equal(line, undefined, `${what} in the log: ${line}`);
    }
  });

  it('security headers on API answers and on the pages; the pages never put a key in a URL', async () => {
    for (const p of ['/v1/usage', '/healthz', '/nowhere']) {
      const r = await request(`${s.url}${p}`);
      assert.equal(r.headers['x-content-type-options'], 'nosniff', p);
      assert.ok(r.headers['x-frame-options'] === 'DENY' || /frame-ancestors 'none'/.test(String(r.headers['content-security-policy'])), p);
      assert.equal(r.headers['x-powered-by'], undefined, p);
      assert.equal(r.headers['cache-control'], 'no-store', p);
    }
    for (const p of ['/scanner', '/portal']) {
      const r = await request(`${s.url}${p}`);
      if (r.status === 503) continue; // page not built in this checkout: nothing to check
      assert.equal(r.status, 200, p);
      const csp = String(r.headers['content-security-policy']);
      assert.match(csp, /default-src 'none'/, p);
      assert.match(csp, /frame-ancestors 'none'/, p);
      assert.doesNotMatch(csp, /script-src[^;]*'unsafe-inline'/, p);
      assert.equal(r.headers['referrer-policy'], 'no-referrer', p);
      const html = String(r.body);
      // a key in a URL ends up in history, proxies and server logs
      assert.doesNotMatch(html, /[?&](key|api_key|apikey|license_key|licence_key|license|token)=/i, `${p} builds a URL with a key in it`);
      assert.doesNotMatch(html, /localStorage\.setItem\([^)]*(key|licen[cs]e)/i, `${p} keeps a key in localStorage (SPEC: per tab)`);
    }
  });

  it('the supplier private key is never served: static paths, traversal, encoded traversal, the download', async function () {
    this.timeout(120_000);
    const pem = fs.readFileSync(path.join(s.dataDir, 'supplier', 'signing-key.pem'), 'utf8');
    const body = pem.split('\n')[1];
    const targets = ['/supplier/signing-key.pem', '/data/supplier/signing-key.pem', '/signing-key.pem', '/download', '/download/signing-key.pem',
      '/v1/sdk/download/../../supplier/signing-key.pem', '/scanner/../supplier/signing-key.pem', '/scanner/..%2f..%2fsupplier%2fsigning-key.pem',
      '/%2e%2e/%2e%2e/supplier/signing-key.pem', '/..%5c..%5csupplier%5csigning-key.pem', '/portal/../../../../etc/passwd', '/scanner.html',
      '/web/scanner.html', '/dist/web/../../package.json', '/server.log', '/dotcode.sqlite', '/sdk-cache/', '/.env', '//etc/passwd', '/v1/sdk/download?key=../supplier/signing-key.pem'];
    for (const t of targets) {
      const r = await rawGet(s.port, t);
      assert.ok(r.status >= 400, `${t} answered ${r.status}`);
      assert.ok(!r.body.includes('PRIVATE KEY') && !r.body.includes(body) && !r.body.includes('root:x:0'), `${t} leaked a file`);
    }
    // the one route that serves a file: the tarball must hold no private key and no data folder
    const dl = await request(`${s.url}/v1/sdk/download?key=${encodeURIComponent(licenseKey)}`);
    assert.equal(dl.status, 200, dl.raw.toString().slice(0, 300));
    const tar = zlib.gunzipSync(dl.raw).toString('latin1');
    assert.ok(!tar.includes('PRIVATE KEY') && !tar.includes(body), 'the SDK tarball contains the supplier private key');
    const tgz = path.join(tempDir('qa-tgz'), 'sdk.tgz');
    fs.writeFileSync(tgz, dl.raw);
    const names = execFileSync('tar', ['tzf', tgz], { encoding: 'utf8' }).split('\n').filter(Boolean);
    assert.ok(names.includes('package/package.json'), 'not an npm package tarball');
    const stray = names.filter((n) => /\.pem$|\.sqlite|\.log$|(^|\/)data\/|sdk-cache|\.env$/.test(n));
    assert.deepEqual(stray, [], 'the SDK tarball contains data-folder files');
  });

  it('413 for 50 MB streamed slowly without a length: cut off near the cap, memory stays low, free', async function () {
    this.timeout(60_000);
    const before = await used(s, key);
    // a real collection before each figure (mocha runs without --expose-gc, so global.gc is
    // absent): without it the figure is garbage that happens not to be collected yet
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    gc();
    const mem0 = process.memoryUsage();
    for (const multipart of [false, true]) {
      const r = await new Promise<{ status: number; sent: number; body: string }>((resolve, reject) => {
        const sock = net.connect(s.port, '127.0.0.1');
        const boundary = 'qaqaqa';
        let sent = 0;
        let answered = false;
        let buf = '';
        const head = multipart
          ? `POST /v1/decode HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nTransfer-Encoding: chunked\r\n\r\n`
          : `POST /v1/decode HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: image/png\r\nTransfer-Encoding: chunked\r\n\r\n`;
        sock.write(head);
        const first = multipart ? Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`), DOTCODE_PNG]) : DOTCODE_PNG;
        sock.write(`${first.length.toString(16)}\r\n`); sock.write(first); sock.write('\r\n');
        sent += first.length;
        const chunk = Buffer.alloc(256 * 1024, 0x41);
        // The client waits for its socket to drain: what piles up unsent in this process's own
        // write queue (a busy machine) is not the server's memory, which is what is measured.
        const pump = () => {
          if (answered || sent >= 50 * 1024 * 1024 || sock.destroyed) return;
          sock.write(`${chunk.length.toString(16)}\r\n`);
          const flushed = sock.write(chunk);
          sock.write('\r\n');
          sent += chunk.length;
          // slow: ~100 MB/s at most, and the server must not wait for the end
          if (flushed) setTimeout(pump, 2);
          else sock.once('drain', () => setTimeout(pump, 2));
        };
        pump();
        const done = () => resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(buf)?.[1] ?? 0), sent, body: buf });
        sock.on('data', (d) => {
          buf += d.toString();
          if (!answered && /\r\n\r\n/.test(buf)) answered = true;
          // the whole JSON answer is in: stop here rather than wait for the server's drain timeout
          if (/\r\n\r\n[\s\S]*\}\s*$/.test(buf)) { done(); sock.destroy(); }
        });
        sock.on('close', done);
        sock.on('error', () => { /* reset by the server after its 413: expected */ });
        setTimeout(() => { if (!answered) reject(new Error(`no answer after ${sent} bytes`)); sock.destroy(); }, 30_000);
      });
      assert.equal(r.status, 413, `${multipart ? 'multipart' : 'raw'}: ${r.body.slice(0, 200)}`);
      assert.match(r.body, /"error":"payload_too_large"/);
      assert.ok(r.sent < 20 * 1024 * 1024, `${multipart ? 'multipart' : 'raw'}: server let ${r.sent} bytes in before answering`);
    }
    // The refused sockets' last read buffers are let go when their close events have run: on a
    // loaded machine that is after the answer (9.5 MB still held right after it, 0.5 MB 200 ms
    // later; once 24.1 MB in a full run beside benches), and what the server keeps is the question.
    await new Promise((r) => setTimeout(r, 200));
    gc();
    const mem1 = process.memoryUsage();
    const grew = (mem1.arrayBuffers - mem0.arrayBuffers) / 1024 / 1024;
    assert.ok(grew < 24, `external buffers grew by ${grew.toFixed(1)} MB while refusing two 50 MB uploads`);
    // a declared length over the cap is refused before a byte of the body is read
    const declared = await rawHttp(s.port, `POST /v1/decode HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-API-Key: ${key}\r\nContent-Length: ${50 * 1024 * 1024}\r\n\r\n`);
    assert.equal(declared.status, 413);
    assert.equal(await used(s, key), before);
  });

  it('pixel bombs (PNG, JPEG; raw body, multipart, live frame) are 413 image_too_large at no quota cost', async () => {
    const before = await used(s, key);
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xc0, 0x00, 0x0b, 0x08, 0xff, 0xff, 0xff, 0xff, 0x01, 0x01, 0x11, 0x00, 0xff, 0xd9]);
    for (const [what, img] of [['png 50000x50000', pngDeclaring(50000, 50000)], ['png 7000x7000', pngDeclaring(7000, 7000)], ['jpeg 65535x65535', jpeg]] as const) {
      for (const body of [img, { form: { file: img } }]) {
        const r = await request(`${s.url}/v2/decode`, { headers: { 'X-API-Key': key }, body });
        assert.equal(r.status, 413, `${what}: ${r.status} ${JSON.stringify(r.body)}`);
        assert.equal(r.body.error, 'image_too_large', what);
      }
    }
    const answer = await new Promise<any>((resolve, reject) => {
      const ws = new WebSocket(`${s.url.replace('http', 'ws')}/v1/live?api_key=${key}`);
      ws.on('open', () => ws.send(pngDeclaring(50000, 50000)));
      ws.on('message', (m) => { resolve(JSON.parse(String(m))); ws.close(); });
      ws.on('error', reject);
    });
    assert.equal(answer.ok, false);
    assert.match(String(answer.error), /image_too_large/);
    assert.equal(await used(s, key), before);
  });
});

describe('robustness: Cloud API security (Redis store)', function () {
  this.timeout(30_000);
  let s: TestServer;
  let key: string;
  let prefix: string;

  before(async function () {
    if (!(await redisAvailable())) { console.log(`    NOTICE: no Redis at ${REDIS_URL}; skipping`); this.skip(); }
    prefix = testPrefix();
    s = await testServer({ redisUrl: REDIS_URL, redisPrefix: prefix });
    key = (await customer(s.deps.store, 10)).key;
  });
  after(async () => {
    if (!s) return;
    const r = new Redis(REDIS_URL);
    const keys = await r.keys(`${prefix}*`);
    if (keys.length) await r.del(...keys);
    await r.quit();
    await s.close();
  });

  it('no Redis key name or value holds the plaintext API key', async () => {
    assert.equal((await request(`${s.url}/v1/decode`, { headers: { 'X-API-Key': key }, body: DOTCODE_PNG })).status, 200);
    const r = new Redis(REDIS_URL);
    try {
      const keys = await r.keys(`${prefix}*`);
      assert.ok(keys.length > 0, 'the server wrote nothing under its prefix: the test would prove nothing');
      const dump: string[] = [];
      for (const k of keys) {
        dump.push(k);
        const t = await r.type(k);
        if (t === 'string') dump.push(String(await r.get(k)));
        else if (t === 'hash') dump.push(JSON.stringify(await r.hgetall(k)));
        else if (t === 'set') dump.push(...await r.smembers(k));
        else if (t === 'zset') dump.push(...await r.zrange(k, 0, -1));
        else if (t === 'list') dump.push(...await r.lrange(k, 0, -1));
      }
      const all = dump.join('\n');
      assert.ok(!all.includes(key.slice(4)), 'plaintext API key in Redis');
    } finally {
      await r.quit();
    }
  });
});

describe('robustness: supplier private key on disk', function () {
  this.timeout(30_000);
  it('`dotcode admin init` writes signing-key.pem with mode 0600 in a 0700 folder', () => {
    const data = tempDir('qa-init');
    const r = spawnSync(process.execPath, [BIN, 'admin', 'init', '--data', data], { encoding: 'utf8', env: { ...process.env } });
    assert.equal(r.status, 0, r.stderr);
    const st = fs.statSync(path.join(data, 'supplier', 'signing-key.pem'));
    assert.equal((st.mode & 0o777).toString(8), '600');
    assert.equal((fs.statSync(path.join(data, 'supplier')).mode & 0o077).toString(8), '0', 'supplier folder readable by others');
    // the CLI never prints the private key
    assert.ok(!r.stdout.includes('PRIVATE KEY') && !r.stderr.includes('PRIVATE KEY'));
  });
});
