// Issue 16, item 6: what a new operator hits. The admin gaps (no `customer list`, `--quota 5`
// leaving the plan "free"), the refusals whose message pointed the wrong way (a doubled `key`
// on the download), and the portal calling a revoked licence "valid"; the docs are checked for the
// statements the issue found missing or wrong.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { issueLicense, revokeLicense } from '../../../server/src/admin';
import { request } from '../../server/helpers';
import { BIN, closeServed, eachStore, openServed, type Place, type Served } from './serve';
import { REDIS_URL } from '../../server/helpers';
import type { Store } from '../../../server/src/store/types';

const DOCS = path.resolve(__dirname, '..', '..', '..', '..', 'docs');

function admin(p: Place, args: string[]): { code: number; out: string; err: string } {
  const storeArgs = p.store === 'redis' ? ['--redis', REDIS_URL, '--redis-prefix', p.prefix] : [];
  const r = spawnSync(process.execPath, [BIN, 'admin', ...args, '--data', p.dataDir, ...storeArgs], { encoding: 'utf8', env: { ...process.env, REDIS_URL: '' } });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

eachStore('operator: admin customer list, custom quotas, revoked state, doubled key', (storeName) => {
  let p: Place;
  let store: Store;
  let s: Served;

  before(async () => ({ p, store, s } = await openServed(storeName)));
  after(() => closeServed(p, store, s));

  it('admin customer list shows every customer with the id apikey rotate needs, never a key; --quota alone makes a custom plan', () => {
    const a = JSON.parse(admin(p, ['customer', 'create', '--name', 'Acme', '--quota', '5', '--json']).out);
    const b = JSON.parse(admin(p, ['customer', 'create', '--name', 'Free Co', '--json']).out);
    const list = admin(p, ['customer', 'list', '--json']);
    assert.equal(list.code, 0, list.err);
    const rows = JSON.parse(list.out) as { customer_id: string; name: string; plan: string; quota: number }[];
    assert.deepEqual(rows.map((r) => [r.customer_id, r.name, r.plan, r.quota]), [[a.customer_id, 'Acme', 'custom', 5], [b.customer_id, 'Free Co', 'free', 500]]);
    assert.ok(!list.out.includes(a.api_key.slice(4)) && !list.out.includes('key_hash'), 'a key or its hash in the listing');
    const human = admin(p, ['customer', 'list']);
    assert.match(human.out, new RegExp(`${a.customer_id}\\tcustom\\t5\\t`));
    const rot = admin(p, ['apikey', 'rotate', a.customer_id, '--json']);
    assert.equal(rot.code, 0, rot.err);
  });

  it('the portal says state "revoked" for a revoked licence; a doubled download key is named as such', async () => {
    const l = await issueLicense(store, p.dataDir, { org: 'Revoked Co', plan: 'edge', seats: 1, features: ['sdk'] });
    await revokeLicense(store, l.license_id);
    const r = await request(`${s.url}/v1/portal/session`, { headers: { 'Content-Type': 'application/json' }, body: Buffer.from(JSON.stringify({ key: l.license_key })) });
    assert.equal(r.status, 200);
    assert.equal(r.body.license.state, 'revoked');
    assert.equal(r.body.license.revoked, true);
    const k = encodeURIComponent(l.license_key);
    const d = await request(`${s.url}/v1/sdk/download?key=${k}&key=${k}`);
    assert.equal(d.status, 400);
    assert.equal(d.body.error, 'invalid_parameter');
    assert.match(d.body.message, /more than once/);
  });
});

describe('operator docs (docs/api.md, docs/scanner.md)', () => {
  const api = fs.readFileSync(path.join(DOCS, 'api.md'), 'utf8');
  it('the download example fails on an error instead of saving it as the tarball', () => {
    assert.match(api, /curl -f\w*OJ/);
    assert.doesNotMatch(api, /curl -s -OJ/);
  });
  it('the error table lists invalid_parameter, 404 not_found, 405 method_not_allowed and the socket\'s binary_frames_only', () => {
    const table = api.slice(api.indexOf('## Errors'), api.indexOf('## Quota periods'));
    for (const code of ['invalid_parameter', 'not_found', 'method_not_allowed', 'binary_frames_only', 'too_many_sockets']) {
      assert.ok(table.includes(`\`${code}\``), `${code} missing from the error table`);
    }
    assert.match(table, /\| 404 \|/);
    assert.match(table, /\| 405 \|/);
  });
  it('says how to get a licence key and a customer id, and that a plain server is ws://', () => {
    assert.match(api, /dotcode admin license issue/);
    assert.match(api, /dotcode admin customer list/);
    assert.match(api, /ws:\/\/[^\s]*\/v1\/live/);
  });
});
