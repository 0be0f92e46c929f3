// Our engine against native zxing-cpp on the same images, in one run (issue 13, part 1).
//
// Corpus: every image of ../shared/corpus/zxing-samples with a symbol (the falsepositives folders
// are left out), each reader restricted to the folder's format. Native is Debian's
// python3-zxing-cpp (zxingcpp.read_barcodes(PIL image, formats=F)) driven through
// bench/peers-native.py; ours is the public decode(bytes, { format }) of lib/engine. Both start
// from the file's bytes in memory, so image decoding is timed on both sides. Per image both
// sides run one untimed warm-up and then RUNS timed runs, native first then ours, image after
// image: the load other jobs put on this shared machine drifts, and interleaving puts both
// readers under the same drift. Per format the table gives reads (exact text, or bytes for .bin
// samples), the median and p95 of the per-image medians, and the ratio of the medians.
//
// Setup (bench only, not a product dependency): apt-get install -y python3-zxing-cpp python3-pil
// Run: npx tsc -p tsconfig.json && node dist/bench/peers.js [--runs 5] [--speed balanced] [--json] [--images FILE] [--cold]
import { spawn, spawnSync, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { close, decode, decodeAll, warmUp, type DecodeOptions, type Format } from '../lib/engine';
import { folderFormat, folders, repoRoot, samples, type Sample } from '../test/engine/corpus';

const HELPER = path.join(repoRoot, 'bench', 'peers-native.py');
const INSTALL_HINT = 'native zxing-cpp is missing: install it with `apt-get install -y python3-zxing-cpp python3-pil` (Debian), then run this bench again';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}
const RUNS = Number(arg('runs', '5'));
const SPEED = arg('speed', '');
/** --cold: skip the untimed pass over the corpus that warms both readers first (warmPass). */
const WARM = !process.argv.includes('--cold');
const JSON_OUT = process.argv.includes('--json');
/** --images FILE: also write every image's figures (file, pixels, both medians, reads) as JSON lines. */
const IMAGES_OUT = arg('images', '');

function quantile(sorted: number[], q: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}
const median = (xs: number[]): number => quantile([...xs].sort((a, b) => a - b), 0.5);
const p95 = (xs: number[]): number => quantile([...xs].sort((a, b) => a - b), 0.95);

/**
 * The python3 that has zxingcpp: Debian installs the binding for /usr/bin/python3, which a
 * pyenv or venv python3 earlier on PATH does not see.
 */
function findPython(): string | null {
  for (const py of ['/usr/bin/python3', 'python3']) {
    const r = spawnSync(py, ['-c', 'import zxingcpp, PIL'], { stdio: 'ignore' });
    if (r.status === 0) return py;
  }
  return null;
}

interface NativeAnswer { ms: number[]; texts: string[]; bytes: string[] }

/** One long-lived helper process, one request at a time. */
class Native {
  private lines: AsyncIterator<string>;
  constructor(private child: ChildProcessByStdio<Writable, Readable, null>) {
    this.lines = readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  }
  async ask<T>(req: object): Promise<T> {
    this.child.stdin.write(JSON.stringify(req) + '\n');
    const { value, done } = await this.lines.next();
    if (done) throw new Error('the native helper exited');
    return JSON.parse(value) as T;
  }
  close(): void { this.child.stdin.end(); }
}

interface Row { format: string; images: number; ours: number[]; native: number[]; oursRead: number; nativeRead: number }

async function oursRead(s: Sample, bytes: Buffer, options: DecodeOptions): Promise<boolean> {
  const r = await decode(bytes, options);
  if (!r.ok || r.format !== folderFormat(s.folder)) return false;
  if (s.expectedBytes) {
    const all = await decodeAll(bytes, options);
    return all.symbols.some((y) => y.bytes.equals(s.expectedBytes!));
  }
  return r.text === s.expectedText;
}

function nativeRead(s: Sample, a: NativeAnswer): boolean {
  if (s.expectedBytes) return a.bytes.some((h) => Buffer.from(h, 'hex').equals(s.expectedBytes!));
  return a.texts.some((t) => t === s.expectedText);
}

async function main(): Promise<void> {
  const py = findPython();
  if (!py) {
    console.error(INSTALL_HINT);
    process.exitCode = 2;
    return;
  }
  const native = new Native(spawn(py, [HELPER], { stdio: ['pipe', 'pipe', 'inherit'] }));
  const hello = await native.ask<{ ok: boolean; version?: string; error?: string }>({ hello: true });
  if (!hello.ok) {
    console.error(`${INSTALL_HINT} (${hello.error})`);
    process.exitCode = 2;
    return;
  }
  try {
    await run(native, hello.version ?? 'unknown');
  } finally {
    native.close(); // the helper's open stdin would otherwise keep this process alive after an error
    await close();
  }
}

/**
 * One untimed pass of both readers over every image first: V8 compiles a function to machine
 * code only after it has run a while, so without it the first folders (Aztec) were timed with
 * the engine's JavaScript still in its interpreter tiers, up to 4x the steady per-image time
 * that a process reading a stream of images or serving requests runs at (bench/RESULTS.md).
 */
async function warmPass(native: Native, speed: string): Promise<void> {
  for (const folder of folders()) {
    const format = folderFormat(folder) as Format | null;
    if (!format) continue;
    for (const s of samples(folder)) {
      await native.ask<NativeAnswer>({ path: s.image, format, runs: 1 });
      await decode(fs.readFileSync(s.image), { format, ...(speed ? { speed } : {}) } as DecodeOptions);
    }
  }
}

async function run(native: Native, nativeVersion: string): Promise<void> {
  await warmUp();
  if (WARM) await warmPass(native, SPEED);
  const rows = new Map<string, Row>();
  const t0 = Date.now();
  for (const folder of folders()) {
    const format = folderFormat(folder) as Format | null;
    if (!format) continue;
    const row = rows.get(format) ?? { format, images: 0, ours: [], native: [], oursRead: 0, nativeRead: 0 };
    rows.set(format, row);
    const options = { format, ...(SPEED ? { speed: SPEED } : {}) } as DecodeOptions;
    for (const s of samples(folder)) {
      const bytes = fs.readFileSync(s.image);
      const n = await native.ask<NativeAnswer>({ path: s.image, format, runs: RUNS + 1 });
      const read = await oursRead(s, bytes, options); // doubles as our warm-up run
      const ms: number[] = [];
      for (let r = 0; r < RUNS; r++) {
        const t = performance.now();
        await decode(bytes, options);
        ms.push(performance.now() - t);
      }
      row.images++;
      row.native.push(median(n.ms.slice(1)));
      row.ours.push(median(ms));
      if (nativeRead(s, n)) row.nativeRead++;
      if (read) row.oursRead++;
      if (IMAGES_OUT) {
        fs.appendFileSync(IMAGES_OUT, `${JSON.stringify({ format, file: path.relative(path.dirname(path.dirname(s.image)), s.image), bytes: bytes.length, ours: median(ms), native: median(n.ms.slice(1)), oursRead: read, nativeRead: nativeRead(s, n) })}\n`);
      }
    }
  }
  const load = os.loadavg().map((x) => x.toFixed(1)).join(' / ');
  const all = [...rows.values()].sort((a, b) => a.format.localeCompare(b.format));
  if (JSON_OUT) {
    console.log(JSON.stringify({ runs: RUNS, speed: SPEED || 'default', native: nativeVersion, load, rows: all.map((r) => ({
      format: r.format, images: r.images, oursRead: r.oursRead, nativeRead: r.nativeRead,
      oursMedian: median(r.ours), oursP95: p95(r.ours), nativeMedian: median(r.native), nativeP95: p95(r.native),
      ratio: median(r.ours) / median(r.native),
    })) }));
    return;
  }
  console.log(`peers: ours = lib/engine decode(bytes, {format${SPEED ? `, speed: '${SPEED}'` : ''}}); native = zxing-cpp ${nativeVersion} (python3-zxing-cpp, read_barcodes(PIL image, formats=F)); ${WARM ? 'one untimed pass over the corpus first, then ' : 'no warm-up pass (--cold), '}${RUNS} runs per image, median per image; wall ${((Date.now() - t0) / 1000).toFixed(0)} s; load average at the end ${load}`);
  console.log('');
  console.log('| format | images | reads ours / native | ours median / p95 ms | native median / p95 ms | ratio of medians |');
  console.log('|---|---|---|---|---|---|');
  let images = 0, ro = 0, rn = 0;
  for (const r of all) {
    images += r.images; ro += r.oursRead; rn += r.nativeRead;
    console.log(`| ${r.format} | ${r.images} | ${r.oursRead} / ${r.nativeRead} | ${median(r.ours).toFixed(2)} / ${p95(r.ours).toFixed(2)} | ${median(r.native).toFixed(2)} / ${p95(r.native).toFixed(2)} | ${(median(r.ours) / median(r.native)).toFixed(2)}x |`);
  }
  console.log(`| all | ${images} | ${ro} / ${rn} | | | |`);
}

main().catch((e) => { console.error(e); process.exitCode = 1; });
