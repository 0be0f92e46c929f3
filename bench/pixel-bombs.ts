// Pixel bombs against a real `dotcode serve` (issue 16, item 4).
//
//   node dist/bench/pixel-bombs.js [--bombs 12] [--size 7000x5600] [--store sqlite|redis]
//
// Customer A sends --bombs single-colour PNGs of --size at once (125 KB each for 7000x5600, 39
// megapixels decoded); meanwhile customer B sends examples/dotcode.png every 250 ms. Reported:
// B's latency alone (before the bombs) and while the bombs run, A's time until the last bomb is
// answered, the server's idle RSS, its peak (VmHWM) and its RSS 0, 2, 5, 10 and 15 s after the
// last bomb. The goals of issue 16: B is not held up behind A's bombs, and RSS is back within
// 200 MB of idle within 10 s.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { request } from '../test/server/helpers';
import { flatPng } from '../test/robustness/hostile/images';
import { dropPlace, newCustomer, openPlace, place, serve, type StoreName } from '../test/robustness/hostile/serve';

const SMALL = fs.readFileSync(path.resolve(__dirname, '..', '..', 'examples', 'dotcode.png'));

function arg(name: string, dflt: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
}

function procMB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
}

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[Math.floor(s.length / 2)] : NaN; };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const bombs = Number(arg('bombs', '12'));
  const [w, h] = arg('size', '7000x5600').split('x').map(Number);
  const p = place(arg('store', 'sqlite') as StoreName);
  const store = await openPlace(p);
  const a = await newCustomer(store, 10_000);
  const b = await newCustomer(store, 10_000);
  const bomb = await flatPng(w, h);
  const s = await serve(p);
  const pid = s.child.pid!;
  try {
    const small = async () => {
      const t0 = performance.now();
      const r = await request(`${s.url}/v1/decode`, { headers: { 'X-API-Key': b.key }, body: SMALL });
      if (r.status !== 200) throw new Error(`small image: ${r.status} ${JSON.stringify(r.body)}`);
      return performance.now() - t0;
    };
    for (let i = 0; i < 3; i++) await small();
    await sleep(3000);
    const alone: number[] = [];
    for (let i = 0; i < 7; i++) { alone.push(await small()); await sleep(100); }
    await sleep(3000);
    const idle = procMB(pid, 'VmRSS');

    const t0 = performance.now();
    let done = 0;
    const statuses: number[] = [];
    const all = Array.from({ length: bombs }, () => request(`${s.url}/v1/decode`, { headers: { 'X-API-Key': a.key }, body: bomb })
      .then((r) => { statuses.push(r.status); done++; }));
    const during: number[] = [];
    while (done < bombs) { during.push(await small()); await sleep(250); }
    await Promise.all(all);
    const bombsMs = performance.now() - t0;
    const peak = procMB(pid, 'VmHWM');
    const after: Record<string, number> = {};
    let waited = 0;
    for (const at of [0, 2, 5, 10, 15]) {
      await sleep((at - waited) * 1000);
      waited = at;
      after[`${at}s`] = procMB(pid, 'VmRSS');
    }
    console.log(JSON.stringify({
      bombs, size: `${w}x${h}`, png_bytes: bomb.length, statuses: [...new Set(statuses)],
      small_alone_ms: Math.round(median(alone)), small_during_ms: { median: Math.round(median(during)), max: Math.round(Math.max(...during)), n: during.length },
      bombs_total_ms: Math.round(bombsMs), rss_idle_mb: idle, rss_peak_mb: peak, rss_after_mb: after,
    }, null, 1));
  } finally {
    await s.stop();
    await dropPlace(p, store);
  }
}

main().catch((e) => { console.error(e); process.exitCode = 1; });
