// Store outages: while Redis is down the API answers 503 with Retry-After and decodes nothing for
// free; when Redis comes back the API recovers by itself, with no scan lost or double counted.
import { strict as assert } from 'node:assert';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as net from 'node:net';
import { customer, documented, DOTCODE_PNG, request, serveProcess, tempDir, testPrefix, testServer } from './helpers';
import * as path from 'node:path';
import { RedisStore } from '../../server/src/store/redis';
import { SqliteStore } from '../../server/src/store/sqlite';
import { currentPeriod, dayOf } from '../../server/src/store/period';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}

async function startRedis(port: number, dir: string): Promise<ChildProcess> {
  // appendonly with fsync on every write: the restart finds the customer and the counts again
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes',
    '--appendfsync', 'always', '--save', '', '--protected-mode', 'yes'], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    const up = await new Promise<boolean>((r) => {
      const s = net.connect(port, '127.0.0.1');
      s.on('connect', () => { s.destroy(); r(true); });
      s.on('error', () => r(false));
    });
    if (up) return child;
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new Error('redis-server did not start');
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((r) => { child.once('exit', () => r()); child.kill('SIGTERM'); });
}

describe('store outage [a Redis of our own]', function () {
  before(function () {
    if (spawnSync('redis-server', ['--version']).status !== 0) {
      console.log('    NOTICE: redis-server is not installed; skipping the outage test');
      this.skip();
    }
  });

  it('503 + Retry-After while Redis is down, nothing decoded for free; recovers when it returns', async () => {
    const port = await freePort();
    const dir = tempDir('redis');
    let redis = await startRedis(port, dir);
    const url = `redis://127.0.0.1:${port}`;
    const store = await RedisStore.connect(url, { prefix: testPrefix(), commandTimeoutMs: 500 });
    const srv = await testServer({ store });
    try {
      const c = await customer(store, 100);
      const h = { 'X-API-Key': c.key };
      assert.equal((await request(`${srv.url}/v1/decode`, { body: DOTCODE_PNG, headers: h })).status, 200);

      await stop(redis);
      const down = await request(`${srv.url}/v1/decode`, { body: DOTCODE_PNG, headers: h });
      assert.equal(down.status, 503);
      assert.equal(down.body.error, 'store_unavailable');
      assert.equal(down.headers['retry-after'], '1');
      documented('/v1/decode', 'POST', down);
      const health = await request(`${srv.url}/healthz`);
      assert.equal(health.status, 503);
      const m = await request(`${srv.url}/metrics`);
      assert.match(m.body, /dotcode_decode_seconds_count\{source="v1"\} 1\n/, 'no decode ran while the store was down');

      redis = await startRedis(port, dir);
      let back = 0;
      for (let i = 0; i < 50 && back !== 200; i++) {
        await new Promise((r) => setTimeout(r, 100));
        back = (await request(`${srv.url}/v1/decode`, { body: DOTCODE_PNG, headers: h })).status;
      }
      assert.equal(back, 200, 'the API recovers by itself');
      const period = currentPeriod(dayOf(Date.now()), Date.now()).start;
      assert.equal(await store.usage(c.id, period), 2, 'one scan before the outage, one after; none during');
    } finally {
      await srv.close();
      await store.close();
      await stop(redis);
    }
  });
});

describe('store down at start [a Redis of our own]', function () {
  before(function () {
    if (spawnSync('redis-server', ['--version']).status !== 0) this.skip();
  });

  it('the server starts without its Redis, answers 503, and serves once Redis comes up', async () => {
    const port = await freePort();
    const srv = await testServer({ redisUrl: `redis://127.0.0.1:${port}`, redisPrefix: testPrefix() });
    let redis: ChildProcess | undefined;
    try {
      const h = await request(`${srv.url}/healthz`);
      assert.deepEqual([h.status, h.body.error, h.headers['retry-after']], [503, 'store_unavailable', '1']);
      const d = await request(`${srv.url}/v1/usage`, { headers: { 'X-API-Key': 'dck_' + 'a'.repeat(43) } });
      assert.equal(d.status, 503);
      redis = await startRedis(port, tempDir('redis-late'));
      let status = 0;
      for (let i = 0; i < 50 && status !== 200; i++) {
        await new Promise((r) => setTimeout(r, 100));
        status = (await request(`${srv.url}/healthz`)).status;
      }
      assert.equal(status, 200);
      const c = await customer(srv.deps.store, 3);
      assert.equal((await request(`${srv.url}/v1/decode`, { body: DOTCODE_PNG, headers: { 'X-API-Key': c.key } })).status, 200);
    } finally {
      await srv.close();
      if (redis) await stop(redis);
    }
  });
});

describe('crash safety [SQLite, SIGKILL mid-load]', function () {
  it('after a SIGKILL and a restart, used is the answered scans plus at most those in flight', async () => {
    const dataDir = tempDir('crash');
    const setup = new SqliteStore(path.join(dataDir, 'dotcode.sqlite'));
    const c = await customer(setup, 10_000);
    await setup.close();
    const env = { DOTCODE_RATE_LIMIT: '100000/1000', DOTCODE_LOG_LEVEL: 'warn' };
    const first = await serveProcess(['--data', dataDir], env);
    let answered = 0, inFlight = 0, failed = 0, killed = false, inFlightAtKill = 0;
    // 8 clients in a loop until the kill; the kill comes after 40 answers
    const client = async () => {
      while (!killed) {
        inFlight++;
        try {
          const a = await request(`${first.url}/v1/decode`, { body: DOTCODE_PNG, headers: { 'X-API-Key': c.key } });
          if (a.status === 200) answered++;
        } catch { failed++; }
        inFlight--;
        if (answered >= 40 && !killed) { killed = true; inFlightAtKill = inFlight; first.child.kill('SIGKILL'); }
      }
    };
    await Promise.all(Array.from({ length: 8 }, () => client()));
    if (first.child.exitCode === null && first.child.signalCode === null) await new Promise((r) => first.child.once('exit', r));
    const second = await serveProcess(['--data', dataDir], env);
    try {
      const u = await request(`${second.url}/v1/usage`, { headers: { 'X-API-Key': c.key } });
      assert.equal(u.status, 200);
      assert.ok(u.body.used >= answered, `used ${u.body.used} < answered ${answered}: a scan was lost`);
      assert.ok(u.body.used <= answered + inFlightAtKill, `used ${u.body.used} > answered ${answered} + in flight ${inFlightAtKill}`);
      assert.ok(failed <= inFlightAtKill);
      assert.equal((await request(`${second.url}/v1/decode`, { body: DOTCODE_PNG, headers: { 'X-API-Key': c.key } })).status, 200);
    } finally {
      second.child.kill('SIGTERM');
      await new Promise((r) => second.child.once('exit', r));
    }
  });
});
