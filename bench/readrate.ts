// DotCode read-rate benchmark on the deterministic synthetic images (test/fixtures/dotcode-render).
//
//   node dist/bench/readrate.js [--n 100] [--category clean,rotated] [--seed 1]
//        [--no-engine] [--speed-runs 100] [--no-speed] [--dump DIR] [--record]
//   node dist/bench/readrate.js --real [--record]
//
// Per category: read rate, misreads (wrong payload), false positives (negatives), median and
// p95 detector time (addon called directly on the grey buffer) and, for JPEG categories, the
// same through the public engine (lib/engine, JPEG decoding included). Then the speed rows:
// 1280x720 frames with and without a symbol, and blank ones under sensor noise. --record writes the table into bench/RESULTS.md
// (its "DotCode read rate" section: rows of categories not in the run are kept) and, for the
// categories the mocha test holds to a floor (FLOOR_CATEGORIES), the reads of the test's own 20
// samples into the "test floors" section. --real reads the photographs of
// ../shared/corpus/real-dotcode per kind instead (readrate-real.ts); with --record it writes
// their section, the real-photo test's floor. docs/readrate.md explains the categories.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import sharp from 'sharp';

import {
  CATEGORIES, isCategory, renderBlankFrame720, renderFrame720, renderSample, zintAvailable,
  type Category, type Sample,
} from '../test/fixtures/dotcode-render';
import {
  FLOOR_CATEGORIES, GOALS, loadAddon, loadEngine, percentile, REPO_ROOT, runAddon, runEngine, summarize,
  TEST_FIRST_SEED, TEST_SAMPLES, type Addon, type Outcome, type Stats,
} from './readrate-core';
import { walkOptions } from './options';
import { dotcodeOptions } from '../lib/engine/speed';

/** A still image as decode() reads it by default (speed 'balanced': its detector budget). */
const STILL = dotcodeOptions('balanced');
import type { Speed } from '../lib/engine/types';
import { readRealPhoto, REAL_DIR, REAL_KINDS, realPhotos, summarizeReal, type RealOutcome } from './readrate-real';
import { FLOORS_SECTION, keptRows, readSection, REAL_SECTION, writeSection } from './readrate-results';

interface Args {
  n: number;
  categories: Category[];
  seed: number;
  engine: boolean;
  speedRuns: number;
  speed: boolean;
  dump: string | null;
  record: boolean;
  real: boolean;
}

function parseArgs(argv: string[]): Args {
  const a: Args = { n: 100, categories: [...CATEGORIES], seed: 1, engine: true, speedRuns: 100, speed: true, dump: null, record: false, real: false };
  walkOptions(argv, (k, v) => {
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
    else if (k === '--real') a.real = true;
    else return false;
    return true;
  });
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
  if (args.real) return mainReal(args);
  const addon = loadAddon();
  const engine = args.engine ? loadEngine() : null;
  if (args.engine && !engine) console.log('note: dist/lib/engine not found; engine columns skipped');
  if (engine?.warmUp) await engine.warmUp();
  console.log(`DotCode read rate: ${args.n} samples per category, seeds ${args.seed}..${args.seed + args.n - 1}, ` +
    `encoders bwip-js${zintAvailable() ? ' + zint' : ' (zint not on PATH)'}; ${os.cpus().length} cores, Node ${process.version}`);

  const rows: Row[] = [];
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
      const o = runAddon(addon, s, STILL);
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
    // The mocha test's own samples, for the categories it holds to a recorded floor.
    const subset = args.record && FLOOR_CATEGORIES.includes(cat) ? await testSubsetReads(addon, cat) : undefined;
    rows.push({ cat, addon: st, engine: en, renderMs, ceiling, subset });
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
    // The detector as a still image gets it (every pass, within the time budget) and as a live
    // frame does with speed 'video' (the fast passes only: lib/engine/speed.ts dotcodeOptions).
    for (const sp of ['balanced', 'video'] as const) {
      for (const kind of ['with', 'without', 'blank'] as const) {
        const row = await timeFrames(addon, kind, sp, args.speedRuns);
        speed.push(row);
        console.log(`speed: ${row.label}: median ${ms(row.median)} ms, p95 ${ms(row.p95)} ms over ${row.runs} calls ` +
          `(${kind === 'with' ? 'read' : 'clean'} in ${row.found}/${SPEED_FRAMES} frames)`);
      }
    }
  }
  if (coldMs !== null) console.log(`first detector call in this process: ${ms(coldMs)} ms`);
  if (engine) await engine.close();

  if (args.record) record(args, rows, speed, coldMs);
}

const SPEED_FRAMES = 5;

const FRAME_LABELS = {
  with: '1280x720 frame with a DotCode',
  without: '1280x720 frame without DotCode',
  blank: '1280x720 blank frame, sensor noise',
} as const;

/**
 * The detector on five different 720p frames, each read speedRuns/5 times: the median is over all
 * calls. Frames with a DotCode, cluttered ones without, and blank ones under sensor noise.
 */
async function timeFrames(addon: Addon, kind: keyof typeof FRAME_LABELS, sp: Speed, speedRuns: number) {
  const withSymbol = kind === 'with';
  const times: number[] = [];
  let found = 0;
  for (let f = 0; f < SPEED_FRAMES; f++) {
    const s = kind === 'blank' ? renderBlankFrame720(f + 1) : await renderFrame720(withSymbol, f + 1);
    for (let r = 0; r < Math.max(1, Math.round(speedRuns / SPEED_FRAMES)); r++) {
      const o = runAddon(addon, s, dotcodeOptions(sp));
      times.push(o.ms);
      if (r === 0 && (withSymbol ? o.read : o.got.length === 0)) found++;
    }
  }
  const label = FRAME_LABELS[kind] + (sp === 'video' ? ", speed 'video'" : '');
  return { label, median: percentile(times, 0.5), p95: percentile(times, 0.95), runs: times.length, found };
}

interface Row {
  cat: Category;
  addon: Stats;
  engine: Stats | null;
  renderMs: number;
  ceiling: number;
  /** Reads (and misreads) of the mocha test's samples (seeds 1001-1020), for FLOOR_CATEGORIES. */
  subset?: { read: number; misreads: number };
}

/** The mocha read-rate test's samples of `cat`, scored as the test scores them. */
async function testSubsetReads(addon: Addon, cat: Category): Promise<{ read: number; misreads: number }> {
  let read = 0;
  let misreads = 0;
  for (let i = 0; i < TEST_SAMPLES; i++) {
    const o = runAddon(addon, await renderSample(cat, TEST_FIRST_SEED + i), STILL);
    if (o.read) read++;
    if (o.misread || o.falsePositive) misreads++;
  }
  return { read, misreads };
}

function record(args: Args, rows: Row[],
  speed: Array<{ label: string; median: number; p95: number; runs: number }>, coldMs: number | null): void {
  const file = path.join(REPO_ROOT, 'bench', 'RESULTS.md');
  const previous = readSection('readrate');
  const measured = new Set<string>(rows.map((r) => r.cat));
  const kept = keptRows(previous?.split('| speed')[0] ?? null, measured);
  kept.delete('category');
  const lines: string[] = [];
  lines.push('## DotCode read rate', '');
  lines.push(`Measured ${new Date().toISOString().slice(0, 10)} with \`node dist/bench/readrate.js --n ${args.n} --seed ${args.seed}` +
    `${args.categories.length < CATEGORIES.length ? ` --category ${args.categories.join(',')}` : ''} --record\` ` +
    `(synthetic images from test/fixtures/dotcode-render, see docs/readrate.md; ${os.cpus().length} cores, Node ${process.version}). ` +
    'Detector time: the addon\'s readImageSync on the grey buffer. Ceiling: samples whose printed dot grid the decoding core reads (what a perfect detector could read). ' +
    'Engine columns (JPEG categories): lib/engine decodeAll on the JPEG bytes, decoding included. ' +
    `Repository at ${gitHead()}; load average at the end ${os.loadavg().map((x) => x.toFixed(1)).join(' / ')} (the machine is shared: times are noisy).` +
    (kept.size ? ` Rows of ${[...kept.keys()].join(', ')}${speed.length ? '' : ' and the speed rows'}: kept from the previous record` +
      ` (${previousRecord(previous)}), not in this run.` : ''), '');
  lines.push('| category | goal | read rate | misreads | false positives | median ms | p95 ms | ceiling | engine read | engine median ms | engine p95 ms |');
  lines.push('|---|---|---|---|---|---|---|---|---|---|---|');
  const fresh = new Map<string, string>();
  for (const r of rows) {
    const g = GOALS[r.cat];
    const e = r.engine;
    fresh.set(r.cat, `| ${r.cat} | ${g === null ? '0 false positives' : `>= ${g * 100}%`} | ${r.cat === 'negative' ? '-' : `${pct(r.addon.read, r.addon.n)} (${r.addon.read}/${r.addon.n})`} | ` +
      `${r.addon.misreads} | ${r.cat === 'negative' ? r.addon.falsePositives : '-'} | ${ms(r.addon.medianMs)} | ${ms(r.addon.p95Ms)} | ` +
      `${r.cat === 'negative' ? '-' : `${r.ceiling}/${r.addon.n}`} | ` +
      `${e ? (r.cat === 'negative' ? `fp ${e.falsePositives}` : pct(e.read, e.n)) : '-'} | ${e ? ms(e.medianMs) : '-'} | ${e ? ms(e.p95Ms) : '-'} |`);
  }
  // Table order follows CATEGORIES; rows measured now replace the kept ones.
  for (const c of CATEGORIES) {
    const line = fresh.get(c) ?? kept.get(c);
    if (line) lines.push(line);
  }
  if (speed.length) {
    lines.push('', '| speed (detector, 1280x720) | median ms | p95 ms | calls |', '|---|---|---|---|');
    for (const s of speed) lines.push(`| ${s.label} | ${ms(s.median)} | ${ms(s.p95)} | ${s.runs} |`);
    if (coldMs !== null) lines.push(`| first detector call in a fresh process | ${ms(coldMs)} | - | 1 |`);
  } else if (previous?.includes('| speed')) {
    lines.push('', `| speed${previous.split('| speed')[1].trimEnd()}`);
  }
  writeSection('readrate', lines.join('\n'), file);
  recordFloors(args, rows);
  console.log(`recorded in ${path.relative(process.cwd(), file)}`);
}

/** "2026-11-22, `node ...`, repository at abc1234" from a section written by record(), for kept rows. */
function previousRecord(previous: string | null): string {
  const when = /Measured (\S+) with (`[^`]+`)/.exec(previous ?? '');
  const repo = /Repository at (\w+)/.exec(previous ?? '');
  return when ? `${when[1]}, ${when[2]}${repo ? `, repository at ${repo[1]}` : ''}` : 'date unknown';
}

/**
 * The floors section: for each FLOOR_CATEGORIES category measured in this run, how many of the
 * mocha test's 20 samples the detector reads now. The test fails when fewer read.
 */
function recordFloors(args: Args, rows: Row[]): void {
  const fresh = rows.filter((r) => r.subset);
  if (!fresh.length) return;
  const kept = keptRows(readSection(FLOORS_SECTION), new Set(fresh.map((r) => r.cat)));
  kept.delete('category');
  const date = new Date().toISOString().slice(0, 10);
  const lines = [
    '## DotCode read-rate test floors', '',
    'While the detector is rewritten for the scenes of issue 11, the mocha read-rate test ' +
    '(test/readrate/readrate.test.ts) holds the categories listed in FLOOR_CATEGORIES ' +
    '(bench/readrate-core.ts) to the reads recorded here instead of their goal: its 20 samples ' +
    `(seeds ${TEST_FIRST_SEED}-${TEST_FIRST_SEED + TEST_SAMPLES - 1}) must read at least as many again, with no misread. ` +
    'Written by `node dist/bench/readrate.js --record` (only for the categories in that run); ' +
    're-record after a detector change, and drop a category from FLOOR_CATEGORIES once it meets its goal.', '',
    '| category | goal | test samples read (floor) | misreads | bench read rate | recorded |',
    '|---|---|---|---|---|---|',
  ];
  for (const c of CATEGORIES) {
    const r = fresh.find((x) => x.cat === c);
    if (r?.subset) {
      lines.push(`| ${c} | >= ${(GOALS[c] ?? 0) * 100}% | ${r.subset.read}/${TEST_SAMPLES} | ${r.subset.misreads} | ` +
        `${r.addon.read}/${r.addon.n} (seeds ${args.seed}-${args.seed + args.n - 1}) | ${date}, ${gitHead()} |`);
    } else if (kept.has(c)) lines.push(kept.get(c)!);
  }
  writeSection(FLOORS_SECTION, lines.join('\n'));
}

/** --real: the photographs of ../shared/corpus/real-dotcode, per kind; --record writes their section. */
async function mainReal(args: Args): Promise<void> {
  const photos = realPhotos();
  if (!photos) {
    console.log(`real photos: ${REAL_DIR} not found; nothing to measure`);
    return;
  }
  console.log(`DotCode read rate on ${photos.length} real photographs (${path.relative(REPO_ROOT, REAL_DIR)}), engine grey path + addon; ` +
    `${os.cpus().length} cores, Node ${process.version}`);
  const outs: RealOutcome[] = [];
  for (const p of photos) {
    const o = await readRealPhoto(p, undefined, STILL);
    outs.push(o);
    if (o.misread) console.log(`MISREAD ${p.file}: expected ${JSON.stringify(p.expected)}, got ${JSON.stringify(o.got)}`);
    if (o.error) console.log(`error ${p.file}: ${o.error}`);
  }
  const stats = REAL_KINDS.map((k) => summarizeReal(k, outs));
  for (const s of stats) {
    console.log(`${s.kind.padEnd(6)} read ${pct(s.read, s.n).padStart(6)} (${s.read}/${s.n})  misreads ${s.misreads}  errors ${s.errors}  ` +
      `grey median ${ms(s.greyMedianMs)} ms  detector median ${ms(s.detectMedianMs)} ms  p95 ${ms(s.detectP95Ms)} ms`);
    const unread = outs.filter((o) => o.photo.kind === s.kind && !o.read).map((o) => o.photo.file);
    if (unread.length) console.log(`       unread: ${unread.join(' ')}`);
  }
  if (!args.record) return;
  const lines = [
    '## DotCode read rate on real photographs', '',
    `Measured ${new Date().toISOString().slice(0, 10)} with \`node dist/bench/readrate.js --real --record\` on the photographs of ` +
    '`../shared/corpus/real-dotcode` (test data, not in this repository; bench/readrate-real.ts). Each photo takes the engine\'s path: ' +
    'loadGrey (sharp, BT.601 luma) then readDotCode (the addon, up to 64 symbols). Read: the expected text is among the symbols returned; ' +
    'misread: any other text returned (must be zero). Grey: file to grey plane; detector: readDotCode. ' +
    `Repository at ${gitHead()}; load average ${os.loadavg().map((x) => x.toFixed(1)).join(' / ')}; ${os.cpus().length} cores, Node ${process.version}. ` +
    'The read column is the floor of test/readrate/real-photos.test.ts: the read rate of either kind may not drop below it. Issue 11 goals: packs >= 90%, prints >= 97%.', '',
    '| kind | images | read | read rate | misreads | grey median ms | detector median ms | detector p95 ms |',
    '|---|---|---|---|---|---|---|---|',
    ...stats.map((s) => `| ${s.kind} | ${s.n} | ${s.read}/${s.n} | ${pct(s.read, s.n)} | ${s.misreads} | ${ms(s.greyMedianMs)} | ${ms(s.detectMedianMs)} | ${ms(s.detectP95Ms)} |`),
  ];
  writeSection(REAL_SECTION, lines.join('\n'));
  console.log('recorded in bench/RESULTS.md');
}

function gitHead(): string {
  const r = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : 'unknown commit';
}

main().catch((e) => {
  console.error(`readrate: ${(e as Error).message}`);
  process.exit(1);
});
