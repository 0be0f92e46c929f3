// Issue 16, item 5: the smaller bounds, each replayed against a real `dotcode serve`.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import WebSocket from 'ws';
import { initKeys, issueLicense } from '../../../server/src/admin';
import { request, tempDir } from '../../server/helpers';
import { closeServed, eachStore, newCustomer, openPlace, openServed, place, serve, type Place, type Served } from './serve';
import type { Store } from '../../../server/src/store/types';

interface Closed { code: number; last: Record<string, unknown> | null }

function openLive(url: string): Promise<{ ws: WebSocket; closed: Promise<Closed> }> {
  const ws = new WebSocket(url);
  let last: Record<string, unknown> | null = null;
  ws.on('message', (d) => { try { last = JSON.parse(String(d)); } catch { /* not JSON */ } });
  const closed = new Promise<Closed>((resolve) => ws.on('close', (code) => resolve({ code, last })));
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ ws, closed }));
    ws.once('error', reject);
  });
}

describe('hostile limits: live sockets, messages, file modes [sqlite]', function () {
  let p: Place;
  let store: Store;
  let s: Served;

  before(async () => {
    // `serve` runs first on a data folder nobody made yet (no `admin init`)
    p = place('sqlite', path.join(tempDir('hostile-modes'), 'data'));
    s = await serve(p);
    store = await openPlace(p);
  });
  after(() => closeServed(p, store, s));

  it('serve before admin init makes the data folder 0700 and the SQLite files 0600', () => {
    assert.equal(fs.statSync(p.dataDir).mode & 0o777, 0o700);
    for (const f of fs.readdirSync(p.dataDir).filter((n) => n.startsWith('dotcode.sqlite'))) {
      assert.equal(fs.statSync(path.join(p.dataDir, f)).mode & 0o777, 0o600, f);
    }
  });

  it('the live socket without a key says to use ?api_key=, not the header; a doubled api_key is named', async () => {
    const a = await openLive(`${s.url.replace('http', 'ws')}/v1/live`);
    const ca = await a.closed;
    assert.equal(ca.code, 4401);
    assert.match(String(ca.last?.message), /\?api_key=/);
    assert.doesNotMatch(String(ca.last?.message), /X-API-Key header\.$/);
    const { key } = await newCustomer(store, 10);
    const b = await openLive(`${s.url.replace('http', 'ws')}/v1/live?api_key=${key}&api_key=${key}`);
    const cb = await b.closed;
    assert.equal(cb.code, 4400);
    assert.match(String(cb.last?.message), /more than once/);
  });

  it('a key holds at most 8 live sockets at once; another key is not affected; closing one frees a slot', async () => {
    const { key } = await newCustomer(store, 10);
    const other = (await newCustomer(store, 10)).key;
    const live = (k: string) => openLive(`${s.url.replace('http', 'ws')}/v1/live?api_key=${k}`);
    const held = [];
    for (let i = 0; i < 8; i++) held.push(await live(key));
    // the answer comes after the key check: a socket still open then was admitted
    await new Promise((r) => setTimeout(r, 200));
    const ninth = await live(key);
    const c9 = await ninth.closed;
    assert.equal(c9.code, 4429);
    assert.equal(c9.last?.error, 'too_many_sockets');
    const o = await live(other);
    held[0].ws.close();
    await held[0].closed;
    const again = await live(key);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(again.ws.readyState, WebSocket.OPEN, 'a freed slot is usable');
    for (const h of [...held.slice(1), o, again]) h.ws.terminate();
  });

  it('a download client that disconnects leaves JSON log lines only, no raw stack on stderr', async function () {
    this.timeout(120_000);
    initKeys(p.dataDir);
    const lk = (await issueLicense(store, p.dataDir, { org: 'Hostile', plan: 'edge', seats: 1, features: ['sdk'] })).license_key;
    const url = `${s.url}/v1/sdk/download?key=${encodeURIComponent(lk)}`;
    assert.equal((await request(url)).status, 200); // built and cached
    for (let i = 0; i < 5; i++) {
      // hang up as soon as the answer starts, with most of the tarball still to come
      await new Promise<void>((resolve) => {
        const req = http.get(url, { agent: false }, (res) => { res.once('data', () => { req.destroy(); resolve(); }); });
        req.on('error', () => resolve());
      });
    }
    await new Promise((r) => setTimeout(r, 500));
    assert.ok(s.alive());
    assert.doesNotMatch(s.stderr(), /ERR_STREAM_PREMATURE_CLOSE|\n\s+at /, `raw stack on stderr:\n${s.stderr()}`);
    for (const line of s.stdout().split('\n').filter(Boolean)) JSON.parse(line);
  });
});

eachStore('hostile limits: SDK usage reports, sign-in behind a proxy', (storeName) => {
  let p: Place;
  let store: Store;
  let s: Served;

  before(async () => ({ p, store, s } = await openServed(storeName, ['--trust-proxy'])));
  after(() => closeServed(p, store, s));

  it('SDK usage reports refuse absurd integers; the portal\'s sums stay exact', async () => {
    const lk = (await issueLicense(store, p.dataDir, { org: 'Hostile', plan: 'edge', seats: 2, features: ['sdk'] })).license_key;
    const post = (route: string, body: unknown) => request(`${s.url}${route}`, {
      headers: { Authorization: `License ${lk}`, 'Content-Type': 'application/json' }, body: Buffer.from(JSON.stringify(body)) });
    assert.equal((await post('/v1/sdk/register', { machine_id: 'hostile-machine-1' })).status, 200);
    for (const [i, scans] of [Number.MAX_SAFE_INTEGER, 1e9 + 1, 1e15].entries()) {
      const r = await post('/v1/sdk/usage', { machine_id: 'hostile-machine-1', report_id: `big-${i}`, scans });
      assert.equal(r.status, 400, `${scans}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.error, 'invalid_parameter');
    }
    for (const [i, scans] of [1e9, 1e9, 7].entries()) {
      assert.equal((await post('/v1/sdk/usage', { machine_id: 'hostile-machine-1', report_id: `ok-${i}`, scans })).status, 200);
    }
    const portal = await request(`${s.url}/v1/portal/session`, { headers: { 'Content-Type': 'application/json' }, body: Buffer.from(JSON.stringify({ key: lk })) });
    assert.equal(portal.status, 200);
    assert.equal(portal.body.machines[0].scans, 2e9 + 7);
  });

  it('--trust-proxy: portal sign-in is limited per forwarded client, not per balancer', async () => {
    const signIn = (xff: string) => request(`${s.url}/v1/portal/session`, {
      headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': xff }, body: Buffer.from('{"key":"dck_wrong"}') });
    let limited = 0;
    for (let i = 0; i < 31; i++) if ((await signIn('203.0.113.7')).status === 429) limited++;
    assert.equal(limited, 1, 'the 31st attempt of one client is limited');
    // a second customer behind the same balancer still signs in (401: the key is wrong, not 429)
    assert.equal((await signIn('198.51.100.9')).status, 401);
    // a client cannot pick its own address: the balancer's entry (the last) is the one used
    assert.equal((await signIn('198.51.100.77, 203.0.113.7')).status, 429);
  });
});
