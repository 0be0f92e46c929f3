// Data written by an older server still reads right: before issue 15 a Live Scanner device kept
// its read count in its machine record's info (`info.scans`, a string); it is now the record's
// `scans` count, like an SDK machine's reports. A real SQLite file of the old layout must open,
// and a Redis record of the old layout must read and migrate.
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import Redis from 'ioredis';
import { SqliteStore } from '../../server/src/store/sqlite';
import { RedisStore } from '../../server/src/store/redis';
import { REDIS_URL, redisAvailable, tempDir, testPrefix } from './helpers';

const T0 = Date.parse('2025-03-10T12:00:00Z');

describe('stores: a Live Scanner count of an older version', () => {
  it('SQLite: an old file opens; the count moves from info.scans to scans, once', async () => {
    const file = path.join(tempDir('migrate'), 'dotcode.sqlite');
    const old = new Database(file);
    // the machines table exactly as the previous release created it
    old.exec(`CREATE TABLE machines (
      license_id TEXT NOT NULL, machine_id TEXT NOT NULL, kind TEXT NOT NULL, info TEXT NOT NULL,
      first_seen INTEGER NOT NULL, last_seen INTEGER NOT NULL, lease_until INTEGER NOT NULL,
      scans INTEGER NOT NULL DEFAULT 0,
      PRIMARY KEY (license_id, kind, machine_id));`);
    old.prepare('INSERT INTO machines VALUES (?,?,?,?,?,?,?,?)').run('lic1', 'device-0001', 'scanner', JSON.stringify({ name: 'Chrome on Android', scans: '7' }), T0, T0, T0, 0);
    old.prepare('INSERT INTO machines VALUES (?,?,?,?,?,?,?,?)').run('lic1', 'sdk-0001', 'sdk', JSON.stringify({ hostname: 'edge' }), T0, T0, T0, 12);
    old.close();

    for (let open = 0; open < 2; open++) { // opening twice must not count twice
      const store = new SqliteStore(file);
      const m = await store.listMachines('lic1');
      assert.deepEqual(m.map((x) => [x.kind, x.scans, x.info]), [
        ['scanner', 7, { name: 'Chrome on Android' }],
        ['sdk', 12, { hostname: 'edge' }],
      ]);
      await store.close();
    }
    const store = new SqliteStore(file);
    await store.recordMachineUsage('lic1', 'device-0001', 'r1', 3, T0 + 1000, 'scanner');
    assert.equal((await store.listMachines('lic1')).find((x) => x.kind === 'scanner')?.scans, 10);
    await store.close();
  });

  it('Redis: an old record reads with its count, and the next seat renewal moves it', async function () {
    if (!(await redisAvailable())) this.skip();
    const prefix = testPrefix();
    const raw = new Redis(REDIS_URL);
    const store = await RedisStore.connect(REDIS_URL, { prefix });
    try {
      // the hash and index exactly as the previous release's seat script wrote them
      await raw.hset(`${prefix}mach:lic1:scanner:device-0001`, 'first_seen', T0, 'scans', 0, 'last_seen', T0,
        'info', JSON.stringify({ name: 'Firefox on Linux', scans: '5' }), 'kind', 'scanner', 'machine_id', 'device-0001');
      await raw.sadd(`${prefix}machines:lic1`, 'scanner:device-0001');
      const before = (await store.listMachines('lic1'))[0];
      assert.deepEqual([before.scans, before.info], [5, { name: 'Firefox on Linux' }]);
      assert.equal((await store.acquireSeat('lic1', 'device-0001', 'scanner', 2, { name: 'Firefox on Linux' }, 60_000, T0 + 1000)).ok, true);
      await store.recordMachineUsage('lic1', 'device-0001', 'r1', 2, T0 + 2000, 'scanner');
      const after = (await store.listMachines('lic1'))[0];
      assert.deepEqual([after.scans, after.info], [7, { name: 'Firefox on Linux' }]);
    } finally {
      await store.dropAll();
      await store.close();
      raw.disconnect();
    }
  });
});
