// Cloud API load (issue 7 item 8): decodes per second and p50/p99 latency with autocannon at
// concurrency 8 on a 1280x720 JPEG, for each store; the ratio of API time to raw engine time on
// the same image at the same concurrency (goal: at most 1.3); server memory before and after.
//
// The server runs as `dotcode serve` in its own process (as deployed); autocannon runs here.
// The engine baseline runs here too, before any server starts, through the same engine module.
// Run: npx tsc -b && node dist/bench/api-load.js [seconds=20] [runs=3]
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as net from 'node:net';
import sharp from 'sharp';
import * as engine from '../lib/engine';
import { packageRoot } from '../lib/license';
import { createCustomer } from '../server/src/admin';
import { RedisStore } from '../server/src/store/redis';
import { SqliteStore } from '../server/src/store/sqlite';
import type { Store } from '../server/src/store/types';

// autocannon ships no type declarations; this is the part of its API the bench uses.
interface AcResult { requests: { average: number }; latency: { p50: number; p99: number }; non2xx: number; errors: number; '2xx': number }
// eslint-disable-next-line @typescript-eslint/no-var-requires
const autocannon = require('autocannon') as (opts: Record<string, unknown>, cb: (err: Error | null, r: AcResult) => void) => unknown;

const ROOT = packageRoot();
const SECONDS = Number(process.argv[2] ?? 20);
const RUNS = Number(process.argv[3] ?? 3);
const CONC = 8;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const f1 = (x: number): string => x.toFixed(1);

async function frame(): Promise<Buffer> {
  const code = fs.readFileSync(path.join(ROOT, 'examples', 'dotcode.png'));
  return sharp({ create: { width: 1280, height: 720, channels: 3, background: '#f4f4f4' } })
    .composite([{ input: code, left: 360, top: 150 }]).jpeg({ quality: 88 }).toBuffer();
}

/** Raw engine at concurrency 8 for `seconds`: decodes/s and latency percentiles. */
async function engineBaseline(img: Buffer, seconds: number): Promise<{ rps: number; p50: number; p99: number }> {
  await engine.warmUp();
  for (let i = 0; i < 10; i++) await engine.decode(img, { format: 'DotCode' });
  const lat: number[] = [];
  const end = performance.now() + seconds * 1000;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONC }, async () => {
    while (performance.now() < end) {
      const t = performance.now();
      const r = await engine.decode(img, { format: 'DotCode' });
      if (!r.ok) throw new Error(`engine did not read the bench frame: ${r.error}`);
      lat.push(performance.now() - t);
    }
  }));
  const secs = (performance.now() - t0) / 1000;
  lat.sort((a, b) => a - b);
  return { rps: lat.length / secs, p50: lat[Math.floor(lat.length * 0.5)], p99: lat[Math.floor(lat.length * 0.99)] };
}

function serve(args: string[]): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'dotcode.js'), 'serve', '--port', '0', ...args],
    { env: { ...process.env, DOTCODE_RATE_LIMIT: '1000000/1000', DOTCODE_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /listening on (\S+)/.exec(err);
      if (m) resolve({ url: m[1], child });
    });
    child.on('exit', (c) => reject(new Error(`serve exited ${c}: ${err}`)));
  });
}

/** Server-side sums from /metrics: request time on /v1/decode and engine time inside it. */
async function serverTimes(url: string): Promise<{ http: number; engine: number; n: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const num = (re: RegExp) => Number(re.exec(text)?.[1] ?? NaN);
  return {
    http: num(/^dotcode_http_request_duration_seconds_sum\{route="\/v1\/decode"\} (\S+)$/m),
    engine: num(/^dotcode_decode_seconds_sum\{source="v1"\} (\S+)$/m),
    n: num(/^dotcode_decode_seconds_count\{source="v1"\} (\S+)$/m),
  };
}

/**
 * CPU time the server process (all its threads, or one thread) has used, in ms, from /proc: on
 * this shared machine decodes/s swing with other jobs' load, CPU per request much less so. The
 * main thread (thread id = process id) is the one resource a request cannot share: its time per
 * decode bounds decodes/s on any number of cores.
 */
function cpuMs(pid: number, thread?: number): number {
  try {
    const f = fs.readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // utime + stime, in ticks of 1/100 s (Linux USER_HZ)
  } catch {
    return NaN;
  }
}

async function rssMb(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const m = /^process_resident_memory_bytes (\d+(?:\.\d+)?(?:e\+\d+)?)$/m.exec(text);
  return m ? Number(m[1]) / 1024 / 1024 : NaN;
}

interface LoadResult { rps: number; p50: number; p99: number; non2xx: number; errors: number; total: number }

function load(url: string, key: string, img: Buffer, seconds: number): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    autocannon({
      url: `${url}/v1/decode?format=DotCode`, method: 'POST', connections: CONC, duration: seconds, body: img,
      headers: { 'X-API-Key': key, 'Content-Type': 'image/jpeg' },
    }, (err, r) => {
      if (err) return reject(err);
      resolve({ rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors, total: r['2xx'] });
    });
  });
}

async function runStore(kind: 'sqlite' | 'redis', img: Buffer): Promise<{ runs: LoadResult[]; rss: [number, number]; countedOk: boolean; serverRatio: number; cpuPerDecode: number; mainCpuPerDecode: number }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `dc-bench-${kind}-`));
  const prefix = `dcbench:${process.pid}:`;
  let store: Store;
  if (kind === 'sqlite') store = new SqliteStore(path.join(dataDir, 'dotcode.sqlite'));
  else store = await RedisStore.connect(REDIS_URL, { prefix });
  const c = await createCustomer(store, { name: 'bench', quota: 10_000_000 });
  if (kind === 'sqlite') await store.close();
  const args = kind === 'sqlite' ? ['--data', dataDir] : ['--data', dataDir, '--redis', REDIS_URL, '--redis-prefix', prefix];
  const s = await serve(args);
  try {
    await load(s.url, c.api_key, img, 3); // warm-up (workers, JIT)
    const rss0 = await rssMb(s.url);
    const t0 = await serverTimes(s.url);
    const c0 = cpuMs(s.child.pid!);
    const m0 = cpuMs(s.child.pid!, s.child.pid!);
    const runs: LoadResult[] = [];
    for (let i = 0; i < RUNS; i++) runs.push(await load(s.url, c.api_key, img, SECONDS));
    const rss1 = await rssMb(s.url);
    const t1 = await serverTimes(s.url);
    const c1 = cpuMs(s.child.pid!);
    const m1 = cpuMs(s.child.pid!, s.child.pid!);
    // inside the server: whole request time over the engine's decode time, same requests
    const serverRatio = (t1.http - t0.http) / (t1.engine - t0.engine);
    const usage = await (await fetch(`${s.url}/v1/usage`, { headers: { 'X-API-Key': c.api_key } })).json() as { used: number };
    const answered = runs.reduce((a, r) => a + r.total, 0);
    // every 200 is one counted scan; the warm-up's are in `used` too
    const countedOk = usage.used >= answered;
    const n = t1.n - t0.n;
    return { runs, rss: [rss0, rss1], countedOk, serverRatio, cpuPerDecode: (c1 - c0) / n, mainCpuPerDecode: (m1 - m0) / n };
  } finally {
    s.child.kill('SIGTERM');
    await new Promise((r) => s.child.once('exit', r));
    if (kind === 'redis') { await (store as RedisStore).dropAll(); await store.close(); }
  }
}

function redisUp(): Promise<boolean> {
  const u = new URL(REDIS_URL);
  return new Promise((r) => {
    const s = net.connect(Number(u.port || 6379), u.hostname);
    s.on('connect', () => { s.destroy(); r(true); });
    s.on('error', () => r(false));
  });
}

async function main(): Promise<void> {
  const img = await frame();
  console.log(`frame: 1280x720 JPEG, ${(img.length / 1024).toFixed(0)} KB; concurrency ${CONC}; ${RUNS} runs x ${SECONDS} s per store`);
  const base: { rps: number; p50: number; p99: number }[] = [];
  for (let i = 0; i < RUNS; i++) base.push(await engineBaseline(img, SECONDS));
  await engine.close();
  const eng = { rps: median(base.map((b) => b.rps)), p50: median(base.map((b) => b.p50)), p99: median(base.map((b) => b.p99)) };
  console.log(`engine (in-process): ${f1(eng.rps)} decodes/s, p50 ${f1(eng.p50)} ms, p99 ${f1(eng.p99)} ms`);
  const rows: string[] = [];
  rows.push(`| engine alone (same pool, in-process) | ${f1(eng.rps)} | ${f1(eng.p50)} | ${f1(eng.p99)} | 1.00 | 1.000 | - | - |`);
  for (const kind of ['sqlite', 'redis'] as const) {
    if (kind === 'redis' && !(await redisUp())) { console.log('no Redis: skipping the Redis store'); continue; }
    const r = await runStore(kind, img);
    const rps = median(r.runs.map((x) => x.rps)), p50 = median(r.runs.map((x) => x.p50)), p99 = median(r.runs.map((x) => x.p99));
    const bad = r.runs.reduce((a, x) => a + x.non2xx + x.errors, 0);
    const ratio = eng.rps / rps;
    console.log(`${kind}: ${f1(rps)} decodes/s, p50 ${p50} ms, p99 ${p99} ms, non-2xx+errors ${bad}, API/engine time ${ratio.toFixed(2)} (server-side ${r.serverRatio.toFixed(3)}), server CPU ${r.cpuPerDecode.toFixed(2)} ms per decode (main thread ${r.mainCpuPerDecode.toFixed(2)}), RSS ${f1(r.rss[0])} -> ${f1(r.rss[1])} MB, counted ${r.countedOk ? 'ok' : 'MISMATCH'}`);
    rows.push(`| API, ${kind} store | ${f1(rps)} | ${p50} | ${p99} | ${ratio.toFixed(2)} | ${r.serverRatio.toFixed(3)} | ${bad} | ${f1(r.rss[0])} -> ${f1(r.rss[1])} |`);
  }
  console.log('\n| what | decodes/s | p50 ms | p99 ms | API/engine time (throughput) | request/decode time inside the server | non-2xx | server RSS MB (after warm-up -> end) |\n|---|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
}

main().catch((e) => { console.error(e); process.exit(1); });
