// Adversarial images for the DotCode detector (issue 4: "must never crash or hang on any image
// ... bound its work per image").
//
// Every image goes straight into the addon's readImageSync (no engine, no JPEG) with the default
// ReadOptions. A crash (SIGSEGV, abort) or a hang would take mocha down with it, so the images run
// in a CHILD process (this same file, started with DC_DET_ADV_CHILD=1) that reports one JSON line
// before and one after each call; the parent kills the child when it stops making progress and
// names the image in flight. Per image the parent checks: the call returned, within the time
// bound, an array, and no symbol (none of these images holds a DotCode). All randomness is seeded
// (mulberry32), so a failure replays exactly: the case name is the reproduction.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { mulberry32 } from '../support/seeded';
import { loadAddon } from '../../lib/engine/addon';

const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
const SEED = Number(process.env.DC_DET_ADV_SEED ?? 20261122);
/** ReadOptions.timeBudgetMs default (native/detector/dotcode_reader.h). */
const BUDGET_MS = 250;
/**
 * Wall time allowed per call: 4x the budget plus slack. The budget is a wall-clock deadline
 * checked between stages, so an overshoot is one uninterruptible stage, stretched by the load
 * of this shared 2-core machine.
 */
const TIME_BOUND_MS = Number(process.env.DC_DET_ADV_BOUND_MS ?? 4 * BUDGET_MS + 500);
/**
 * CPU a call may take: the budget plus one uninterruptible stage started just before the deadline
 * (the worst seen here: a 1280x720 checkerboard of 4 px squares, 373-431 ms, bench_detector_frames
 * --cpu). Wall time over TIME_BOUND_MS counts only with CPU over this: a call 5 ms over its budget
 * on a machine loaded six-fold (1597 ms wall, 255 ms CPU, with .ci/run and npm test side by side)
 * is the machine, not the detector.
 */
const CPU_BOUND_MS = 2 * BUDGET_MS;
/** No line from the child for this long: it hangs (far above any sane single call; even with a
 * 20 s budget the worst image here stays far below it, so the work is bounded by caps, not only
 * time: bench/RESULTS.md, "Figures behind code comments"). */
const STALL_MS = 15_000;
const FUZZ_IMAGES = 200;


interface Img { grey: Uint8Array; width: number; height: number }

// ---------------------------------------------------------------- image makers (child side)

function filled(w: number, h: number, v: number): Img {
  return { grey: new Uint8Array(w * h).fill(v), width: w, height: h };
}

function disc(g: Img, cx: number, cy: number, r: number, v: number): void {
  const x0 = Math.max(0, Math.floor(cx - r)), x1 = Math.min(g.width - 1, Math.ceil(cx + r));
  const y0 = Math.max(0, Math.floor(cy - r)), y1 = Math.min(g.height - 1, Math.ceil(cy + r));
  const r2 = r * r + 0.25;
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) if ((x - cx) ** 2 + (y - cy) ** 2 <= r2) g.grey[y * g.width + x] = v;
  }
}

/**
 * Dots on a lattice filling the whole image. `checker`: only positions with (i + j) even, the
 * DotCode arrangement; `fill` < 1 keeps each position with that probability (random data).
 */
function lattice(w: number, h: number, pitch: number, o: { checker?: boolean; fill?: number; dark?: boolean; hex?: boolean; rnd?: () => number } = {}): Img {
  const dark = o.dark ?? true;
  const g = filled(w, h, dark ? 235 : 25);
  const r = Math.max(0.5, pitch * (o.checker ? 0.45 : 0.33));
  for (let j = 0, y = pitch / 2; y < h + pitch; j++, y += o.hex ? pitch * 0.866 : pitch) {
    for (let i = 0, x = pitch / 2 + (o.hex && j % 2 ? pitch / 2 : 0); x < w + pitch; i++, x += pitch) {
      if (o.checker && (i + j) % 2) continue;
      if (o.fill !== undefined && o.rnd && o.rnd() >= o.fill) continue;
      disc(g, x, y, r, dark ? 20 : 240);
    }
  }
  return g;
}

function randomDots(w: number, h: number, count: number, rMin: number, rMax: number, rnd: () => number): Img {
  const g = filled(w, h, 230);
  for (let k = 0; k < count; k++) {
    const r = rMin + rnd() * (rMax - rMin);
    if (r < 0.75) g.grey[Math.floor(rnd() * h) * w + Math.floor(rnd() * w)] = 15;
    else disc(g, rnd() * w, rnd() * h, r, 15);
  }
  return g;
}

function stripes(w: number, h: number, period: number, dir: 'v' | 'h' | 'd'): Img {
  const g = filled(w, h, 0);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const t = dir === 'v' ? x : dir === 'h' ? y : x + y;
      g.grey[y * w + x] = Math.floor(t / (period / 2)) % 2 ? 10 : 245;
    }
  }
  return g;
}

function checkerboard(w: number, h: number, pitch: number): Img {
  const g = filled(w, h, 0);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) g.grey[y * w + x] = (Math.floor(x / pitch) + Math.floor(y / pitch)) % 2 ? 10 : 245;
  }
  return g;
}

function saltPepper(w: number, h: number, frac: number, base: number, rnd: () => number): Img {
  const g = filled(w, h, base);
  for (let i = 0; i < g.grey.length; i++) if (rnd() < frac) g.grey[i] = rnd() < 0.5 ? 0 : 255;
  return g;
}

function noise(w: number, h: number, rnd: () => number): Img {
  const g = filled(w, h, 0);
  for (let i = 0; i < g.grey.length; i++) g.grey[i] = Math.floor(rnd() * 256);
  return g;
}

/**
 * Patches of random data on a DotCode checkerboard lattice, with a light quiet zone: each looks
 * like a symbol to every stage before Reed-Solomon, which must refuse it (a read is a misread).
 */
function fakeSymbols(w: number, h: number, rnd: () => number): Img {
  const g = filled(w, h, 200);
  for (let s = 0; s < 4; s++) {
    const pitch = 4 + Math.floor(rnd() * 6), rows = 12 + Math.floor(rnd() * 30), cols = 17 + Math.floor(rnd() * 40);
    const x0 = rnd() * Math.max(1, w - (cols + 6) * pitch), y0 = rnd() * Math.max(1, h - (rows + 6) * pitch);
    for (let y = Math.floor(y0); y < Math.min(h, y0 + (rows + 6) * pitch); y++) {
      for (let x = Math.floor(x0); x < Math.min(w, x0 + (cols + 6) * pitch); x++) g.grey[y * w + x] = 240;
    }
    for (let j = 0; j < rows; j++) {
      for (let i = 0; i < cols; i++) {
        if ((i + j) % 2 || rnd() < 0.45) continue;
        disc(g, x0 + (i + 3.5) * pitch, y0 + (j + 3.5) * pitch, pitch * 0.4, 20);
      }
    }
  }
  return g;
}

interface Case { name: string; make: () => Img }

/** The named adversarial images; names are the reproduction (sizes, pitches, seeds). */
function adversarialCases(): Case[] {
  const c: Case[] = [];
  const add = (name: string, make: () => Img) => c.push({ name, make });
  const seeded = (k: number) => mulberry32(SEED + k);
  for (const p of [3, 5, 8, 14]) add(`all-dots square lattice pitch ${p} 1920x1080`, () => lattice(1920, 1080, p));
  for (const p of [3, 4, 6, 10, 20]) add(`all-dots DotCode checkerboard lattice pitch ${p} 1920x1080`, () => lattice(1920, 1080, p, { checker: true }));
  add('all-dots checkerboard lattice pitch 6, light dots on dark, 1920x1080', () => lattice(1920, 1080, 6, { checker: true, dark: false }));
  add('all-dots hexagonal lattice pitch 7 1920x1080', () => lattice(1920, 1080, 7, { hex: true }));
  add(`random data on a checkerboard lattice pitch 6 (fill 0.55) 1920x1080, seed ${SEED + 1}`, () => lattice(1920, 1080, 6, { checker: true, fill: 0.55, rnd: seeded(1) }));
  for (const k of [2, 3, 4]) add(`fake symbols (random dots on DotCode lattices) 1280x720, seed ${SEED + k}`, () => fakeSymbols(1280, 720, seeded(k)));
  add(`random dots: 120,000 discs r 1-2.5 on 1920x1080, seed ${SEED + 5}`, () => randomDots(1920, 1080, 120_000, 1, 2.5, seeded(5)));
  add(`random dots: 200,000 single pixels on 1920x1080, seed ${SEED + 6}`, () => randomDots(1920, 1080, 200_000, 0, 0.5, seeded(6)));
  add(`random dots: 100,000 discs r 2-3 on 1280x720 (overlapping), seed ${SEED + 7}`, () => randomDots(1280, 720, 100_000, 2, 3, seeded(7)));
  add(`random dots: 30,000 discs r 1.5-4 on 1920x1080, seed ${SEED + 8}`, () => randomDots(1920, 1080, 30_000, 1.5, 4, seeded(8)));
  for (const p of [2, 4, 8, 16]) add(`vertical stripes period ${p} 1280x720`, () => stripes(1280, 720, p, 'v'));
  add('horizontal stripes period 6 1280x720', () => stripes(1280, 720, 6, 'h'));
  add('diagonal stripes period 6 1920x1080', () => stripes(1920, 1080, 6, 'd'));
  for (let p = 1; p <= 8; p++) add(`checkerboard pitch ${p} 1280x720`, () => checkerboard(1280, 720, p));
  for (const [f, base] of [[0.02, 255], [0.05, 128], [0.3, 128], [0.5, 128]] as const) {
    add(`salt-and-pepper ${f * 100}% on ${base} 1920x1080, seed ${SEED + 10}`, () => saltPepper(1920, 1080, f, base, seeded(10)));
  }
  add(`uniform random noise 1920x1080, seed ${SEED + 11}`, () => noise(1920, 1080, seeded(11)));
  for (const v of [0, 255, 128]) add(`uniform ${v} 1920x1080`, () => filled(1920, 1080, v));
  add('1x1 black', () => filled(1, 1, 0));
  add('2x3 white', () => filled(2, 3, 255));
  add(`1x4096 noise, seed ${SEED + 12}`, () => noise(1, 4096, seeded(12)));
  add(`4096x1 noise, seed ${SEED + 13}`, () => noise(4096, 1, seeded(13)));
  add('1x4096 stripes period 4', () => stripes(1, 4096, 4, 'h'));
  add('4096x1 stripes period 4', () => stripes(4096, 1, 4, 'v'));
  add(`8000x100 random dots (8,000 discs r 1-3), seed ${SEED + 14}`, () => randomDots(8000, 100, 8000, 1, 3, seeded(14)));
  add('8000x100 all-dots checkerboard lattice pitch 5', () => lattice(8000, 100, 5, { checker: true }));
  add(`100x8000 random dots (8,000 discs r 1-3), seed ${SEED + 15}`, () => randomDots(100, 8000, 8000, 1, 3, seeded(15)));
  add('8000x100 checkerboard pitch 1', () => checkerboard(8000, 100, 1));
  return c;
}

/** Fuzz image k: a random size (1 px to about 1 MP, long thin ones included) and random content. */
function fuzzImage(k: number): { name: string; img: Img } {
  const rnd = mulberry32(SEED * 31 + k);
  const side = () => Math.max(1, Math.floor(Math.exp(rnd() * Math.log(1500))));
  const w = side(), h = Math.max(1, Math.min(side(), Math.floor(1_000_000 / w)));
  const kinds = ['uniform', 'noise', 'salt-pepper', 'dots', 'lattice', 'stripes', 'checker', 'blocks', 'gradient-dots', 'fake'] as const;
  const kind = kinds[Math.floor(rnd() * kinds.length)];
  let img: Img;
  switch (kind) {
    case 'uniform': img = filled(w, h, Math.floor(rnd() * 256)); break;
    case 'noise': img = noise(w, h, rnd); break;
    case 'salt-pepper': img = saltPepper(w, h, rnd() * 0.6, Math.floor(rnd() * 256), rnd); break;
    case 'dots': img = randomDots(w, h, Math.floor(w * h * rnd() * 0.05), 0, 1 + rnd() * 6, rnd); break;
    case 'lattice': img = lattice(w, h, 2 + rnd() * 20, { checker: rnd() < 0.7, fill: rnd() < 0.5 ? 0.3 + rnd() * 0.7 : undefined, dark: rnd() < 0.6, hex: rnd() < 0.2, rnd }); break;
    case 'stripes': img = stripes(w, h, 2 + Math.floor(rnd() * 30), (['v', 'h', 'd'] as const)[Math.floor(rnd() * 3)]); break;
    case 'checker': img = checkerboard(w, h, 1 + Math.floor(rnd() * 12)); break;
    case 'blocks': {
      img = filled(w, h, Math.floor(rnd() * 256));
      const n = Math.floor(rnd() * 200);
      for (let b = 0; b < n; b++) {
        const bw = 1 + Math.floor(rnd() * 40), bh = 1 + Math.floor(rnd() * 40), x0 = Math.floor(rnd() * w), y0 = Math.floor(rnd() * h), v = Math.floor(rnd() * 256);
        for (let y = y0; y < Math.min(h, y0 + bh); y++) for (let x = x0; x < Math.min(w, x0 + bw); x++) img.grey[y * w + x] = v;
      }
      break;
    }
    case 'gradient-dots': {
      img = randomDots(w, h, Math.floor(w * h * 0.01), 1, 4, rnd);
      for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) img.grey[y * w + x] = Math.floor(img.grey[y * w + x] * (0.2 + 0.8 * x / w));
      break;
    }
    default: img = fakeSymbols(w, h, rnd);
  }
  return { name: `fuzz #${k} (seed ${SEED}): ${kind} ${w}x${h}`, img };
}

// ---------------------------------------------------------------- child

interface Line { i: number; name: string; phase: 'start' | 'done'; ms?: number; cpuMs?: number; symbols?: number; texts?: string[]; threw?: string; isArray?: boolean }

function child(): void {
  const addon = loadAddon();
  // fs.writeSync: the line is out before the next call, even if that call kills the process.
  const say = (l: Line) => fs.writeSync(1, JSON.stringify(l) + '\n');
  const all: Array<() => { name: string; img: Img }> = [
    ...adversarialCases().map((c) => () => ({ name: c.name, img: c.make() })),
    ...Array.from({ length: FUZZ_IMAGES }, (_, k) => () => fuzzImage(k)),
  ];
  // Control (index -1): a clean symbol through the same path must be read, so the "no symbol"
  // checks below cannot pass merely because the call path never reports anything.
  {
    const { renderClean } = require('../fixtures/dotcode-render') as typeof import('../fixtures/dotcode-render');
    const s = renderClean('ADVERSARIAL CONTROL 42', { pitch: 6 });
    const r = addon.readImageSync(s.grey, s.width, s.height);
    say({ i: -1, name: 'control', phase: 'done', isArray: true, symbols: r.length, texts: r.map((x) => Buffer.from(x.bytes).toString('latin1')) });
  }
  const only = process.env.DC_DET_ADV_ONLY; // replay one case by index
  // Exploration only (e.g. '{"timeBudgetMs":10000}' to see the work the caps alone allow).
  const options = process.env.DC_DET_ADV_OPTIONS ? JSON.parse(process.env.DC_DET_ADV_OPTIONS) as Record<string, unknown> : undefined;
  all.forEach((make, i) => {
    if (only !== undefined && Number(only) !== i) return;
    const { name, img } = make();
    say({ i, name, phase: 'start' });
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    let out: Line = { i, name, phase: 'done' };
    try {
      const r = addon.readImageSync(img.grey, img.width, img.height, options);
      out = { ...out, isArray: Array.isArray(r), symbols: Array.isArray(r) ? r.length : -1, texts: Array.isArray(r) ? r.map((x) => Buffer.from(x.bytes).toString('latin1')) : [] };
    } catch (e) {
      out.threw = (e as Error).message;
    }
    out.ms = Number(process.hrtime.bigint() - t0) / 1e6;
    const c = process.cpuUsage(c0);
    out.cpuMs = (c.user + c.system) / 1000;
    say(out);
  });
}

// ---------------------------------------------------------------- parent

interface RunResult { lines: Map<number, Line>; inFlight: Line | null; exit: string; stderr: string }

function runChild(): Promise<RunResult> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [__filename], { env: { ...process.env, DC_DET_ADV_CHILD: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    const lines = new Map<number, Line>();
    let inFlight: Line | null = null;
    let buf = '', stderr = '', stalled = false;
    let timer = setTimeout(() => { stalled = true; p.kill('SIGKILL'); }, STALL_MS);
    p.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const l = JSON.parse(buf.slice(0, nl)) as Line;
        buf = buf.slice(nl + 1);
        if (l.phase === 'start') inFlight = l;
        else { lines.set(l.i, l); inFlight = null; }
        clearTimeout(timer);
        timer = setTimeout(() => { stalled = true; p.kill('SIGKILL'); }, STALL_MS);
      }
    });
    p.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    p.on('exit', (code, signal) => {
      clearTimeout(timer);
      const exit = stalled ? `killed after ${STALL_MS} ms without progress (hang)` : signal ? `killed by ${signal} (crash)` : `exit code ${code}`;
      resolve({ lines, inFlight, exit, stderr });
    });
  });
}

/** What is wrong with one image's outcome, or null. */
function problem(l: Line | undefined): string | null {
  if (!l) return 'never ran (the child died or hung earlier)';
  if (l.threw !== undefined) return `threw: ${l.threw}`;
  if (!l.isArray) return 'did not return an array';
  if (l.symbols) return `returned ${l.symbols} symbol(s) on an image holding no DotCode: ${JSON.stringify(l.texts)}`;
  // Over the wall bound with little CPU spent is this shared machine's load, not detector work;
  // a detector that ignores its deadline burns CPU (single thread) past CPU_BOUND_MS, and one that
  // blocks without CPU trips STALL_MS.
  if ((l.ms ?? 0) > TIME_BOUND_MS && (l.cpuMs ?? 0) > CPU_BOUND_MS) return `took ${l.ms!.toFixed(0)} ms wall (cpu ${l.cpuMs!.toFixed(0)} ms), bound ${TIME_BOUND_MS} ms`;
  return null;
}

if (process.env.DC_DET_ADV_CHILD) {
  child();
} else {
  describe('DotCode detector on adversarial images (addon, child process)', function () {
    this.timeout(120_000);
    const cases = adversarialCases();
    let run: RunResult;

    before(async function () {
      loadAddon(); // says how to build it when it is missing
      run = await runChild();
      const done = [...run.lines.values()].filter((l) => l.i >= 0);
      const slow = done.sort((a, b) => (b.ms ?? 0) - (a.ms ?? 0)).slice(0, 3);
      // eslint-disable-next-line no-console
      console.log(`      ${done.length} images in the child (${run.exit}); slowest: ${slow.map((l) => `${l.name} ${l.ms!.toFixed(0)} ms (cpu ${l.cpuMs!.toFixed(0)})`).join('; ')}`);
    });

    it('the child neither crashes nor hangs', () => {
      const where = run.inFlight ? ` while reading "${run.inFlight.name}" (replay: DC_DET_ADV_CHILD=1 DC_DET_ADV_ONLY=${run.inFlight.i} node ${path.relative(REPO_ROOT, __filename)})` : '';
      assert.equal(run.exit, 'exit code 0', `child ${run.exit}${where}\n${run.stderr.slice(-2000)}`);
    });

    it('control: a clean symbol is read through the same child path', () => {
      assert.deepEqual(run.lines.get(-1)?.texts, ['ADVERSARIAL CONTROL 42']);
    });

    cases.forEach((c, i) => {
      it(c.name, () => {
        const p = problem(run.lines.get(i));
        assert.equal(p, null, `${c.name}: ${p}`);
      });
    });

    it(`seeded fuzz: ${FUZZ_IMAGES} random images (sizes 1x1 to ~1 MP, random content), seed ${SEED}`, () => {
      const bad: string[] = [];
      for (let k = 0; k < FUZZ_IMAGES; k++) {
        const i = cases.length + k;
        const l = run.lines.get(i);
        const p = problem(l);
        if (p) bad.push(`${l?.name ?? `fuzz #${k}`}: ${p}`);
      }
      assert.deepEqual(bad, [], `${bad.length} fuzz image(s) failed:\n${bad.join('\n')}`);
    });
  });
}
