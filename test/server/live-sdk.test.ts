// wss /v1/live with real JPEG frames, the SDK background endpoints, the SDK download, and the
// OpenAPI document checked against the running server's routes.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import sharp from 'sharp';
import WebSocket from 'ws';
import { customer, documented, DOTCODE_PNG, request, tempDir, testServer, TestServer } from './helpers';
import { SqliteStore } from '../../server/src/store/sqlite';
import { initKeys, issueLicense, revokeLicense } from '../../server/src/admin';
import { currentPeriod, dayOf } from '../../server/src/store/period';

interface LiveRun { answers: any[]; code: number }

/** Opens a socket, sends `frames` (all at once, or each after the previous answer), collects. */
function live(url: string, frames: Buffer[], mode: 'burst' | 'paced', until = frames.length): Promise<LiveRun> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    const answers: any[] = [];
    let next = 0;
    const send = () => { if (next < frames.length) ws.send(frames[next++]); };
    ws.on('open', () => { if (mode === 'burst') frames.forEach(() => send()); else send(); });
    ws.on('message', (d) => {
      answers.push(JSON.parse(d.toString()));
      if (mode === 'paced') send();
      if (answers.length >= until) ws.close(1000);
    });
    ws.on('close', (code) => resolve({ answers, code }));
    ws.on('error', reject);
  });
}

describe('live socket /v1/live', function () {
  let srv: TestServer;
  let store: SqliteStore;
  let jpeg: Buffer;
  const wsUrl = (q: string) => `${srv.url.replace('http', 'ws')}/v1/live?${q}`;
  const used = (id: string) => store.usage(id, currentPeriod(dayOf(Date.now()), Date.now()).start);

  before(async () => {
    store = new SqliteStore(path.join(tempDir('live'), 'dotcode.sqlite'));
    srv = await testServer({ store });
    // a camera-like frame: the sample code on a 1280x720 JPEG
    jpeg = await sharp({ create: { width: 1280, height: 720, channels: 3, background: '#ffffff' } })
      .composite([{ input: DOTCODE_PNG, left: 360, top: 150 }]).jpeg({ quality: 90 }).toBuffer();
  });
  after(async () => { await srv.close(); await store.close(); });

  it('answers each frame in order; each decoded frame costs one scan', async () => {
    const c = await customer(store, 100);
    const r = await live(wsUrl(`api_key=${c.key}&format=DotCode`), [jpeg, jpeg, jpeg], 'paced');
    assert.equal(r.answers.length, 3);
    for (const a of r.answers) {
      assert.equal(a.ok, true, JSON.stringify(a));
      assert.equal(a.text, 'Hello from DotCode Reader');
      // SPEC 2.1 plus the socket's FrameReader (docs/api.md): frames_used, new
      assert.deepEqual(Object.keys(a), ['ok', 'text', 'format', 'via', 'elapsed_ms', 'error', 'gs1', 'frames_used', 'new']);
      assert.equal(a.frames_used, 1, 'each frame reads the clean sample alone');
    }
    // the symbol stays in view: reported new once, not per frame
    assert.deepEqual(r.answers.map((a) => a.new), [true, false, false]);
    assert.equal(await used(c.id), 3);
  });

  it('frames faster than decoding are answered frame_dropped, in order, and cost nothing', async () => {
    const c = await customer(store, 100);
    const r = await live(wsUrl(`api_key=${c.key}`), Array(12).fill(jpeg), 'burst');
    assert.equal(r.answers.length, 12);
    const dropped = r.answers.filter((a) => a.error === 'frame_dropped').length;
    const read = r.answers.filter((a) => a.ok).length;
    assert.ok(dropped > 0, 'a burst of 12 frames must drop some');
    assert.equal(read + dropped, 12);
    assert.equal(r.answers[0].ok, true, 'the first frame is always decoded');
    assert.equal(r.answers[11].ok, true, 'the newest frame is decoded');
    assert.equal(await used(c.id), read);
  });

  it('quota exhaustion is answered, then the socket closes with 4402', async () => {
    const c = await customer(store, 2);
    const r = await live(wsUrl(`api_key=${c.key}`), [jpeg, jpeg, jpeg, jpeg], 'paced', 99);
    assert.equal(r.code, 4402);
    assert.deepEqual(r.answers.map((a) => a.ok ? 'ok' : a.error), ['ok', 'ok', 'quota_exhausted']);
    assert.equal(await used(c.id), 2);
  });

  it('a bad or missing key closes with 4401; a bad format with 4400', async () => {
    const c = await customer(store, 5);
    assert.equal((await live(wsUrl('api_key=dck_nope'), [jpeg], 'burst', 99)).code, 4401);
    assert.equal((await live(wsUrl(''), [jpeg], 'burst', 99)).code, 4401);
    assert.equal((await live(wsUrl(`api_key=${c.key}&format=EAN`), [jpeg], 'burst', 99)).code, 4400);
    assert.equal(await used(c.id), 0);
  });
});

describe('SDK endpoints: register, usage, download', function () {
  let srv: TestServer;
  let store: SqliteStore;
  let dataDir: string;
  const lic = (features: string[], extra: Partial<{ seats: number; issued: string; expires: string }> = {}) =>
    issueLicense(store, dataDir, { org: 'Acme', plan: 'edge', seats: extra.seats ?? 2, features, issued: extra.issued, expires: extra.expires });
  const auth = (k: string) => ({ Authorization: `License ${k}`, 'Content-Type': 'application/json' });
  const json = (o: unknown) => Buffer.from(JSON.stringify(o));

  before(async () => {
    dataDir = tempDir('sdk');
    initKeys(dataDir);
    store = new SqliteStore(path.join(dataDir, 'dotcode.sqlite'));
    srv = await testServer({ store, dataDir });
  });
  after(async () => { await srv.close(); await store.close(); });

  it('register enforces the seat count (409 seat_limit_reached); a registered machine renews', async () => {
    const { license_key: k } = await lic(['sdk']);
    const reg = (m: string) => request(`${srv.url}/v1/sdk/register`, { body: json({ machine_id: m, hostname: 'h', platform: 'linux', sdk_version: '0.1.0' }), headers: auth(k) });
    const a = await reg('m1');
    assert.deepEqual(a.body, { ok: true, machine_id: 'm1', seats: 2, seats_used: 1 });
    documented('/v1/sdk/register', 'POST', a);
    assert.equal((await reg('m2')).body.seats_used, 2);
    const full = await reg('m3');
    assert.equal(full.status, 409);
    assert.equal(full.body.error, 'seat_limit_reached');
    assert.match(full.body.message, /seat limit reached/);
    documented('/v1/sdk/register', 'POST', full);
    assert.equal((await reg('m1')).status, 200);
  });

  it('usage reports count once per report_id', async () => {
    const { license_id: lid, license_key: k } = await lic(['sdk']);
    await request(`${srv.url}/v1/sdk/register`, { body: json({ machine_id: 'm1' }), headers: auth(k) });
    const rep = (id: string, scans: number) => request(`${srv.url}/v1/sdk/usage`, { body: json({ machine_id: 'm1', scans, report_id: id }), headers: auth(k) });
    assert.deepEqual((await rep('r1', 5)).body, { ok: true });
    await rep('r1', 5);
    await rep('r2', 1);
    const [m] = await store.listMachines(lid);
    assert.equal(m.scans, 6);
  });

  it('a usage report is the heartbeat: it takes a free seat for an unregistered machine, else 409', async () => {
    const { license_id: lid, license_key: k } = await lic(['sdk'], { seats: 1 });
    const rep = (m: string, id: string) => request(`${srv.url}/v1/sdk/usage`, { body: json({ machine_id: m, scans: 2, report_id: id }), headers: auth(k) });
    assert.equal((await rep('a', 'r1')).status, 200);
    assert.deepEqual((await store.listMachines(lid)).map((x) => [x.machineId, x.scans]), [['a', 2]]);
    const full = await rep('b', 'r2');
    assert.deepEqual([full.status, full.body.error], [409, 'seat_limit_reached']);
    documented('/v1/sdk/usage', 'POST', full);
  });

  it('licence refusals: 401 invalid, 403 revoked / expired / not licensed', async () => {
    const reg = (k: string) => request(`${srv.url}/v1/sdk/register`, { body: json({ machine_id: 'x' }), headers: auth(k) });
    const bad = await reg('DC1.garbage.garbage');
    assert.deepEqual([bad.status, bad.body.error], [401, 'invalid_license']);
    const scannerOnly = await lic(['scanner']);
    assert.deepEqual([(await reg(scannerOnly.license_key)).status, (await reg(scannerOnly.license_key)).body.error], [403, 'feature_not_licensed']);
    const old = await lic(['sdk'], { issued: '2020-01-01', expires: '2021-01-01' });
    const ex = await reg(old.license_key);
    assert.deepEqual([ex.status, ex.body.error], [403, 'license_expired']);
    documented('/v1/sdk/register', 'POST', ex);
    const rv = await lic(['sdk']);
    await revokeLicense(store, rv.license_id);
    assert.equal((await reg(rv.license_key)).body.error, 'license_revoked');
  });

  it('download: the stamped tarball for an sdk licence; JSON refusals otherwise; key never logged', async function () {
    this.timeout(120000);
    const good = await lic(['sdk']);
    const a = await request(`${srv.url}/v1/sdk/download?key=${encodeURIComponent(good.license_key)}`);
    assert.equal(a.status, 200, JSON.stringify(a.body).slice(0, 300));
    const version = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', '..', 'package.json'), 'utf8')).version;
    assert.equal(a.headers['content-disposition'], `attachment; filename="dotcode-sdk-${version}.tgz"`);
    const dir = tempDir('tgz');
    fs.writeFileSync(path.join(dir, 'sdk.tgz'), a.raw);
    execFileSync('tar', ['xzf', 'sdk.tgz'], { cwd: dir });
    const stamp = JSON.parse(fs.readFileSync(path.join(dir, 'package', 'supplier.json'), 'utf8'));
    const pub = fs.readFileSync(path.join(dataDir, 'supplier', 'public-key.pem'), 'utf8');
    assert.equal(stamp.keys.length, 1);
    assert.equal(stamp.keys[0].publicKey.trim(), pub.trim());
    assert.equal(stamp.url, srv.url);
    // The served package is the consumer package of tools/pack-sdk.js: a prebuilt addon (nothing
    // to compile at install), no workspaces, no dev dependencies, no server code.
    const served = JSON.parse(fs.readFileSync(path.join(dir, 'package', 'package.json'), 'utf8'));
    assert.equal(served.workspaces, undefined);
    assert.equal(served.devDependencies, undefined);
    assert.deepEqual(served.scripts, { install: 'node tools/install-addon.js' });
    assert.ok(fs.readdirSync(path.join(dir, 'package', 'prebuilds', 'linux-x64')).some((f) => f.endsWith('.node')));
    assert.ok(!fs.existsSync(path.join(dir, 'package', 'dist', 'server')));

    const refusals: [string, number, string][] = [
      ['not-a-key', 401, 'invalid_license'],
      [(await lic(['scanner'])).license_key, 403, 'feature_not_licensed'],
      [(await lic(['sdk'], { issued: '2020-01-01', expires: '2021-01-01' })).license_key, 403, 'license_expired'],
    ];
    for (const [k, status, code] of refusals) {
      const r = await request(`${srv.url}/v1/sdk/download?key=${encodeURIComponent(k)}`);
      assert.deepEqual([r.status, r.body.error], [status, code]);
      documented('/v1/sdk/download', 'GET', r);
    }
    const log = fs.readFileSync(srv.logFile, 'utf8');
    assert.ok(log.includes('/v1/sdk/download?key=[redacted]'));
    assert.ok(!log.includes(good.license_key.slice(4, 40)), 'licence key leaked into the log');
  });
});

describe('OpenAPI document vs the running server', function () {
  let srv: TestServer;
  before(async () => { srv = await testServer({ store: new SqliteStore(':memory:') }); });
  after(async () => { await srv.close(); await srv.deps.store.close(); });

  it('describes exactly the routes the server has, and is served at /openapi.json', async () => {
    const doc = (await request(`${srv.url}/openapi.json`)).body;
    assert.equal(doc.openapi, '3.1.0');
    const documentedOps = new Set<string>();
    for (const [p, ops] of Object.entries<any>(doc.paths)) for (const m of Object.keys(ops)) documentedOps.add(`${m.toUpperCase()} ${p}`);
    const served = new Set<string>();
    for (const layer of (srv.app.router as any).stack) {
      for (const m of layer.methods as string[]) if (m !== 'HEAD') served.add(`${m} ${layer.path}`);
    }
    assert.deepEqual([...served].sort(), [...documentedOps].sort());
    // each documented route answers something other than 404 on the live server
    for (const op of documentedOps) {
      const [method, p] = op.split(' ');
      const r = await request(`${srv.url}${p}`, { method, body: method === 'POST' ? Buffer.alloc(0) : undefined });
      assert.notEqual(r.status, 404, op);
      documented(p, method, r);
    }
    // every $ref resolves
    const text = JSON.stringify(doc);
    for (const m of text.matchAll(/"\$ref":"#\/components\/(\w+)\/([\w-]+)"/g)) {
      assert.ok(doc.components[m[1]]?.[m[2]], `dangling $ref ${m[0]}`);
    }
  });
});
