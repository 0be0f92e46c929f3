// The fair megapixel budget (server/src/pixel-gate.ts) with real decodes replaced by promises the
// test resolves itself: which decodes are admitted, in which order, and which are refused. No
// timing is involved: each step waits for the gate's own answers.
import * as assert from 'node:assert/strict';
import { PixelGate, PixelGateFull } from '../../server/src/pixel-gate';

const MP = 1_000_000;

/** A decode held open until the test releases it; `started` says whether the gate admitted it. */
function job(gate: PixelGate, tenant: string, pixels: number, log: string[], name: string) {
  let release!: () => void;
  const held = new Promise<void>((r) => { release = r; });
  const state = { started: false, release: () => release(), done: null as Promise<void> | null };
  state.done = gate.run(tenant, pixels, async () => { state.started = true; log.push(name); await held; });
  return state;
}

const tick = () => new Promise((r) => setImmediate(r));

describe('PixelGate: fair megapixel budget', () => {
  it('one customer holds at most its share; another customer\'s small image runs beside it at once', async () => {
    const gate = new PixelGate({ budget: 48 * MP, perTenant: 40 * MP, maxWaiting: 16 });
    const log: string[] = [];
    const a1 = job(gate, 'A', 39 * MP, log, 'a1');
    const a2 = job(gate, 'A', 39 * MP, log, 'a2');
    const b1 = job(gate, 'B', 1 * MP, log, 'b1');
    await tick();
    assert.deepEqual(log, ['a1', 'b1']);
    assert.equal(gate.load.waiting, 1);
    a1.release(); await a1.done; await tick();
    assert.deepEqual(log, ['a1', 'b1', 'a2']);
    b1.release(); a2.release(); await Promise.all([b1.done, a2.done]);
    assert.deepEqual(gate.load, { pixels: 0, running: 0, waiting: 0 });
    assert.equal(gate.peak, 40 * MP);
  });

  it('waiters are served round-robin across customers, in order within one', async () => {
    const gate = new PixelGate({ budget: 10 * MP, perTenant: 10 * MP, maxWaiting: 16 });
    const log: string[] = [];
    const first = job(gate, 'A', 10 * MP, log, 'a0');
    const queued = [job(gate, 'A', 10 * MP, log, 'a1'), job(gate, 'A', 10 * MP, log, 'a2'), job(gate, 'B', 10 * MP, log, 'b1'),
      job(gate, 'C', 10 * MP, log, 'c1'), job(gate, 'B', 10 * MP, log, 'b2')];
    await tick();
    first.release();
    for (let i = 0; i < queued.length; i++) {
      await tick();
      const running = queued.find((j) => j.started && j.done && !(j as { finished?: boolean }).finished)!;
      (running as { finished?: boolean }).finished = true;
      running.release();
      await running.done;
    }
    assert.deepEqual(log, ['a0', 'a1', 'b1', 'c1', 'a2', 'b2']);
  });

  it('one image over the budget still runs (alone); a full queue is refused at once', async () => {
    const gate = new PixelGate({ budget: 10 * MP, perTenant: 10 * MP, maxWaiting: 2 });
    const log: string[] = [];
    const big = job(gate, 'A', 39 * MP, log, 'big');
    const w = [job(gate, 'A', 1, log, 'w1'), job(gate, 'A', 1, log, 'w2')];
    await tick();
    assert.deepEqual(log, ['big']);
    await assert.rejects(gate.run('A', 1, async () => undefined), PixelGateFull);
    big.release();
    await big.done; await tick();
    for (const j of w) { j.release(); await j.done; }
    assert.deepEqual(log, ['big', 'w1', 'w2']);
  });
});
