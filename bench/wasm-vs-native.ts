// The WebAssembly DotCode reader against the native addon on the read-rate benchmark's images.
//
//   node dist/bench/wasm-vs-native.js [--n 100] [--category clean,rotated] [--speed-runs 50]
//
// Per category (seeds 1..n, the images of bench/readrate.ts): symbols read by each reader with
// the product's own options (the default 250 ms time budget, as decode() runs it), how many
// images got identical answers, and the median and p95 time of each call. Both readers run in
// this thread, one after the other on the same plane, alternating which goes first so neither
// is favoured by a busy machine's swings. Then the speed rows of bench/readrate.ts (1280x720
// frames with and without a symbol) for both. Prints markdown for bench/RESULTS.md.
import { isDeepStrictEqual } from 'node:util';

import { CATEGORIES, isCategory, renderFrame720, renderSample, type Category, type Sample } from '../test/fixtures/dotcode-render';
import { loadAddon, percentile, type Addon, type NativeRead } from './readrate-core';
import { wasmReader } from '../lib/engine/wasm-node';

function parseArgs(argv: string[]): { n: number; categories: Category[]; speedRuns: number } {
  const a = { n: 100, categories: [...CATEGORIES] as Category[], speedRuns: 50 };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const v = argv[++i];
    if (v === undefined) throw new Error(`${k} needs a value`);
    if (k === '--n') a.n = Number(v);
    else if (k === '--speed-runs') a.speedRuns = Number(v);
    else if (k === '--category') {
      for (const c of v.split(',')) if (!isCategory(c)) throw new Error(`unknown category ${c}`);
      a.categories = v.split(',') as Category[];
    } else throw new Error(`unknown option ${k}`);
  }
  return a;
}

const ms = (x: number): string => x.toFixed(2);

function timed(reader: Addon, s: Sample): { reads: NativeRead[]; ms: number } {
  const t0 = process.hrtime.bigint();
  const reads = reader.readImageSync(s.grey, s.width, s.height);
  return { reads, ms: Number(process.hrtime.bigint() - t0) / 1e6 };
}

function readsExpected(reads: NativeRead[], s: Sample): boolean {
  return s.expectedText !== null && reads.some((r) => Buffer.from(r.bytes).toString('latin1') === s.expectedText);
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const native = loadAddon();
  const wasm = wasmReader() as unknown as Addon;
  // Warm both (V8 compiles hot wasm functions with its optimising tier after some calls).
  const warm = await renderSample('clean', 999);
  for (let i = 0; i < 20; i++) { native.readImageSync(warm.grey, warm.width, warm.height); wasm.readImageSync(warm.grey, warm.width, warm.height); }

  const lines = ['| category | n | native read | wasm read | identical answers | native median / p95 ms | wasm median / p95 ms | wasm / native (median) |', '|---|---|---|---|---|---|---|---|'];
  const all = { n: 0, nativeRead: 0, wasmRead: 0, same: 0, nativeMs: [] as number[], wasmMs: [] as number[] };
  for (const cat of args.categories) {
    const row = { n: 0, nativeRead: 0, wasmRead: 0, same: 0, nativeMs: [] as number[], wasmMs: [] as number[] };
    for (let seed = 1; seed <= args.n; seed++) {
      const s = await renderSample(cat, seed);
      const first = seed % 2 ? native : wasm;
      const a = timed(first, s);
      const b = timed(first === native ? wasm : native, s);
      const [nat, was] = first === native ? [a, b] : [b, a];
      row.n++;
      if (readsExpected(nat.reads, s)) row.nativeRead++;
      if (readsExpected(was.reads, s)) row.wasmRead++;
      if (isDeepStrictEqual(nat.reads, was.reads)) row.same++;
      row.nativeMs.push(nat.ms);
      row.wasmMs.push(was.ms);
    }
    const nm = percentile(row.nativeMs, 0.5);
    const wm = percentile(row.wasmMs, 0.5);
    const negative = cat === 'negative';
    lines.push(`| ${cat} | ${row.n} | ${negative ? '-' : row.nativeRead} | ${negative ? '-' : row.wasmRead} | ${row.same} | ` +
      `${ms(nm)} / ${ms(percentile(row.nativeMs, 0.95))} | ${ms(wm)} / ${ms(percentile(row.wasmMs, 0.95))} | ${(wm / nm).toFixed(2)} |`);
    console.error(lines[lines.length - 1]);
    all.n += row.n; all.nativeRead += row.nativeRead; all.wasmRead += row.wasmRead; all.same += row.same;
    all.nativeMs.push(...row.nativeMs); all.wasmMs.push(...row.wasmMs);
  }
  const sum = (xs: number[]) => xs.reduce((x, y) => x + y, 0);
  lines.push(`| all | ${all.n} | ${all.nativeRead} | ${all.wasmRead} | ${all.same} | ${ms(percentile(all.nativeMs, 0.5))} / ${ms(percentile(all.nativeMs, 0.95))} | ` +
    `${ms(percentile(all.wasmMs, 0.5))} / ${ms(percentile(all.wasmMs, 0.95))} | ${(percentile(all.wasmMs, 0.5) / percentile(all.nativeMs, 0.5)).toFixed(2)} (total time ${(sum(all.wasmMs) / sum(all.nativeMs)).toFixed(2)}) |`);

  if (args.speedRuns > 0) {
    lines.push('', '| speed (detector, 1280x720) | native median / p95 ms | wasm median / p95 ms | wasm / native (median) | calls each |', '|---|---|---|---|---|');
    for (const withSymbol of [true, false]) {
      const t: Record<'native' | 'wasm', number[]> = { native: [], wasm: [] };
      for (let f = 0; f < 5; f++) {
        const s = await renderFrame720(withSymbol, f + 1);
        for (let r = 0; r < Math.max(1, Math.round(args.speedRuns / 5)); r++) {
          t.native.push(timed(native, s).ms);
          t.wasm.push(timed(wasm, s).ms);
        }
      }
      const nm = percentile(t.native, 0.5);
      const wm = percentile(t.wasm, 0.5);
      lines.push(`| ${withSymbol ? 'with a symbol' : 'empty frame'} | ${ms(nm)} / ${ms(percentile(t.native, 0.95))} | ${ms(wm)} / ${ms(percentile(t.wasm, 0.95))} | ${(wm / nm).toFixed(2)} | ${t.native.length} |`);
    }
  }
  console.log(lines.join('\n'));
}

main().catch((e) => { console.error(e); process.exit(1); });
