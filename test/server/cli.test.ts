// `dotcode admin ...` through the real command (bin/dotcode.js -> lib/cli -> server/src/cli),
// then the server started on the same data folder honours what the commands did.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DOTCODE_PNG, request, tempDir, testServer } from './helpers';

const BIN = path.resolve(__dirname, '..', '..', '..', 'bin', 'dotcode.js');

function dotcode(args: string[], env: Record<string, string> = {}): { code: number; out: string; err: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, REDIS_URL: '', ...env } });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

describe('dotcode admin (command line)', function () {
  const data = tempDir('cli');

  it('init makes a 0600 signing key and refuses to overwrite it', () => {
    const a = dotcode(['admin', 'init', '--data', data]);
    assert.equal(a.code, 0, a.err);
    assert.equal(fs.statSync(path.join(data, 'supplier', 'signing-key.pem')).mode & 0o777, 0o600);
    const again = dotcode(['admin', 'init', '--data', data]);
    assert.equal(again.code, 1);
    assert.match(again.err, /already exists/);
  });

  it('customer create, apikey rotate, license issue/revoke; the server honours them', async () => {
    const cust = dotcode(['admin', 'customer', 'create', '--name', 'Acme', '--quota', '7', '--signup', '2025-01-31', '--json'], { DOTCODE_DATA: data });
    assert.equal(cust.code, 0, cust.err);
    const c = JSON.parse(cust.out);
    assert.deepEqual(Object.keys(c), ['customer_id', 'api_key']);
    const free = JSON.parse(dotcode(['admin', 'customer', 'create', '--name', 'Free Co', '--json', '--data', data]).out);

    const lic = dotcode(['admin', 'license', 'issue', '--org', 'Acme', '--plan', 'edge', '--seats', '3', '--features', 'sdk,scanner', '--days', '30', '--json', '--data', data]);
    assert.equal(lic.code, 0, lic.err);
    const l = JSON.parse(lic.out);
    assert.deepEqual(Object.keys(l), ['license_id', 'license_key']);
    assert.match(l.license_key, /^DC1\./);

    const srv = await testServer({ dataDir: data });
    try {
      const u = await request(`${srv.url}/v1/usage`, { headers: { 'X-API-Key': c.api_key } });
      assert.equal(u.body.quota, 7);
      assert.equal((await request(`${srv.url}/v1/usage`, { headers: { 'X-API-Key': free.api_key } })).body.quota, 500, 'free plan: 500');
      const reg = () => request(`${srv.url}/v1/sdk/register`, { body: Buffer.from('{"machine_id":"m1"}'), headers: { Authorization: `License ${l.license_key}` } });
      assert.equal((await reg()).status, 200);

      // SQLite WAL: the admin command writes while the server runs
      const rot = dotcode(['admin', 'apikey', 'rotate', c.customer_id, '--json', '--data', data]);
      assert.equal(rot.code, 0, rot.err);
      const fresh = JSON.parse(rot.out).api_key;
      assert.equal((await request(`${srv.url}/v1/decode`, { body: DOTCODE_PNG, headers: { 'X-API-Key': c.api_key } })).status, 401);
      assert.equal((await request(`${srv.url}/v1/decode`, { body: DOTCODE_PNG, headers: { 'X-API-Key': fresh } })).status, 200);

      assert.equal(dotcode(['admin', 'license', 'revoke', l.license_id, '--data', data]).code, 0);
      const after = await reg();
      assert.deepEqual([after.status, after.body.error], [403, 'license_revoked']);
    } finally {
      await srv.close();
    }
  });

  it('usage errors exit 2 with a message; stamp writes supplier.json into a package folder', () => {
    const bad = dotcode(['admin', 'customer', 'create', '--data', data]);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--name is required/);
    assert.equal(dotcode(['admin', 'license', 'issue', '--org', 'x', '--plan', 'p', '--seats', '1', '--features', 'cloud', '--data', data]).code, 2);
    const pkg = tempDir('pkg');
    const st = dotcode(['admin', 'stamp', '--data', data, '--url', 'https://dc.example', pkg]);
    assert.equal(st.code, 0, st.err);
    const stamp = JSON.parse(fs.readFileSync(path.join(pkg, 'supplier.json'), 'utf8'));
    assert.equal(stamp.url, 'https://dc.example');
    assert.equal(stamp.keys.length, 1);
  });
});
