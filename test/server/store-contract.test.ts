// One contract suite, run against both stores (SQLite file, real Redis with its own prefix).
import { strict as assert } from 'node:assert';
import { forEachStore } from './helpers';
import { Store } from '../../server/src/store/types';
import { currentPeriod } from '../../server/src/store/period';
import { hashApiKey, newApiKey } from '../../server/src/store/keys';

const T0 = Date.parse('2025-03-10T12:00:00Z');

forEachStore('store contract', (kind) => {
  let store: Store;
  beforeEach(async () => { store = await kind.make(); });
  afterEach(async () => { await kind.dispose(store); });

  it('creates customers and finds them by key hash only', async () => {
    const key = newApiKey();
    await store.createCustomer({ id: 'c1', name: 'Acme', plan: 'free', quota: 500, signup: '2025-01-31' }, hashApiKey(key), T0);
    const c = await store.customerByKeyHash(hashApiKey(key));
    assert.deepEqual(c, { id: 'c1', name: 'Acme', plan: 'free', quota: 500, signup: '2025-01-31', createdAt: T0, keyHash: hashApiKey(key) });
    assert.equal(await store.customerByKeyHash(hashApiKey(key + ' ')), null);
    assert.equal((await store.getCustomer('c1'))?.name, 'Acme');
    assert.equal(await store.getCustomer('nope'), null);
  });

  it('lists every customer, oldest first', async () => {
    assert.deepEqual(await store.listCustomers(), []);
    await store.createCustomer({ id: 'c2', name: 'Later', plan: 'custom', quota: 5, signup: '2025-03-10' }, hashApiKey(newApiKey()), T0 + 1000);
    await store.createCustomer({ id: 'c1', name: 'First', plan: 'free', quota: 500, signup: '2025-03-10' }, hashApiKey(newApiKey()), T0);
    assert.deepEqual((await store.listCustomers()).map((c) => [c.id, c.name, c.plan, c.quota]), [['c1', 'First', 'free', 500], ['c2', 'Later', 'custom', 5]]);
  });

  it('rotating a key retires the old one at once', async () => {
    const k1 = newApiKey(), k2 = newApiKey();
    await store.createCustomer({ id: 'c1', name: 'A', plan: 'free', quota: 5, signup: '2025-01-01' }, hashApiKey(k1), T0);
    assert.equal(await store.setApiKeyHash('c1', hashApiKey(k2)), true);
    assert.equal(await store.customerByKeyHash(hashApiKey(k1)), null);
    assert.equal((await store.customerByKeyHash(hashApiKey(k2)))?.id, 'c1');
    assert.equal(await store.setApiKeyHash('ghost', hashApiKey(k2)), false);
  });

  it('reserves scans up to the quota and never past it, per period', async () => {
    for (let i = 1; i <= 3; i++) assert.deepEqual(await store.reserveScan('c1', '2025-03-01', '2025-03-10', 3), { ok: true, used: i });
    assert.deepEqual(await store.reserveScan('c1', '2025-03-01', '2025-03-10', 3), { ok: false, used: 3 });
    assert.equal(await store.usage('c1', '2025-03-01'), 3);
    // a new period starts from zero
    assert.deepEqual(await store.reserveScan('c1', '2025-04-01', '2025-04-01', 3), { ok: true, used: 1 });
    assert.deepEqual(await store.dailyUsage('c1', '2025-03-01', '2025-04-30'), { '2025-03-10': 3, '2025-04-01': 1 });
    await store.releaseScan('c1', '2025-03-01', '2025-03-10');
    assert.equal(await store.usage('c1', '2025-03-01'), 2);
  });

  it('concurrent reservations never overrun', async () => {
    const results = await Promise.all(Array.from({ length: 40 }, () => store.reserveScan('c2', 'p', 'd', 15)));
    assert.equal(results.filter((r) => r.ok).length, 15);
    assert.equal(await store.usage('c2', 'p'), 15);
  });

  it('rate limiter allows `limit` hits per window, then recovers', async () => {
    const now = Date.now();
    const hits = [];
    for (let i = 0; i < 4; i++) hits.push(await store.rateHit('k', 3, 300, now));
    assert.deepEqual(hits.map((h) => h.allowed), [true, true, true, false]);
    assert.deepEqual(hits.map((h) => h.remaining), [2, 1, 0, 0]);
    assert.ok(hits[3].resetMs > 0 && hits[3].resetMs <= 300);
    await new Promise((r) => setTimeout(r, 320));
    assert.equal((await store.rateHit('k', 3, 300, Date.now())).allowed, true);
  });

  it('licences and revocations', async () => {
    const lic = { id: 'L1', org: 'Acme', plan: 'pro', seats: 2, features: ['sdk', 'scanner'], iat: 100, exp: 200 };
    await store.putLicense(lic);
    assert.deepEqual(await store.getLicense('L1'), lic);
    assert.equal(await store.isRevoked('L1'), false);
    await store.revokeLicense('L1', T0);
    assert.equal(await store.isRevoked('L1'), true);
  });

  it('seat leases: renew always, refuse past the count, free on expiry or release', async () => {
    const info = { hostname: 'h' };
    assert.deepEqual(await store.acquireSeat('L', 'm1', 'sdk', 2, info, 1000, T0), { ok: true, seatsUsed: 1 });
    assert.deepEqual(await store.acquireSeat('L', 'm2', 'sdk', 2, info, 1000, T0), { ok: true, seatsUsed: 2 });
    assert.deepEqual(await store.acquireSeat('L', 'm3', 'sdk', 2, info, 1000, T0), { ok: false, seatsUsed: 2 });
    assert.equal((await store.acquireSeat('L', 'm1', 'sdk', 2, info, 1000, T0 + 10)).ok, true, 'holder renews');
    // another product's seats are counted apart
    assert.equal((await store.acquireSeat('L', 'm3', 'scanner', 1, info, 1000, T0)).ok, true);
    // m2's lease runs out; m1 renewed at T0+10 so it still holds one
    assert.deepEqual(await store.acquireSeat('L', 'm3', 'sdk', 2, info, 1000, T0 + 1005), { ok: true, seatsUsed: 2 });
    await store.releaseSeat('L', 'm3', 'sdk');
    assert.equal((await store.acquireSeat('L', 'm4', 'sdk', 2, info, 1000, T0 + 1006)).ok, true);
    const ms = await store.listMachines('L');
    assert.deepEqual(ms.map((m) => `${m.kind}:${m.machineId}`).sort(), ['scanner:m3', 'sdk:m1', 'sdk:m2', 'sdk:m3', 'sdk:m4']);
    assert.deepEqual(ms.find((m) => m.machineId === 'm1')?.info, info);
  });

  it('usage reports count once per report_id', async () => {
    await store.acquireSeat('L', 'm1', 'sdk', 1, {}, 1000, T0);
    assert.equal(await store.recordMachineUsage('L', 'm1', 'r1', 7, T0 + 1), true);
    assert.equal(await store.recordMachineUsage('L', 'm1', 'r1', 7, T0 + 2), false);
    assert.equal(await store.recordMachineUsage('L', 'm1', 'r2', 3, T0 + 3), true);
    const [m] = await store.listMachines('L');
    assert.equal(m.scans, 10);
    assert.equal(m.lastSeen, T0 + 3);
  });

  it('idempotency records: new, pending, mismatch, done, abort', async () => {
    const begin = (scope: string, fp: string, owner = 'A', now = T0, from?: string) => store.idempotencyBegin(scope, 'k', fp, owner, 15000, 60000, now, from);
    assert.deepEqual(await begin('c1', 'fp1'), { state: 'new' });
    assert.deepEqual(await begin('c1', 'fp1', 'B'), { state: 'pending', owner: 'A' });
    assert.deepEqual(await begin('c1', 'fp2', 'B'), { state: 'mismatch' });
    assert.deepEqual(await begin('c2', 'fp2'), { state: 'new' }, 'scoped per customer');
    await store.idempotencyComplete('c1', 'k', 200, '{"ok":true}', 60000, T0);
    assert.deepEqual(await begin('c1', 'fp1', 'B'), { state: 'done', status: 200, body: '{"ok":true}' });
    await store.idempotencyComplete('c1', 'k', 200, '{"second":true}', 60000, T0);
    assert.deepEqual(await begin('c1', 'fp1', 'B'), { state: 'done', status: 200, body: '{"ok":true}' }, 'the first answer stays');
    await store.idempotencyAbort('c2', 'k', 'B');
    assert.deepEqual(await begin('c2', 'fp2', 'B'), { state: 'pending', owner: 'A' }, 'only the owner aborts');
    await store.idempotencyAbort('c2', 'k', 'A');
    assert.deepEqual(await begin('c2', 'fp3'), { state: 'new' });
  });

  it('idempotency after a crash: the scan the dead owner paid is handed to the one that resumes', async () => {
    const ref = { scope: 'c3', key: 'k' };
    const begin = (owner: string, now: number, from?: string) => store.idempotencyBegin('c3', 'k', 'fp', owner, 15000, 60000, now, from);
    assert.deepEqual(await begin('A', T0), { state: 'new' });
    assert.deepEqual(await store.reserveScan('c3', 'p', 'd', 10, ref), { ok: true, used: 1 });
    // A dies here. While its lease runs, B is told to wait, unless B knows A is gone.
    assert.deepEqual(await begin('B', T0 + 1000), { state: 'pending', owner: 'A' });
    assert.deepEqual(await begin('B', T0 + 1000, 'Z'), { state: 'pending', owner: 'A' }, 'naming another owner takes nothing over');
    assert.deepEqual(await begin('B', T0 + 1000, 'A'), { state: 'resumed', charged: { period: 'p', day: 'd' } });
    assert.deepEqual(await begin('C', T0 + 2000), { state: 'pending', owner: 'B' }, 'B owns it now');
    // a renewed lease holds; one that ran out is taken over
    await store.idempotencyRenew('c3', 'k', 'B', 15000, T0 + 10000);
    assert.deepEqual(await begin('C', T0 + 20000), { state: 'pending', owner: 'B' });
    assert.deepEqual(await begin('C', T0 + 25001), { state: 'resumed', charged: { period: 'p', day: 'd' } });
    // giving the scan back unmarks the record; a later resume takes a fresh one
    await store.releaseScan('c3', 'p', 'd', ref);
    assert.equal(await store.usage('c3', 'p'), 0);
    assert.deepEqual(await begin('D', T0 + 50000), { state: 'resumed', charged: null });
  });
});

describe('monthly periods anchored to the signup day', () => {
  const at = (d: string) => Date.parse(`${d}T10:00:00Z`);
  it('signup on the 31st resets on the last day of shorter months', () => {
    assert.deepEqual(currentPeriod('2025-01-31', at('2025-02-15')), { start: '2025-01-31', resetsOn: '2025-02-28' });
    assert.deepEqual(currentPeriod('2025-01-31', at('2025-02-28')), { start: '2025-02-28', resetsOn: '2025-03-31' });
    assert.deepEqual(currentPeriod('2025-01-31', at('2025-03-30')), { start: '2025-02-28', resetsOn: '2025-03-31' });
    assert.deepEqual(currentPeriod('2025-01-31', at('2025-04-30')), { start: '2025-04-30', resetsOn: '2025-05-31' });
    assert.deepEqual(currentPeriod('2023-12-31', at('2024-02-29')), { start: '2024-02-29', resetsOn: '2024-03-31' });
  });
  it('ordinary days, year ends, and a clock before signup', () => {
    assert.deepEqual(currentPeriod('2025-03-15', at('2025-03-15')), { start: '2025-03-15', resetsOn: '2025-04-15' });
    assert.deepEqual(currentPeriod('2025-03-15', at('2025-04-14')), { start: '2025-03-15', resetsOn: '2025-04-15' });
    assert.deepEqual(currentPeriod('2024-12-20', at('2025-01-05')), { start: '2024-12-20', resetsOn: '2025-01-20' });
    assert.deepEqual(currentPeriod('2025-06-10', at('2025-06-01')), { start: '2025-06-10', resetsOn: '2025-07-10' });
  });
});
