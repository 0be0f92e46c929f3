// Shared helpers of the DotCode core tests: the native addon, the shared vectors, grid
// transforms, a seeded PRNG, random payload generators, and the two independent encoders
// (bwip-js in process; zint's CLI in batch mode when it is installed).
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { mulberry32 } from '../support/seeded';
import { skipWithoutShared } from '../support/shared-data';
import { loadAddon } from '../../lib/engine/addon';

export const repoRoot = path.resolve(__dirname, '../../..');

export type { NativeSymbol } from '../../lib/engine/addon';
export interface Grid { rows: number; cols: number; values: Float32Array }

const addon = loadAddon();
export const decodeGrid = addon.decodeGrid;

export interface Vector {
  desc: string; expected_hex: string; gs1: boolean; rows: number; cols: number; matrix: string[];
  eci?: number[]; structapp?: [number, number]; reader_init?: boolean; mask: number; nd_nc: [number, number];
}
/** The shared vectors; the calling test or hook is skipped, with a notice, where ../shared is absent. */
export function loadVectors(ctx: Mocha.Context): Vector[] {
  return fs.readFileSync(skipWithoutShared(ctx, 'dotcode/vectors.jsonl'), 'utf8')
    .split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Vector);
}

export function gridFromRows(matrix: string[]): Grid {
  const rows = matrix.length, cols = matrix[0].length;
  const values = new Float32Array(rows * cols);
  matrix.forEach((row, r) => { for (let c = 0; c < cols; c++) values[r * cols + c] = row[c] === '1' ? 1 : 0; });
  return { rows, cols, values };
}

// Transform t of a grid: t&3 clockwise quarter turns, t>=4 mirrored (columns reversed) first.
export function transform(g: Grid, t: number): Grid {
  const R = g.rows, C = g.cols;
  const rows = t & 1 ? C : R, cols = t & 1 ? R : C;
  const values = new Float32Array(R * C);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      let a: number, b: number;
      switch (t & 3) {
        case 0: a = r; b = c; break;
        case 1: a = R - 1 - c; b = r; break;
        case 2: a = R - 1 - r; b = C - 1 - c; break;
        default: a = c; b = C - 1 - r;
      }
      if (t >= 4) b = C - 1 - b;
      values[r * cols + c] = g.values[a * C + b];
    }
  }
  return { rows, cols, values };
}

// Seeded and reproducible (test/support/seeded.ts).
export const prng = mulberry32;
export const randInt = (rnd: () => number, lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
const pick = <T>(rnd: () => number, xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];

export type Kind = 'digits' | 'text' | 'punct' | 'binary' | 'gs1' | 'long';
export interface Payload {
  kind: Kind;
  bytes: Buffer;                          // exact bytes a decoder must return
  gs1Input?: [string, string][];          // AI/value pairs for GS1 payloads
}

const PUNCT = ' !"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const GS1_CHARS = ALNUM + '-./';
// AIs used, with whether their length is predefined (then no FNC1/GS follows them).
const GS1_FIXED = new Set(['00', '01', '11', '17']);

function digitString(rnd: () => number, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += String(randInt(rnd, 0, 9));
  return s;
}
function gs1CheckDigit(body: string): string {
  let sum = 0;
  for (let i = 0; i < body.length; i++) sum += Number(body[body.length - 1 - i]) * (i % 2 === 0 ? 3 : 1);
  return String((10 - (sum % 10)) % 10);
}
function gs1Date(rnd: () => number): string {
  const yy = String(randInt(rnd, 0, 99)).padStart(2, '0');
  const mm = String(randInt(rnd, 1, 12)).padStart(2, '0');
  const dd = String(randInt(rnd, 1, 28)).padStart(2, '0');
  return yy + mm + dd;
}
function textChars(rnd: () => number, n: number, alphabet: string): string {
  let s = '';
  for (let i = 0; i < n; i++) s += alphabet[Math.floor(rnd() * alphabet.length)];
  return s;
}

export function randomPayload(rnd: () => number, kind: Kind): Payload {
  switch (kind) {
    case 'digits':
      return { kind, bytes: Buffer.from(digitString(rnd, randInt(rnd, 1, 120)), 'latin1') };
    case 'text': {
      let s = '';
      const n = randInt(rnd, 1, 80);
      for (let i = 0; i < n; i++) {
        const x = rnd();
        s += x < 0.03 ? '\r\n' : x < 0.05 ? '\t' : x < 0.15 ? String(randInt(rnd, 0, 9)) : String.fromCharCode(randInt(rnd, 32, 126));
      }
      return { kind, bytes: Buffer.from(s, 'latin1') };
    }
    case 'punct':
      return { kind, bytes: Buffer.from(textChars(rnd, randInt(rnd, 1, 60), PUNCT), 'latin1') };
    case 'binary': {
      const n = randInt(rnd, 1, 80);
      const b = Buffer.alloc(n);
      for (let i = 0; i < n; i++) b[i] = rnd() < 0.6 ? randInt(rnd, 128, 255) : randInt(rnd, 32, 126);
      return { kind, bytes: b };
    }
    case 'long': {
      const n = randInt(rnd, 200, 400);
      const mode = randInt(rnd, 0, 2);
      const s = mode === 0 ? digitString(rnd, n) : mode === 1 ? textChars(rnd, n, ALNUM + PUNCT) : textChars(rnd, n, ALNUM + ' ');
      return { kind, bytes: Buffer.from(s, 'latin1') };
    }
    case 'gs1': {
      const pool = ['01', '17', '10', '21', '11', '00', '30', '400'];
      const count = randInt(rnd, 1, 5);
      const pairs: [string, string][] = [];
      const used = new Set<string>();
      for (let i = 0; i < count; i++) {
        const ai = pick(rnd, pool);
        if (used.has(ai)) continue;
        used.add(ai);
        let v: string;
        if (ai === '01') { const body = digitString(rnd, 13); v = body + gs1CheckDigit(body); }
        else if (ai === '00') { const body = digitString(rnd, 17); v = body + gs1CheckDigit(body); }
        else if (ai === '17' || ai === '11') v = gs1Date(rnd);
        else if (ai === '30') v = digitString(rnd, randInt(rnd, 1, 8));
        else v = textChars(rnd, randInt(rnd, 1, ai === '400' ? 30 : 20), GS1_CHARS);
        pairs.push([ai, v]);
      }
      let s = '';
      pairs.forEach(([ai, v], i) => { s += ai + v; if (!GS1_FIXED.has(ai) && i < pairs.length - 1) s += '\x1d'; });
      return { kind, bytes: Buffer.from(s, 'latin1'), gs1Input: pairs };
    }
  }
}

export const KINDS: Kind[] = ['digits', 'text', 'punct', 'binary', 'gs1', 'long'];
// Long payloads are slow to encode in bwip-js: keep them a small share of the mix.
export function randomKind(rnd: () => number): Kind {
  const x = rnd();
  return x < 0.05 ? 'long' : KINDS[Math.floor(rnd() * 5)];
}

// ---- bwip-js ----
// eslint-disable-next-line @typescript-eslint/no-var-requires
const bwipjs = require('bwip-js') as { raw(opts: Record<string, unknown>): { pixs: number[]; pixx: number; pixy: number }[] };

export function bwipGrid(p: Payload, columns?: number): Grid | null {
  const opts: Record<string, unknown> = p.gs1Input
    ? { bcid: 'gs1dotcode', text: p.gs1Input.map(([ai, v]) => `(${ai})${v}`).join('') }
    : { bcid: 'dotcode', text: p.bytes.toString('latin1'), binarytext: true };  // one char = one byte
  if (columns) opts.columns = columns;
  let r: ReturnType<typeof bwipjs.raw>[number];
  try {
    r = bwipjs.raw(opts)[0];
  } catch {
    return null;  // e.g. a forced size too small for the data
  }
  const values = new Float32Array(r.pixx * r.pixy);
  for (let i = 0; i < values.length; i++) values[i] = r.pixs[i] ? 1 : 0;
  return { rows: r.pixy, cols: r.pixx, values };
}

// ---- zint (CLI, batch mode: one process per option set) ----
export function zintAvailable(): boolean {
  const r = spawnSync('zint', ['--version'], { encoding: 'utf8' });
  return !r.error && r.status === 0;
}

function zintEscape(b: Buffer): string {
  let s = '';
  for (const x of b) {
    if (x === 0x5c) s += '\\\\';
    else if (x >= 32 && x < 127) s += String.fromCharCode(x);
    else s += '\\x' + x.toString(16).padStart(2, '0');
  }
  return s;
}

function parseZintSvg(svg: string): Grid | null {
  const size = /<svg width="(\d+)" height="(\d+)"/.exec(svg);
  if (!size) return null;
  const cols = Number(size[1]) / 2, rows = Number(size[2]) / 2;  // default scale: 2 units per dot
  const values = new Float32Array(rows * cols);
  for (const m of svg.matchAll(/<circle cx="([\d.]+)" cy="([\d.]+)"/g)) {
    const c = Math.round((Number(m[1]) - 1) / 2), r = Math.round((Number(m[2]) - 1) / 2);
    if (r < 0 || r >= rows || c < 0 || c >= cols) return null;
    values[r * cols + c] = 1;
  }
  return { rows, cols, values };
}

// Encodes every payload with the same options; returns a grid per payload (null if zint refused).
export function zintBatch(payloads: Payload[], extraArgs: string[]): (Grid | null)[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dc-zint-'));
  try {
    const gs1 = payloads.length > 0 && payloads[0].gs1Input !== undefined;
    const lines = payloads.map((p) => (gs1 ? p.gs1Input!.map(([ai, v]) => `[${ai}]${v}`).join('') : zintEscape(p.bytes)));
    fs.writeFileSync(path.join(dir, 'in.txt'), lines.join('\n') + '\n');
    const args = ['-b', 'DOTCODE', '--batch', '--esc', '--filetype=svg', '-o', path.join(dir, '~~~~~.svg'), '-i', path.join(dir, 'in.txt'), ...extraArgs];
    args.push(gs1 ? '--gs1' : '--binary');
    spawnSync('zint', args, { encoding: 'utf8' });
    return payloads.map((_, i) => {
      const f = path.join(dir, String(i + 1).padStart(5, '0') + '.svg');
      return fs.existsSync(f) ? parseZintSvg(fs.readFileSync(f, 'utf8')) : null;
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// Smallest number of check words in any block of a rows x cols symbol (FORMAT.md 2 and 5).
export function minBlockChecks(rows: number, cols: number): number {
  const n = (rows * cols) / 2;
  let nw = 1 + Math.floor((n - 2) / 9);
  if (nw % 3 === 0) nw--;
  const nc = Math.floor(nw / 3) + 2, nd = nw - nc, b = Math.ceil(nw / 112);
  let min = Infinity;
  for (let j = 0; j < b; j++) min = Math.min(min, Math.ceil((nw - j) / b) - Math.ceil((nd - j) / b));
  return min;
}

// Lattice positions (row+col even in the canonical grid) as indices.
export function latticeIndices(g: Grid): number[] {
  const out: number[] = [];
  for (let r = 0; r < g.rows; r++) for (let c = r % 2; c < g.cols; c += 2) out.push(r * g.cols + c);
  return out;
}
