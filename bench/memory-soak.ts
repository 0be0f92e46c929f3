// Memory soak (issue 4: "memory stays flat over 100,000 decodes").
//
//   node dist/bench/memory-soak.js [--n 100000] [--engine-n 10000] [--samples 20]
//        [--warmup 500] [--engine-warmup 500] [--concurrency 2] [--record]
//
// Phase 1, detector: --n calls of the addon's readImageSync (node-gyp-build from the repo root)
// on a rotating set of images: 1280x720 frames from the read-rate renderer with and without a
// DotCode, and a clean symbol on a small label. Phase 2, engine: --engine-n calls of the public
// lib/engine decode() on the JPEG bytes of the same images (worker threads, sharp, the addon
// inside each worker), --concurrency in flight.
//
// Each phase starts with a warm-up (the allocator, the JIT and the workers reach their working
// size), then samples process memory --samples times. Before each sample a full GC runs, so the
// JS heap figure is live data, not garbage waiting for collection; RSS is the whole process,
// worker threads and native allocations included, which is where a native leak would show.
// Verdict: the least-squares slope of RSS against decodes over the samples after the warm-up,
// in MB per 10,000 decodes, and the same over the second half alone (after the allocator's
// arenas have settled). --record writes the figures into bench/RESULTS.md ("Memory" section).
import { createHash } from 'node:crypto';
import { execSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';

import sharp from 'sharp';

import { renderClean, renderFrame720 } from '../test/fixtures/dotcode-render';
import { loadAddon, REPO_ROOT, type Addon } from './readrate-core';

// A forced collection before each sample; without it the heap figure is mostly garbage timing.
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** Growth allowed for the verdict "flat": 1 MB per 10,000 decodes is 100 bytes per decode. */
const FLAT_MB_PER_10K = 1;

interface Args { n: number; engineN: number; samples: number; warmup: number; engineWarmup: number; concurrency: number; record: boolean }

function parseArgs(argv: string[]): Args {
  const a: Args = { n: 100_000, engineN: 10_000, samples: 20, warmup: 500, engineWarmup: 500, concurrency: 2, record: false };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const num = (): number => {
      const v = Number(argv[++i]);
      if (!Number.isFinite(v) || v < 0) throw new Error(`${k} needs a non-negative number`);
      return Math.floor(v);
    };
    if (k === '--n') a.n = num();
    else if (k === '--engine-n') a.engineN = num();
    else if (k === '--samples') a.samples = Math.max(2, num());
    else if (k === '--warmup') a.warmup = num();
    else if (k === '--engine-warmup') a.engineWarmup = num();
    else if (k === '--concurrency') a.concurrency = Math.max(1, num());
    else if (k === '--record') a.record = true;
    else throw new Error(`unknown option ${k} (see the header of bench/memory-soak.ts)`);
  }
  return a;
}

interface Img { name: string; grey: Uint8Array; width: number; height: number; jpeg: Buffer; expected: string | null }

interface Sample { done: number; seconds: number; rss: number; heap: number; external: number }

interface PhaseResult {
  name: string;
  decodes: number;
  warmup: number;
  seconds: number;
  samples: Sample[];
  reads: number;
  misreads: number;
  errors: number;
  slope: number;        // MB per 10k decodes, all samples after the warm-up
  slopeLate: number;    // MB per 10k decodes, second half of the samples
}

const MB = 1024 * 1024;

function measure(done: number, t0: number): Sample {
  gc();
  const m = process.memoryUsage();
  return { done, seconds: (performance.now() - t0) / 1000, rss: m.rss / MB, heap: m.heapUsed / MB, external: m.external / MB };
}

/** Least-squares slope of RSS (MB) per 10,000 decodes. */
function slopePer10k(s: Sample[]): number {
  return fit(s).slope;
}

/** Slope and its standard error (MB per 10k decodes): worker heaps make engine RSS noisy. */
function fit(s: Sample[]): { slope: number; se: number } {
  if (s.length < 3) return { slope: NaN, se: NaN };
  const mx = s.reduce((a, x) => a + x.done, 0) / s.length;
  const my = s.reduce((a, x) => a + x.rss, 0) / s.length;
  let num = 0, den = 0;
  for (const x of s) { num += (x.done - mx) * (x.rss - my); den += (x.done - mx) ** 2; }
  if (!(den > 0)) return { slope: NaN, se: NaN };
  const b = num / den;
  const sse = s.reduce((a, x) => a + (x.rss - my - b * (x.done - mx)) ** 2, 0);
  return { slope: b * 10_000, se: Math.sqrt(sse / (s.length - 2) / den) * 10_000 };
}

/**
 * flat: the slope is within the bound; growing: even slope - 2 SE is above it; otherwise the
 * samples are too noisy for this run's length to tell (run longer).
 */
function judge(p: PhaseResult): 'flat' | 'growing' | 'inconclusive' {
  const f = fit(p.samples);
  if (p.slope <= FLAT_MB_PER_10K && p.slopeLate <= FLAT_MB_PER_10K) return 'flat';
  return f.slope - 2 * f.se > FLAT_MB_PER_10K ? 'growing' : 'inconclusive';
}

function finishPhase(name: string, decodes: number, warmup: number, t0: number, samples: Sample[], reads: number, misreads: number, errors: number): PhaseResult {
  const after = samples.slice(1); // samples[0] is taken right after the warm-up, before the counted decodes
  return {
    name, decodes, warmup, seconds: (performance.now() - t0) / 1000, samples, reads, misreads, errors,
    slope: slopePer10k(samples),
    slopeLate: slopePer10k(after.slice(Math.floor(after.length / 2))),
  };
}

function line(s: Sample): string {
  return `${String(s.done).padStart(7)} decodes ${s.seconds.toFixed(0).padStart(5)} s  RSS ${s.rss.toFixed(1).padStart(6)} MB  heap ${s.heap.toFixed(1).padStart(5)} MB  external ${s.external.toFixed(1).padStart(5)} MB`;
}

async function images(): Promise<Img[]> {
  const out: Img[] = [];
  const jpeg = (g: Uint8Array, w: number, h: number) =>
    sharp(Buffer.from(g.buffer, g.byteOffset, g.length), { raw: { width: w, height: h, channels: 1 } }).jpeg({ quality: 85 }).toBuffer();
  for (const [withSymbol, seed] of [[true, 1], [false, 1], [true, 2], [false, 2]] as const) {
    const s = await renderFrame720(withSymbol, seed);
    out.push({ name: s.name + (withSymbol ? ' (1280x720, DotCode)' : ' (1280x720, none)'), grey: s.grey, width: s.width, height: s.height,
      jpeg: s.encoded && s.encoding === 'jpeg' ? s.encoded : await jpeg(s.grey, s.width, s.height), expected: s.expectedText });
  }
  const c = renderClean('MEMORY SOAK 0123456789', { pitch: 6 });
  out.push({ name: `clean symbol ${c.width}x${c.height}`, grey: c.grey, width: c.width, height: c.height,
    jpeg: await jpeg(c.grey, c.width, c.height), expected: c.expectedText });
  return out;
}

function detectorPhase(addon: Addon, imgs: Img[], a: Args): PhaseResult {
  let reads = 0, misreads = 0, errors = 0;
  const one = (i: number, count: boolean) => {
    const img = imgs[i % imgs.length];
    let got: string[] = [];
    try {
      got = addon.readImageSync(img.grey, img.width, img.height).map((r) => Buffer.from(r.bytes).toString('latin1'));
    } catch {
      if (count) errors++;
    }
    if (!count) return;
    if (img.expected !== null && got.includes(img.expected)) reads++;
    if (got.some((g) => g !== img.expected)) misreads++;
  };
  const t0 = performance.now();
  for (let i = 0; i < a.warmup; i++) one(i, false);
  const samples = [measure(0, t0)];
  console.log(line(samples[0]) + '  (after warm-up)');
  const step = Math.max(1, Math.ceil(a.n / a.samples));
  for (let done = 0; done < a.n;) {
    const end = Math.min(a.n, done + step);
    for (; done < end; done++) one(done, true);
    const s = measure(done, t0);
    samples.push(s);
    console.log(line(s));
  }
  return finishPhase('detector (addon readImageSync)', a.n, a.warmup, t0, samples, reads, misreads, errors);
}

interface EngineModule {
  decode(input: Buffer, options?: { format?: string }): Promise<{ ok: boolean; text: string | null; error: string | null }>;
  warmUp(): Promise<void>;
  close(): Promise<void>;
}

async function enginePhase(imgs: Img[], a: Args): Promise<PhaseResult> {
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  const engine = require(path.join(REPO_ROOT, 'dist', 'lib', 'engine')) as EngineModule;
  let reads = 0, misreads = 0, errors = 0;
  const one = async (i: number, count: boolean) => {
    const img = imgs[i % imgs.length];
    // format DotCode: the soak is about our native reader; the zxing readers would triple the time.
    const r = await engine.decode(img.jpeg, { format: 'DotCode' });
    if (!count) return;
    if (r.error && r.error !== 'no_dotcode_found') errors++;
    if (r.ok && r.text === img.expected) reads++;
    else if (r.ok) misreads++;
  };
  /** Runs decodes [from, to) with a.concurrency in flight. */
  const run = async (from: number, to: number, count: boolean) => {
    let next = from;
    await Promise.all(Array.from({ length: a.concurrency }, async () => {
      while (next < to) await one(next++, count);
    }));
  };
  const t0 = performance.now();
  await engine.warmUp();
  // Long enough for every worker's JS heap, sharp's caches and the allocator to reach their size.
  await run(0, Math.max(a.concurrency, a.engineWarmup), false);
  const samples = [measure(0, t0)];
  console.log(line(samples[0]) + '  (after warm-up)');
  const step = Math.max(1, Math.ceil(a.engineN / a.samples));
  for (let done = 0; done < a.engineN;) {
    const end = Math.min(a.engineN, done + step);
    await run(done, end, true);
    done = end;
    const s = measure(done, t0);
    samples.push(s);
    console.log(line(s));
  }
  const res = finishPhase(`engine (lib/engine decode, JPEG, format DotCode, ${a.concurrency} in flight)`, a.engineN, a.engineWarmup, t0, samples, reads, misreads, errors);
  await engine.close();
  return res;
}

function verdict(p: PhaseResult): string {
  const first = p.samples[0], last = p.samples[p.samples.length - 1];
  const v = judge(p);
  return `${p.name}: ${p.decodes} decodes in ${p.seconds.toFixed(0)} s; RSS ${first.rss.toFixed(1)} -> ${last.rss.toFixed(1)} MB ` +
    `(peak ${Math.max(...p.samples.map((s) => s.rss)).toFixed(1)}), heap ${first.heap.toFixed(1)} -> ${last.heap.toFixed(1)} MB; ` +
    `growth ${p.slope.toFixed(2)} +- ${fit(p.samples).se.toFixed(2)} MB per 10k decodes (second half ${p.slopeLate.toFixed(2)}): ` +
    `${v.toUpperCase()} (bound ${FLAT_MB_PER_10K} MB per 10k)`;
}

function sh(cmd: string): string {
  try { return execSync(cmd, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim(); } catch { return '?'; }
}

function addonFile(): string {
  const f = path.join(REPO_ROOT, 'build', 'Release', 'dotcode_native.node');
  return existsSync(f) ? `build/Release/dotcode_native.node sha256 ${createHash('sha256').update(readFileSync(f)).digest('hex').slice(0, 12)}` : 'addon from prebuilds/';
}

function record(a: Args, imgs: Img[], phases: PhaseResult[], load: number[], addonId: string): void {
  const file = path.join(REPO_ROOT, 'bench', 'RESULTS.md');
  const cpus = os.cpus();
  const L: string[] = [];
  L.push('<!-- memory-soak:begin -->');
  L.push('## Memory');
  L.push('');
  L.push(`\`node dist/bench/memory-soak.js --n ${a.n} --engine-n ${a.engineN} --record\` (bench/memory-soak.ts). ` +
    `Detector: the addon's readImageSync, one call at a time, rotating over ${imgs.length} images: ${imgs.map((i) => i.name).join('; ')}. ` +
    `Engine: lib/engine decode() on the JPEG bytes of the same images (format DotCode, ${a.concurrency} in flight, worker threads). ` +
    `Each phase warms up first (${a.warmup} detector calls, ${a.engineWarmup} engine decodes), then a full GC before every sample; ` +
    'RSS is the whole process (workers and native heap included), heap is the main thread\'s live JS heap. ' +
    `Growth = least-squares slope of RSS over the samples (+- its standard error); "flat" means at most ${FLAT_MB_PER_10K} MB per 10,000 decodes (100 bytes per decode), "growing" that even the slope minus two standard errors is above that, "inconclusive" in between.`);
  L.push('');
  L.push(`Date: ${new Date().toISOString().slice(0, 10)}; machine: ${cpus.length} x ${cpus[0]?.model.trim() ?? '?'}, ` +
    `${Math.round(os.totalmem() / 1024 ** 3)} GiB, Node ${process.version}; repository at ${sh('git rev-parse --short HEAD')}, ${addonId}; ` +
    `load average ${load.map((x) => x.toFixed(1)).join(' / ')} at start -> ${os.loadavg().map((x) => x.toFixed(1)).join(' / ')} at end (shared machine).`);
  L.push('');
  L.push('| phase | decodes | time s | RSS after warm-up MB | RSS end MB | RSS peak MB | heap after warm-up -> end MB | growth MB / 10k (all +- SE / 2nd half) | reads / misreads / errors | verdict |');
  L.push('|---|---|---|---|---|---|---|---|---|---|');
  for (const p of phases) {
    const f = p.samples[0], l = p.samples[p.samples.length - 1];
    const v = judge(p);
    L.push(`| ${p.name} | ${p.decodes} | ${p.seconds.toFixed(0)} | ${f.rss.toFixed(1)} | ${l.rss.toFixed(1)} | ${Math.max(...p.samples.map((s) => s.rss)).toFixed(1)} | ` +
      `${f.heap.toFixed(1)} -> ${l.heap.toFixed(1)} | ${p.slope.toFixed(2)} +- ${fit(p.samples).se.toFixed(2)} / ${p.slopeLate.toFixed(2)} | ${p.reads} / ${p.misreads} / ${p.errors} | ${v === 'growing' ? '**growing**' : v} |`);
  }
  L.push('');
  for (const p of phases) {
    L.push(`RSS samples, ${p.name} (decodes: MB): ${p.samples.map((s) => `${s.done}: ${s.rss.toFixed(0)}`).join(', ')}.`);
    L.push('');
  }
  L.push('<!-- memory-soak:end -->');
  const block = L.join('\n');
  const text = readFileSync(file, 'utf8');
  const re = /<!-- memory-soak:begin -->[\s\S]*?<!-- memory-soak:end -->/;
  writeFileSync(file, re.test(text) ? text.replace(re, block) : text.replace(/\s*$/, '\n\n') + block + '\n');
  console.log(`recorded in ${path.relative(process.cwd(), file)}`);
}

async function main(): Promise<void> {
  const a = parseArgs(process.argv.slice(2));
  const load = os.loadavg();
  const addonId = addonFile();
  const addon = loadAddon();
  console.log(`rendering images ...`);
  const imgs = await images();
  for (const i of imgs) {
    const got = addon.readImageSync(i.grey, i.width, i.height).map((r) => Buffer.from(r.bytes).toString('latin1'));
    console.log(`  ${i.name}: expected ${JSON.stringify(i.expected)}, detector reads ${JSON.stringify(got)}`);
  }
  const phases: PhaseResult[] = [];
  if (a.n > 0) {
    console.log(`\ndetector: ${a.n} readImageSync calls after ${a.warmup} warm-up calls`);
    phases.push(detectorPhase(addon, imgs, a));
  }
  if (a.engineN > 0) {
    console.log(`\nengine: ${a.engineN} decode() calls on JPEG bytes`);
    phases.push(await enginePhase(imgs, a));
  }
  console.log('');
  for (const p of phases) console.log(verdict(p));
  if (a.record) record(a, imgs, phases, load, addonId);
}

main().catch((e) => { console.error(e); process.exit(1); });
