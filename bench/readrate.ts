// DotCode read-rate benchmark on the deterministic synthetic images (test/fixtures/dotcode-render).
//
//   node dist/bench/readrate.js [--n 100] [--category clean,rotated] [--seed 1]
//        [--no-engine] [--speed-runs 100] [--no-speed] [--dump DIR] [--record]
//
// Per category: read rate, misreads (wrong payload), false positives (negatives), median and
// p95 detector time (addon called directly on the grey buffer) and, for JPEG categories, the
// same through the public engine (lib/engine, JPEG decoding included). Then the speed rows:
// 1280x720 frames with and without a symbol. --record writes the table into bench/RESULTS.md
// (its "DotCode read rate" section only). docs/readrate.md explains the categories.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import sharp from 'sharp';

import {
  CATEGORIES, isCategory, renderFrame720, renderSample, zintAvailable,
  type Category, type Sample,
} from '../test/fixtures/dotcode-render';
import {
  GOALS, loadAddon, loadEngine, percentile, REPO_ROOT, runAddon, runEngine, summarize,
  type Outcome, type Stats,
} from './readrate-core';

interface Args {
  n: number;
  categories: Category[];
  seed: number;
  engine: boolean;
  speedRuns: number;
  speed: boolean;
  dump: string | null;
  record: boolean;
}

function parseArgs(argv: string[]): Args {
  const a: Args = { n: 100, categories: [...CATEGORIES], seed: 1, engine: true, speedRuns: 100, speed: true, dump: null, record: false };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const v = (): string => {
      const x = argv[++i];
      if (x === undefined) throw new Error(`${k} needs a value`);
      return x;
    };
    if (k === '--n') a.n = Number(v());
    else if (k === '--category') {
      const cs = v().split(',');
      for (const c of cs) if (!isCategory(c)) throw new Error(`unknown category ${c}; one of ${CATEGORIES.join(', ')}`);
      a.categories = cs as Category[];
    } else if (k === '--seed') a.seed = Number(v());
    else if (k === '--no-engine') a.engine = false;
    else if (k === '--speed-runs') a.speedRuns = Number(v());
    else if (k === '--no-speed') a.speed = false;
    else if (k === '--dump') a.dump = v();
    else if (k === '--record') a.record = true;
    else throw new Error(`unknown option ${k}`);
  }
  if (!(a.n > 0)) throw new Error('--n must be positive');
  return a;
}

const pct = (k: number, n: number): string => (n ? `${((100 * k) / n).toFixed(1)}%` : '-');
const ms = (x: number): string => (Number.isFinite(x) ? x.toFixed(2) : '-');

async function dumpFailure(dir: string, s: Sample, o: Outcome): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const base = path.join(dir, s.name.replace('/', '-'));
  await sharp(Buffer.from(s.grey), { raw: { width: s.width, height: s.height, channels: 1 } }).png().toFile(`${base}.png`);
  writeFileSync(`${base}.json`, JSON.stringify({ name: s.name, expected: s.expectedText, got: o.got, error: o.error, params: s.params, corners: s.truth?.corners }, null, 1));
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const addon = loadAddon();
  const engine = args.engine ? loadEngine() : null;
  if (args.engine && !engine) console.log('note: dist/lib/engine not found; engine columns skipped');
  if (engine?.warmUp) await engine.warmUp();
  console.log(`DotCode read rate: ${args.n} samples per category, seeds ${args.seed}..${args.seed + args.n - 1}, ` +
    `encoders bwip-js${zintAvailable() ? ' + zint' : ' (zint not on PATH)'}; ${os.cpus().length} cores, Node ${process.version}`);

  const rows: Array<{ cat: Category; addon: Stats; engine: Stats | null; renderMs: number; ceiling: number }> = [];
  let coldMs: number | null = null;
  for (const cat of args.categories) {
    const outs: Outcome[] = [];
    const engOuts: Outcome[] = [];
    let renderMs = 0;
    let ceiling = 0;
    for (let i = 0; i < args.n; i++) {
      const t0 = Date.now();
      const s = await renderSample(cat, args.seed + i);
      renderMs += Date.now() - t0;
      const o = runAddon(addon, s);
      if (coldMs === null) coldMs = o.ms;
      outs.push(o);
      // Ceiling: would a perfect detector read it? (the decoding core on the printed grid)
      if (s.truth && s.expected) {
        const g = addon.decodeGrid({ rows: s.truth.rows, cols: s.truth.cols, values: s.truth.printed });
        if (g && Buffer.from(g.bytes).equals(s.expected)) ceiling++;
      }
      if (args.dump && (o.misread || o.falsePositive || (!o.read && s.expected))) await dumpFailure(args.dump, s, o);
      if (engine && s.encoded) engOuts.push(await runEngine(engine, s, s.encoded));
    }
    const st = summarize(cat, outs);
    const en = engOuts.length ? summarize(cat, engOuts) : null;
    rows.push({ cat, addon: st, engine: en, renderMs, ceiling });
    const goal = GOALS[cat];
    const verdict = goal === null
      ? (st.falsePositives === 0 ? 'ok' : 'FAIL')
      : st.read >= goal * st.n && st.misreads === 0 ? 'ok' : 'below goal';
    console.log(`${cat.padEnd(12)} read ${pct(st.read, st.n).padStart(6)} (${st.read}/${st.n})  misreads ${st.misreads}  ` +
      `false+ ${st.falsePositives}  errors ${st.errors}  median ${ms(st.medianMs)} ms  p95 ${ms(st.p95Ms)} ms` +
      (en ? `  | engine read ${pct(en.read, en.n)} mis ${en.misreads} fp ${en.falsePositives} median ${ms(en.medianMs)} p95 ${ms(en.p95Ms)}` : '') +
      (cat !== 'negative' ? `  ceiling ${ceiling}/${st.n}` : '') +
      `  [goal ${goal === null ? 'no false positives' : `${goal * 100}%`}: ${verdict}]` +
      (Object.keys(st.vias).length ? `  via ${JSON.stringify(st.vias)}` : ''));
  }

  const speed: Array<{ label: string; median: number; p95: number; runs: number; found: number }> = [];
  if (args.speed) {
    for (const withSymbol of [true, false]) {
      // Five different frames, each decoded speedRuns/5 times: the median is over all calls.
      const times: number[] = [];
      let found = 0;
      const frames = 5;
      for (let f = 0; f < frames; f++) {
        const s = await renderFrame720(withSymbol, f + 1);
        for (let r = 0; r < Math.max(1, Math.round(args.speedRuns / frames)); r++) {
          const o = runAddon(addon, s);
          times.push(o.ms);
          if (r === 0 && (withSymbol ? o.read : o.got.length === 0)) found++;
        }
      }
      const label = withSymbol ? '1280x720 frame with a DotCode' : '1280x720 frame without DotCode';
      speed.push({ label, median: percentile(times, 0.5), p95: percentile(times, 0.95), runs: times.length, found });
      console.log(`speed: ${label}: median ${ms(percentile(times, 0.5))} ms, p95 ${ms(percentile(times, 0.95))} ms over ${times.length} calls ` +
        `(${withSymbol ? `read in ${found}/${frames} frames` : `clean in ${found}/${frames} frames`})`);
    }
  }
  if (coldMs !== null) console.log(`first detector call in this process: ${ms(coldMs)} ms`);
  if (engine) await engine.close();

  if (args.record) record(args, rows, speed, coldMs);
}

function record(args: Args, rows: Array<{ cat: Category; addon: Stats; engine: Stats | null; ceiling: number }>,
  speed: Array<{ label: string; median: number; p95: number; runs: number }>, coldMs: number | null): void {
  const file = path.join(REPO_ROOT, 'bench', 'RESULTS.md');
  const lines: string[] = [];
  lines.push('## DotCode read rate', '');
  lines.push(`Measured ${new Date().toISOString().slice(0, 10)} with \`node dist/bench/readrate.js --n ${args.n} --seed ${args.seed} --record\` ` +
    `(synthetic images from test/fixtures/dotcode-render, see docs/readrate.md; ${os.cpus().length} cores, Node ${process.version}). ` +
    'Detector time: the addon\'s readImageSync on the grey buffer. Ceiling: samples whose printed dot grid the decoding core reads (what a perfect detector could read). ' +
    'Engine columns (JPEG categories): lib/engine decodeAll on the JPEG bytes, decoding included. ' +
    `Repository at ${gitHead()}; load average at the end ${os.loadavg().map((x) => x.toFixed(1)).join(' / ')} (the machine is shared: times are noisy).`, '');
  lines.push('| category | goal | read rate | misreads | false positives | median ms | p95 ms | ceiling | engine read | engine median ms | engine p95 ms |');
  lines.push('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const g = GOALS[r.cat];
    const e = r.engine;
    lines.push(`| ${r.cat} | ${g === null ? '0 false positives' : `>= ${g * 100}%`} | ${r.cat === 'negative' ? '-' : `${pct(r.addon.read, r.addon.n)} (${r.addon.read}/${r.addon.n})`} | ` +
      `${r.addon.misreads} | ${r.cat === 'negative' ? r.addon.falsePositives : '-'} | ${ms(r.addon.medianMs)} | ${ms(r.addon.p95Ms)} | ` +
      `${r.cat === 'negative' ? '-' : `${r.ceiling}/${r.addon.n}`} | ` +
      `${e ? (r.cat === 'negative' ? `fp ${e.falsePositives}` : pct(e.read, e.n)) : '-'} | ${e ? ms(e.medianMs) : '-'} | ${e ? ms(e.p95Ms) : '-'} |`);
  }
  if (speed.length) {
    lines.push('', '| speed (detector, 1280x720) | median ms | p95 ms | calls |', '|---|---|---|---|');
    for (const s of speed) lines.push(`| ${s.label} | ${ms(s.median)} | ${ms(s.p95)} | ${s.runs} |`);
    if (coldMs !== null) lines.push(`| first detector call in a fresh process | ${ms(coldMs)} | - | 1 |`);
  }
  const section = `<!-- readrate:begin -->\n${lines.join('\n')}\n<!-- readrate:end -->`;
  let text = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmark results\n';
  if (text.includes('<!-- readrate:begin -->')) text = text.replace(/<!-- readrate:begin -->[\s\S]*?<!-- readrate:end -->/, section);
  else text = `${text.trimEnd()}\n\n${section}\n`;
  writeFileSync(file, text);
  console.log(`recorded in ${path.relative(process.cwd(), file)}`);
}

function gitHead(): string {
  const r = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : 'unknown commit';
}

main().catch((e) => {
  console.error(`readrate: ${(e as Error).message}`);
  process.exit(1);
});
