// Cloud API memory under sustained load (issue 7 item 8): TOTAL decodes through `dotcode serve`
// (SQLite store) at concurrency 8 on the 1280x720 JPEG of bench/api-load.ts, sampling the
// server's resident memory from /metrics every STEP requests. An hour of a busy customer at
// 50 scans/s is 180,000 requests; the default is a tenth of that so the run fits a session.
// Run: npx tsc -b && node dist/bench/api-soak.js [total=18000] [step=2000]
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import sharp from 'sharp';
import { packageRoot } from '../lib/license';
import { createCustomer } from '../server/src/admin';
import { SqliteStore } from '../server/src/store/sqlite';

const ROOT = packageRoot();
const TOTAL = Number(process.argv[2] ?? 18000);
const STEP = Number(process.argv[3] ?? 2000);

function serve(args: string[]): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'dotcode.js'), 'serve', '--port', '0', ...args],
    { env: { ...process.env, DOTCODE_RATE_LIMIT: '1000000/1000', DOTCODE_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (d: Buffer) => { err += d.toString(); const m = /listening on (\S+)/.exec(err); if (m) resolve({ url: m[1], child }); });
    child.on('exit', (c) => reject(new Error(`serve exited ${c}: ${err}`)));
  });
}

async function rssMb(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const m = /^process_resident_memory_bytes (\S+)$/m.exec(text);
  return Number(m?.[1]) / 1024 / 1024;
}

async function main(): Promise<void> {
  const code = fs.readFileSync(path.join(ROOT, 'examples', 'dotcode.png'));
  const img = await sharp({ create: { width: 1280, height: 720, channels: 3, background: '#f4f4f4' } })
    .composite([{ input: code, left: 360, top: 150 }]).jpeg({ quality: 88 }).toBuffer();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dc-soak-'));
  const store = new SqliteStore(path.join(dataDir, 'dotcode.sqlite'));
  const c = await createCustomer(store, { name: 'soak', quota: 100_000_000 });
  await store.close();
  const s = await serve(['--data', dataDir]);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const one = () => new Promise<number>((resolve, reject) => {
    const req = http.request(`${s.url}/v1/decode?format=DotCode`, { method: 'POST', agent, headers: { 'X-API-Key': c.api_key, 'Content-Length': img.length } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end(img);
  });
  let started = 0, done = 0, bad = 0;
  const samples: [number, number][] = [[0, await rssMb(s.url)]];
  const t0 = performance.now();
  try {
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (started < TOTAL) {
        started++;
        if ((await one()) !== 200) bad++;
        // count on completion, so each sample point is taken exactly once
        if (++done % STEP === 0) {
          const mb = await rssMb(s.url);
          samples.push([done, mb]);
          console.log(`${done} requests, ${((performance.now() - t0) / 1000).toFixed(0)} s: server RSS ${mb.toFixed(1)} MB`);
        }
      }
    }));
  } finally {
    s.child.kill('SIGTERM');
    agent.destroy();
  }
  const secs = (performance.now() - t0) / 1000;
  const firstHalf = samples.slice(1, Math.ceil(samples.length / 2)).map((x) => x[1]);
  const secondHalf = samples.slice(Math.ceil(samples.length / 2)).map((x) => x[1]);
  const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  console.log(`\n${TOTAL} requests in ${secs.toFixed(0)} s (${(TOTAL / secs).toFixed(1)}/s), non-200: ${bad}`);
  console.log(`RSS samples (MB): ${samples.map((x) => x[1].toFixed(0)).join(' ')}`);
  console.log(`mean RSS first half ${avg(firstHalf).toFixed(1)} MB, second half ${avg(secondHalf).toFixed(1)} MB`);
}

main().catch((e) => { console.error(e); process.exit(1); });
