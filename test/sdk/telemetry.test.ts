import { strict as assert } from 'node:assert';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Scanner } from '../../lib';
import { resetInsecureWarning } from '../../lib/telemetry';
import { collector, deadPort, makeKey, median, Mode, protocolServer, qrPng, sleep, stampRepo, tmpDir, waitFor } from './helpers';

const ROOT = path.resolve(__dirname, '../../..');
const FAST = { heartbeatMs: 200, requestTimeoutMs: 400, closeTimeoutMs: 600 };

describe('Scanner: background registration and usage', function () {
  this.timeout(30000);
  let state: string;
  let png: Buffer;
  before(async () => {
    stampRepo();
    state = tmpDir('dc-state-');
    png = await qrPng('telemetry');
  });
  after(() => fs.rmSync(state, { recursive: true, force: true }));

  it('registers within 2 s, reports scans on the heartbeat, and close() flushes the rest', async () => {
    const srv = await protocolServer('ok');
    try {
      const key = makeKey({ url: srv.url });
      const t0 = Date.now();
      const s = new Scanner(key, { cloud: { ...FAST, stateDir: state } });
      assert.equal(s.cloudOk, false);
      assert.equal(s.cloudError, null, 'pending, not failed');
      assert.ok(await waitFor(() => s.cloudOk, 2000), `not registered: ${s.cloudError}`);
      assert.ok(Date.now() - t0 < 2000);
      const reg = srv.requests.find((r) => r.path === '/v1/sdk/register')!;
      assert.equal(reg.auth, `License ${key}`);
      assert.match(String(reg.body.machine_id), /^[0-9a-f]{32}$/);
      assert.equal(reg.body.sdk_version, require(path.join(ROOT, 'package.json')).version);
      for (let i = 0; i < 5; i++) await s.decode(png);
      assert.ok(await waitFor(() => srv.scans === 5, 2000), `server saw ${srv.scans} scans`);
      for (let i = 0; i < 3; i++) s.decodeSync(png);
      await s.close();
      assert.equal(srv.scans, 8, 'close() flushed the last 3');
      assert.ok(srv.requests.every((r) => !r.path.includes('DC1.')), 'the key never goes in a URL');
    } finally {
      await srv.close();
    }
  });

  it('a synchronous script that closes before any timer ran still registers and reports', async () => {
    const srv = await protocolServer('ok');
    try {
      const s = new Scanner(makeKey({ url: srv.url }), { cloud: { ...FAST, stateDir: state } });
      s.decodeSync(png);
      s.decodeSync(png);
      await s.close();
      assert.equal(srv.registered.size, 1);
      assert.equal(srv.scans, 2);
    } finally {
      await srv.close();
    }
  });

  it('telemetry:false opens no connection at all', async () => {
    const srv = await protocolServer('ok');
    try {
      const key = makeKey({ url: srv.url });
      const off = new Scanner(key, { telemetry: false, cloud: { ...FAST, stateDir: state } });
      for (let i = 0; i < 3; i++) await off.decode(png);
      await sleep(500);
      await off.close();
      assert.equal(srv.connections, 0);
      assert.equal(off.cloudOk, false);
      assert.equal(off.cloudError, 'telemetry disabled');
      // The same setup with telemetry on does connect: the counter works.
      const on = new Scanner(key, { cloud: { ...FAST, stateDir: state } });
      assert.ok(await waitFor(() => srv.connections > 0, 2000));
      await on.close();
    } finally {
      await srv.close();
    }
  });

  // The service down / refusing / hanging / answering 500: decode latency unchanged, cloudOk
  // false with a reason, exactly one warning however many retries fail.
  const failures: [Mode | 'down', RegExp][] = [
    ['down', /ECONNREFUSED/],
    ['refuse', /socket hang up|ECONNRESET/],
    ['hang', /no answer within 400 ms/],
    ['500', /answered 500 HTTP 500/],
  ];
  // The reference is a telemetry:false scanner decoding the same image in the same window,
  // alternating with the one under test, so machine load affects both alike.
  let off: Scanner;
  before(async () => {
    off = new Scanner(makeKey(), { telemetry: false });
    for (let i = 0; i < 5; i++) await off.decode(png); // warm
  });
  after(() => off.close());
  for (const [mode, reason] of failures) {
    it(`service ${mode}: decodes at unchanged latency, cloudOk false, cloudError, one warning`, async () => {
      const srv = mode === 'down' ? null : await protocolServer(mode);
      try {
        const url = srv ? srv.url : `http://127.0.0.1:${await deadPort()}`;
        const log = collector();
        const s = new Scanner(makeKey({ url }), { logger: log, cloud: { ...FAST, stateDir: state } });
        const times: number[] = [];
        const ref: number[] = [];
        const t0 = Date.now();
        // Decode for ~1.6 s while registration fails and is retried (1 s back-off).
        while (Date.now() - t0 < 1600) {
          let t = performance.now();
          const r = await s.decode(png);
          times.push(performance.now() - t);
          assert.equal(r.text, 'telemetry');
          t = performance.now();
          await off.decode(png);
          ref.push(performance.now() - t);
        }
        const m = median(times);
        const b = median(ref);
        assert.ok(m < b * 1.5 + 5, `median decode ${m.toFixed(1)} ms vs ${b.toFixed(1)} ms without telemetry (${times.length} decodes)`);
        assert.equal(s.cloudOk, false);
        assert.match(s.cloudError ?? '', reason);
        assert.equal(log.messages.length, 1, log.messages.join('\n'));
        assert.match(log.messages[0], /licence service not reached.*scanning continues/);
        if (srv) assert.ok(srv.requests.length + srv.connections >= 2, 'registration was retried');
        const c0 = Date.now();
        await s.close();
        assert.ok(Date.now() - c0 < 1000, 'close() is bounded');
      } finally {
        await srv?.close();
      }
    });
  }

  it('never keeps the process alive: a script that does not call close() exits at once', async () => {
    const srv = await protocolServer('hang');
    try {
      const key = makeKey({ url: srv.url });
      const child = `
        const { Scanner } = require(${JSON.stringify(path.join(ROOT, 'dist/lib/index.js'))});
        const s = new Scanner(process.env.KEY, { logger: { warn() {} } });
        s.decode(Buffer.from(process.env.PNG, 'base64')).then((r) => console.log(JSON.stringify({ text: r.text, at: Date.now() })));`;
      let out = '';
      const exitedAt = await new Promise<number>((resolve, reject) => {
        const p = spawn(process.execPath, ['-e', child], { env: { ...process.env, KEY: key, PNG: png.toString('base64'), DOTCODE_STATE_DIR: state } });
        p.stdout.on('data', (c) => { out += c; });
        p.on('exit', (code) => (code === 0 ? resolve(Date.now()) : reject(new Error(`exit ${code}: ${out}`))));
      });
      const r = JSON.parse(out.trim()) as { text: string; at: number };
      assert.equal(r.text, 'telemetry');
      // The registration request hangs (bound 2.5 s) and the heartbeat is 60 s away: neither
      // may hold the process once its own work is done.
      assert.ok(exitedAt - r.at < 1000, `exited ${exitedAt - r.at} ms after its last decode`);
      assert.ok(await waitFor(() => srv.requests.length > 0, 100) || srv.connections > 0, 'the registration was attempted');
    } finally {
      await srv.close();
    }
  });

  it('over the seat count: logs "seat limit reached" once and keeps scanning', async () => {
    const srv = await protocolServer('seats');
    try {
      const log = collector();
      const s = new Scanner(makeKey({ url: srv.url }), { logger: log, cloud: { ...FAST, stateDir: state } });
      assert.ok(await waitFor(() => s.cloudError !== null, 2000));
      await sleep(500); // a few more heartbeats retry the registration
      assert.ok(srv.requests.length >= 2);
      assert.equal((await s.decode(png)).text, 'telemetry');
      assert.match(s.cloudError!, /^seat_limit_reached/);
      assert.equal(log.messages.filter((m) => /seat limit reached/.test(m)).length, 1);
      assert.equal(log.messages.length, 1);
      await s.close();
    } finally {
      await srv.close();
    }
  });

  it('three processes on one machine register one machine id (shared state folder)', async () => {
    const srv = await protocolServer('ok');
    const dir = tmpDir('dc-state3-');
    try {
      const key = makeKey({ url: srv.url });
      // Each child also derives the identity with no OS machine id (a container): the random
      // host id must be created once, under the lock, and shared.
      const child = `
        const { Scanner } = require(${JSON.stringify(path.join(ROOT, 'dist/lib/index.js'))});
        const { machineIdentity } = require(${JSON.stringify(path.join(ROOT, 'dist/lib/telemetry/index.js'))});
        (async () => {
          const s = new Scanner(process.env.KEY, { logger: { warn() {} }, cloud: { stateDir: process.env.DOTCODE_STATE_DIR } });
          const fallback = await machineIdentity('lic_x', { dir: process.env.DOTCODE_STATE_DIR + '/noos', machineIdFiles: [] });
          const end = Date.now() + 3000;
          while (!s.cloudOk && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
          await s.close();
          console.log(JSON.stringify({ ok: s.cloudOk, error: s.cloudError, fallback: fallback.machineId }));
        })();`;
      const run = (): Promise<{ ok: boolean; fallback: string }> => new Promise((resolve, reject) => {
        const p = spawn(process.execPath, ['-e', child], { env: { ...process.env, KEY: key, DOTCODE_STATE_DIR: dir } });
        let out = '';
        p.stdout.on('data', (c) => { out += c; });
        p.stderr.on('data', (c) => { out += c; });
        p.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(out))));
      });
      const outs = await Promise.all([run(), run(), run()]);
      assert.ok(outs.every((o) => o.ok), JSON.stringify(outs));
      assert.equal(srv.requests.filter((r) => r.path === "/v1/sdk/register").length, 3, JSON.stringify(srv.requests.map((r) => [r.path, r.body])));
      assert.equal(srv.registered.size, 1, `machine ids: ${[...srv.registered].join(', ')}`);
      assert.equal(new Set(outs.map((o) => o.fallback)).size, 1, 'one random host id for three processes');
    } finally {
      await srv.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Scanner: TLS of the background calls', function () {
  this.timeout(30000);
  let dir: string;
  let png: Buffer;
  const saved = { ca: process.env.DOTCODE_CA_BUNDLE, insecure: process.env.DOTCODE_INSECURE_TLS };
  before(async () => {
    stampRepo();
    png = await qrPng('tls');
    dir = tmpDir('dc-tls-');
    const ossl = (...args: string[]): void => { execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' }); };
    // A private CA, a server certificate with a subjectAltName, and one with only a Common Name.
    ossl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Test Private CA');
    for (const name of ['san', 'cn']) {
      ossl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', '/CN=localhost');
      fs.writeFileSync(path.join(dir, `${name}.ext`), name === 'san' ? 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' : 'basicConstraints=CA:FALSE\n');
      ossl('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.pem`, '-days', '2', '-extfile', `${name}.ext`);
    }
  });
  afterEach(() => {
    for (const [k, v] of [['DOTCODE_CA_BUNDLE', saved.ca], ['DOTCODE_INSECURE_TLS', saved.insecure]] as const) {
      if (v === undefined) delete process.env[k]; else process.env[k] = v;
    }
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function attempt(certName: 'san' | 'cn', log = collector()): Promise<{ ok: boolean; error: string | null; log: string[] }> {
    const srv = await protocolServer('ok', { key: fs.readFileSync(path.join(dir, `${certName}.key`)), cert: fs.readFileSync(path.join(dir, `${certName}.pem`)) }, 'localhost');
    try {
      // These cases are about trust, not timing: a TLS handshake on a loaded CI machine may take
      // longer than FAST's 400 ms, which would turn a certificate check into a timeout.
      const s = new Scanner(makeKey({ url: srv.url }), { logger: log, cloud: { ...FAST, requestTimeoutMs: 10000, closeTimeoutMs: 12000, stateDir: dir } });
      await waitFor(() => s.cloudOk || s.cloudError !== null, 15000);
      assert.equal((await s.decode(png)).text, 'tls');
      await s.close();
      return { ok: s.cloudOk, error: s.cloudError, log: log.messages };
    } finally {
      await srv.close();
    }
  }

  it('DOTCODE_CA_BUNDLE: a certificate whose subjectAltName matches is accepted', async () => {
    process.env.DOTCODE_CA_BUNDLE = path.join(dir, 'ca.pem');
    const r = await attempt('san');
    assert.equal(r.ok, true, r.error ?? '');
  });

  it('a certificate with only a matching Common Name is refused', async () => {
    process.env.DOTCODE_CA_BUNDLE = path.join(dir, 'ca.pem');
    const r = await attempt('cn');
    assert.equal(r.ok, false);
    assert.match(r.error!, /no subjectAltName.*Common Name alone is not accepted/);
  });

  it('without the bundle the private CA is not trusted', async () => {
    const r = await attempt('san');
    assert.equal(r.ok, false);
    assert.match(r.error!, /certificate/i);
  });

  it('DOTCODE_INSECURE_TLS=1 skips verification and warns once per process', async () => {
    process.env.DOTCODE_INSECURE_TLS = '1';
    resetInsecureWarning();
    const log = collector();
    const a = await attempt('cn', log);
    const b = await attempt('san', log);
    assert.equal(a.ok, true, a.error ?? '');
    assert.equal(b.ok, true);
    assert.equal(log.messages.filter((m) => /DOTCODE_INSECURE_TLS=1/.test(m)).length, 1, log.messages.join('\n'));
  });
});
