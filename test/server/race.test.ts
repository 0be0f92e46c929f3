// The quota never overruns: 10 scans left, 50 concurrent decodes -> exactly 10 x 200 and 40 x 402,
// and `used` ends at the quota. For SQLite, for Redis, and for two server processes sharing Redis.
import { strict as assert } from 'node:assert';
import { customer, DOTCODE_PNG, forEachStore, REDIS_URL, redisAvailable, request, serveProcess, stopProcess, tempDir, testPrefix, testServer } from './helpers';
import { RedisStore } from '../../server/src/store/redis';
import { SqliteStore } from '../../server/src/store/sqlite';
import { currentPeriod, dayOf } from '../../server/src/store/period';
import type { Store } from '../../server/src/store/types';

const QUOTA = 25;

async function tenLeft(store: Store): Promise<{ id: string; key: string; period: string }> {
  const c = await customer(store, QUOTA);
  const period = currentPeriod(dayOf(Date.now()), Date.now()).start;
  for (let i = 0; i < QUOTA - 10; i++) assert.equal((await store.reserveScan(c.id, period, dayOf(Date.now()), QUOTA)).ok, true);
  return { ...c, period };
}

async function burst(urls: string[], key: string): Promise<number[]> {
  const answers = await Promise.all(Array.from({ length: 50 }, (_, i) =>
    request(`${urls[i % urls.length]}/v1/decode`, { body: DOTCODE_PNG, headers: { 'X-API-Key': key } })));
  for (const a of answers) if (a.status === 200) assert.equal(a.body.text, 'Hello from DotCode Reader');
  return answers.map((a) => a.status);
}

function tally(statuses: number[]): Record<number, number> {
  const t: Record<number, number> = {};
  for (const s of statuses) t[s] = (t[s] ?? 0) + 1;
  return t;
}

forEachStore('quota race', (kind) => {
  it('50 concurrent requests with 10 scans left: exactly 10 x 200, 40 x 402', async () => {
    const store = await kind.make();
    const srv = await testServer({ store, config: { rateLimit: { limit: 1000, windowMs: 1000 } } });
    try {
      const c = await tenLeft(store);
      assert.deepEqual(tally(await burst([srv.url], c.key)), { 200: 10, 402: 40 });
      assert.equal(await store.usage(c.id, c.period), QUOTA);
    } finally {
      await srv.close();
      await kind.dispose(store);
    }
  });
});

/** Two `dotcode serve` processes on one store: 50 requests for 10 scans give exactly 10x200 and 40x402. */
async function raceTwoProcesses(serveArgs: string[], store: Store): Promise<void> {
  const env = { DOTCODE_RATE_LIMIT: '1000/1000', DOTCODE_LOG_LEVEL: 'warn' };
  const servers = await Promise.all([serveProcess(serveArgs, env), serveProcess(serveArgs, env)]);
  try {
    const c = await tenLeft(store);
    assert.deepEqual(tally(await burst(servers.map((s) => s.url), c.key)), { 200: 10, 402: 40 });
    assert.equal(await store.usage(c.id, c.period), QUOTA);
  } finally {
    await Promise.all(servers.map((s) => stopProcess(s.child)));
  }
}

describe('quota race [sqlite, two server processes on one data folder]', function () {
  it('two processes sharing the SQLite file never overrun either', async () => {
    const dataDir = tempDir('two-sqlite');
    const store = new SqliteStore(`${dataDir}/dotcode.sqlite`);
    try {
      await raceTwoProcesses(['--data', dataDir], store);
    } finally {
      await store.close();
    }
  });
});

describe('quota race [redis, two server processes]', function () {
  before(async function () {
    if (!(await redisAvailable())) {
      console.log(`    NOTICE: no Redis answers at ${REDIS_URL}; skipping the two-process quota race`);
      this.skip();
    }
  });

  it('two processes sharing Redis never overrun either', async () => {
    const prefix = testPrefix();
    const store = await RedisStore.connect(REDIS_URL, { prefix });
    try {
      await raceTwoProcesses(['--redis', REDIS_URL, '--redis-prefix', prefix, '--data', tempDir('two')], store);
    } finally {
      await store.dropAll();
      await store.close();
    }
  });
});
