// Issue 16, item 3: /v1/sdk/download packed a new tarball for every Host header (about 0.6 s of
// CPU and 322 KB of disk each, no rate limit, no cache bound) and stamped the requester's Host
// into it when no public URL was configured. Now the URL is fixed at start (--public-url, or the
// listening address), downloads are budgeted per licence, and the cache keeps a few tarballs.
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { initKeys, issueLicense } from '../../../server/src/admin';
import { request, tempDir } from '../../server/helpers';
import { dropPlace, eachStore, openPlace, place, serve, type Place, type Served } from './serve';
import type { Store } from '../../../server/src/store/types';

/** The URL stamped into a downloaded tarball (package/supplier.json). */
function stampedUrl(tgz: Buffer): string {
  const dir = tempDir('dl');
  fs.writeFileSync(path.join(dir, 'sdk.tgz'), tgz);
  return JSON.parse(execFileSync('tar', ['-xzOf', path.join(dir, 'sdk.tgz'), 'package/supplier.json'], { encoding: 'utf8' })).url;
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

eachStore('SDK download: URL from configuration, budget per licence, bounded cache', (storeName) => {
  let p: Place;
  let store: Store;
  let s: Served;
  let lk: string;
  let other: string;

  before(async function () {
    this.timeout(60_000);
    p = place(storeName);
    initKeys(p.dataDir);
    store = await openPlace(p);
    lk = (await issueLicense(store, p.dataDir, { org: 'Hostile', plan: 'edge', seats: 1, features: ['sdk'] })).license_key;
    other = (await issueLicense(store, p.dataDir, { org: 'Other', plan: 'edge', seats: 1, features: ['sdk'] })).license_key;
    s = await serve(p, [], { DOTCODE_DOWNLOAD_LIMIT: '3/3600000' });
  });
  after(async () => { await s?.stop(); if (store) await dropPlace(p, store); });

  it('without --public-url: every Host header gets the same tarball, stamped with the address fixed at start; one cache entry', async function () {
    this.timeout(180_000);
    const got: Buffer[] = [];
    for (const host of ['evil.example', 'other.example:1234']) {
      const r = await request(`${s.url}/v1/sdk/download?key=${encodeURIComponent(lk)}`, { headers: { Host: host } });
      assert.equal(r.status, 200, String(r.body).slice(0, 300));
      got.push(r.raw);
    }
    assert.equal(sha(got[0]), sha(got[1]), 'a new tarball per Host header');
    assert.equal(stampedUrl(got[0]), s.url, 'the stamp came from the request');
    assert.deepEqual(fs.readdirSync(path.join(p.dataDir, 'sdk-cache')).filter((f) => f.endsWith('.tgz')).length, 1);
  });

  it('past the licence\'s download budget: 429 with Retry-After; another licence is not affected', async () => {
    const third = await request(`${s.url}/v1/sdk/download?key=${encodeURIComponent(lk)}`);
    assert.equal(third.status, 200);
    const fourth = await request(`${s.url}/v1/sdk/download?key=${encodeURIComponent(lk)}`);
    assert.equal(fourth.status, 429, String(fourth.body).slice(0, 200));
    assert.equal(fourth.body.error, 'rate_limited');
    assert.ok(Number(fourth.headers['retry-after']) > 0);
    assert.equal((await request(`${s.url}/v1/sdk/download?key=${encodeURIComponent(other)}`)).status, 200);
  });

  it('with --public-url the stamp is that URL whatever the Host; the cache keeps the newest few tarballs', async function () {
    this.timeout(180_000);
    const q = place(storeName, p.dataDir);
    q.prefix = p.prefix;
    // stale tarballs of earlier builds (other versions, keys, URLs)
    const cache = path.join(p.dataDir, 'sdk-cache');
    for (let i = 0; i < 6; i++) {
      const f = path.join(cache, `dotcode-sdk-0.0.${i}-stale.tgz`);
      fs.writeFileSync(f, 'old');
      fs.utimesSync(f, new Date(Date.now() - 3600_000 * (i + 1)), new Date(Date.now() - 3600_000 * (i + 1)));
    }
    const plain = await serve(q, ['--public-url', 'https://sdk.example.test'], { DOTCODE_DOWNLOAD_LIMIT: '' });
    try {
      const r = await request(`${plain.url}/v1/sdk/download?key=${encodeURIComponent(other)}`, { headers: { Host: 'attacker.example' } });
      assert.equal(r.status, 200);
      assert.equal(stampedUrl(r.raw), 'https://sdk.example.test');
      const left = fs.readdirSync(cache).filter((f) => f.endsWith('.tgz'));
      assert.equal(left.length, 4, `cache not bounded: ${left.join(', ')}`);
      assert.ok(!left.includes('dotcode-sdk-0.0.5-stale.tgz'), 'the oldest entry should go first');
    } finally {
      await plain.stop();
    }
  });
});
