// SDK timing (issue 6 item 3, SPEC 2.5 rule 3): the first decode through a new Scanner (the
// constructor starts warming the engine) and later decodes; construction time; decode latency
// with the background calls on, off, and failing (service down); concurrent throughput.
//
// First-decode figures need a fresh process each: the parent runs CHILDREN child processes per
// case and reports the median. Images: examples/ (rendered with bwip-js).
// Run: npx tsc -b && node dist/bench/sdk-latency.js [children=7] [later=40]
import { spawnSync } from 'node:child_process';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { Scanner } from '../lib';
import { packageRoot } from '../lib/license';
import { generateSupplierKeyPair, removeStampKey, signLicense, writeStamp } from '../server/src/signing';

const ROOT = packageRoot();
const IMAGES = { dotcode: path.join(ROOT, 'examples/gs1-dotcode.png'), qr: path.join(ROOT, 'examples/qrcode.png') };
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p95 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(0.95 * xs.length) - 1)];
const f1 = (x: number): string => x.toFixed(1);

function key(url = ''): string {
  const sup = generateSupplierKeyPair();
  writeStamp(ROOT, sup.publicKeyPem, ''); // merges: the bench's own throwaway supplier
  if (process.argv[2] !== '--child') process.once('exit', () => removeStampKey(ROOT, sup.kid));
  const t = Math.floor(Date.now() / 1000);
  return signLicense({ lid: `bench_${process.pid}`, org: 'Bench', plan: 'bench', seats: 1, features: ['sdk'], iat: t, exp: t + 30 * 86400, url }, sup.privateKeyPem);
}

/** Child: construct, optionally wait, decode once (first), then `later` more. Prints JSON. */
async function child(mode: 'immediate' | 'settled', image: string, later: number): Promise<void> {
  const t0 = performance.now();
  const s = new Scanner(process.env.BENCH_KEY!, { telemetry: false });
  const construct = performance.now() - t0;
  if (mode === 'settled') await new Promise((r) => setTimeout(r, 1500));
  const t1 = performance.now();
  const first = await s.decode(image);
  const firstMs = performance.now() - t1;
  const times: number[] = [];
  for (let i = 0; i < later; i++) {
    const t = performance.now();
    await s.decode(image);
    times.push(performance.now() - t);
  }
  await s.close();
  console.log(JSON.stringify({ construct, first: firstMs, ok: first.ok, later: median(times) }));
}

async function latency(s: Scanner, image: string, n: number): Promise<number[]> {
  for (let i = 0; i < 5; i++) await s.decode(image);
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await s.decode(image);
    times.push(performance.now() - t);
  }
  return times;
}

async function main(): Promise<void> {
  if (process.argv[2] === '--child') return child(process.argv[3] as 'immediate', process.argv[4], Number(process.argv[5]));
  const children = Number(process.argv[2] ?? 7);
  const later = Number(process.argv[3] ?? 40);
  const k = key();
  console.log(`SDK latency, ${os.cpus().length} CPU(s) ${os.cpus()[0]?.model ?? ''}, Node ${process.version}, ${children} processes per case`);
  console.log('| image | case | construct ms | first decode ms | later decodes ms (median) | read |');
  console.log('|---|---|---|---|---|---|');
  for (const [name, image] of Object.entries(IMAGES)) {
    for (const mode of ['immediate', 'settled'] as const) {
      const runs: { construct: number; first: number; ok: boolean; later: number }[] = [];
      for (let i = 0; i < children; i++) {
        const r = spawnSync(process.execPath, [__filename, '--child', mode, image, String(later)], { env: { ...process.env, BENCH_KEY: k }, encoding: 'utf8' });
        if (r.status !== 0) throw new Error(r.stderr);
        runs.push(JSON.parse(r.stdout.trim().split('\n').pop()!));
      }
      console.log(`| ${name} | ${mode === 'immediate' ? 'decode right after new Scanner()' : 'decode 1.5 s after new Scanner()'} | ${f1(median(runs.map((r) => r.construct)))} | ${f1(median(runs.map((r) => r.first)))} | ${f1(median(runs.map((r) => r.later)))} | ${runs.every((r) => r.ok) ? 'yes' : 'no'} |`);
    }
  }

  // Telemetry never on the scan path: same image, same process, three scanners.
  const n = later * 2;
  const down = http.createServer();
  await new Promise<void>((r) => down.listen(0, '127.0.0.1', () => r()));
  const port = (down.address() as AddressInfo).port;
  await new Promise<void>((r) => down.close(() => r()));
  const hang = http.createServer(() => { /* never answers */ });
  await new Promise<void>((r) => hang.listen(0, '127.0.0.1', () => r()));
  const quiet = { warn: () => {} };
  console.log(`\n| background calls | decode median ms | p95 ms | (${n} decodes of the QR sample) |`);
  console.log('|---|---|---|---|');
  const cases: [string, string | null][] = [['off (telemetry:false)', null], ['service down', `http://127.0.0.1:${port}`], ['service hangs', `http://127.0.0.1:${(hang.address() as AddressInfo).port}`]];
  for (const [label, url] of cases) {
    const s = new Scanner(url ? key(url) : k, { telemetry: url !== null, logger: quiet, cloud: { heartbeatMs: 200, requestTimeoutMs: 300 } });
    const t = await latency(s, IMAGES.qr, n);
    console.log(`| ${label} | ${f1(median(t))} | ${f1(p95(t))} | cloudOk=${s.cloudOk} |`);
    await s.close();
  }
  hang.closeAllConnections();
  hang.close();

  // Many concurrent decodes through one Scanner.
  const s = new Scanner(k, { telemetry: false });
  await latency(s, IMAGES.qr, 5);
  for (const conc of [1, 8, 32]) {
    const total = 96;
    const t0 = performance.now();
    let next = 0;
    await Promise.all(Array.from({ length: conc }, async () => { while (next++ < total) await s.decode(IMAGES.qr); }));
    const secs = (performance.now() - t0) / 1000;
    console.log(`concurrency ${conc}: ${(total / secs).toFixed(0)} decodes/s`);
  }
  await s.close();
}

main().catch((e) => { console.error(e); process.exit(1); });
