// Issue 16, item 4: pixel bombs. A 7000x5600 single-colour PNG is 125 KB on the wire and 39
// megapixels decoded; twelve at once held 1.5 GB for good and delayed other customers by seconds
// (bench/pixel-bombs.ts has the figures). Now decodes pass a fair megapixel budget and the engine's
// threads are recycled once the server is idle after large images. Checked here without timing:
// what the server decoded at once, that another customer's image is answered while the bombs
// still wait, and the memory after the recycle. (The durations are the bench's business.)
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { DOTCODE_PNG, request } from '../../server/helpers';
import { DEFAULT_CONFIG } from '../../../server/src/app';
import { dropPlace, newCustomer, openPlace, place, serve, until, type Place, type Served } from './serve';
import { flatPng } from './images';
import type { Store } from '../../../server/src/store/types';

function rssMB(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
}

async function metric(s: Served, name: string): Promise<number> {
  const text = String((await request(`${s.url}/metrics`)).body);
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  if (!m) throw new Error(`${name} is not in /metrics`);
  return Number(m[1]);
}

describe('pixel bombs: a fair megapixel budget, and memory that returns [sqlite]', function () {
  this.timeout(120_000);
  let p: Place;
  let store: Store;
  let s: Served;

  before(async () => {
    p = place('sqlite');
    store = await openPlace(p);
    s = await serve(p);
  });
  after(async () => { await s?.stop(); if (store) await dropPlace(p, store); });

  it('two bombs of one customer are decoded within the budget while another customer is served; RSS returns near idle', async () => {
    const a = await newCustomer(store, 100);
    const b = await newCustomer(store, 100);
    const bomb = await flatPng(7000, 5600);
    // warm: the engine's workers have read a small image; this is the idle figure
    assert.equal((await request(`${s.url}/v1/decode`, { headers: { 'X-API-Key': b.key }, body: DOTCODE_PNG })).status, 200);
    await new Promise((r) => setTimeout(r, 500));
    const idle = rssMB(s.child.pid!);

    const order: string[] = [];
    const bombs = [1, 2].map((i) => request(`${s.url}/v1/decode`, { headers: { 'X-API-Key': a.key }, body: bomb })
      .then((r) => { assert.equal(r.status, 200, JSON.stringify(r.body)); order.push(`bomb${i}`); }));
    await until(async () => (await metric(s, 'dotcode_decodes_waiting')) >= 1);
    const small = await request(`${s.url}/v1/decode`, { headers: { 'X-API-Key': b.key }, body: DOTCODE_PNG });
    assert.equal(small.status, 200);
    assert.equal(small.body.ok, true);
    order.push('small');
    const stillWaiting = await metric(s, 'dotcode_decodes_waiting');
    await Promise.all(bombs);

    assert.ok(order.indexOf('small') < order.length - 1, `the small image waited behind every bomb: ${order.join(', ')}`);
    assert.ok(stillWaiting >= 1 || order.indexOf('small') < 2, 'the bombs were not queued');
    const b0 = DEFAULT_CONFIG.decodeBudget;
    const peak = await metric(s, 'dotcode_decode_pixels_peak');
    assert.ok(peak <= b0.pixels, `decoded ${peak} pixels at once, budget ${b0.pixels}`);
    assert.ok(peak >= 7000 * 5600, 'the bombs were never decoded');

    // the engine's threads are recycled once the server is idle: the memory goes back
    await until(async () => (await metric(s, 'dotcode_engine_recycles')) >= 1, 250);
    const after = rssMB(s.child.pid!);
    assert.ok(after - idle < 200, `RSS ${Math.round(after)} MB after the bombs, ${Math.round(idle)} MB idle`);
    assert.equal((await request(`${s.url}/v1/decode`, { headers: { 'X-API-Key': b.key }, body: DOTCODE_PNG })).body.ok, true, 'decodes after the recycle');
  });
});
