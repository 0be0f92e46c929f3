// Issue 16, item 2: an Idempotency-Key must never bill twice, across a crash too. Before: SIGKILL
// while a keyed request decoded, restart, retry with the same key: 409 idempotency_in_progress
// for 60 s although nothing ran, then 200 and a second charge. Now the record names its owner
// process and holds a lease; the restarted server sees the owner is gone and resumes the request
// against the scan the dead one already took.
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import { request } from '../../server/helpers';
import { dropPlace, eachStore, newCustomer, openPlace, place, serve, until } from './serve';
import { flatPng } from './images';
import { currentPeriod } from '../../../server/src/store/period';

eachStore('Idempotency-Key across a server crash', (storeName) => {
  it('SIGKILL mid-decode, restart, retry: 200 at once, one scan charged, and the answer is kept', async function () {
    this.timeout(90_000);
    const p = place(storeName);
    const store = await openPlace(p);
    try {
      const c = await newCustomer(store, 100);
      const period = currentPeriod((await store.getCustomer(c.id))!.signup, Date.now()).start;
      // big enough that it is still decoding when the scan shows up in the store
      const bomb = await flatPng(7000, 5600);
      const headers = { 'X-API-Key': c.key, 'Idempotency-Key': 'order-4711', 'Content-Type': 'image/png' };
      let s = await serve(p);
      const first = http.request(`${s.url}/v2/decode?format=DotCode`, { method: 'POST', headers: { ...headers, 'Content-Length': String(bomb.length) } });
      first.on('error', () => undefined); // the server dies under it
      first.end(bomb);
      await until(async () => (await store.usage(c.id, period)) === 1, 5);
      await s.kill();
      assert.equal(await store.usage(c.id, period), 1, 'the first attempt took its scan');

      s = await serve(p);
      try {
        const retry = await request(`${s.url}/v2/decode?format=DotCode`, { headers, body: bomb });
        assert.equal(retry.status, 200, JSON.stringify(retry.body));
        assert.equal(retry.body.error, 'no_dotcode_found');
        assert.equal(retry.body.quota.used, 1, 'the retry decoded against the first scan');
        assert.equal(await store.usage(c.id, period), 1, 'billed twice');
        const again = await request(`${s.url}/v2/decode?format=DotCode`, { headers, body: bomb });
        assert.equal(again.status, 200);
        assert.equal(again.headers['idempotent-replayed'], 'true');
        assert.equal(await store.usage(c.id, period), 1);
      } finally {
        await s.stop();
      }
    } finally {
      await dropPlace(p, store);
    }
  });
});
