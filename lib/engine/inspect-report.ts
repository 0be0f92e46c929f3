// The inspection as data and as words: the native trace (what each detector stage saw) folded
// into an InspectReport without its big arrays, the one-line verdict of where the read was lost,
// and report.txt. Drawing lives in inspect-draw.ts.
import { toSymbol } from './dotcode';
import type { NativeInspection, NativeTraceHypothesis } from './addon';
import type {
  InspectHypothesis, InspectLattice, InspectPass, InspectRead, InspectReport, InspectStage, InspectStageGroup, InspectWindow,
} from './types';

/**
 * The decoder's default erasure margin (GridDecodeOptions::erasureMargin in native/dotcode): a
 * sampled value this close to 0.5 is neither dot nor gap and costs one check word.
 */
export const ERASURE_MARGIN = 0.15;

export function isErasure(v: number): boolean {
  return v > 0.5 - ERASURE_MARGIN && v < 0.5 + ERASURE_MARGIN;
}

/**
 * Which checkerboard parity ((row + col) & 1) carries the dots of a sampled grid: the one with
 * more ink, as the decoder decides it. Null on a tie (a blank grid), when neither is known.
 */
export function dotParity(h: { rows: number; cols: number; values: Float32Array }): 0 | 1 | null {
  const ink = [0, 0];
  for (let r = 0; r < h.rows; r++) {
    for (let c = 0; c < h.cols; c++) ink[(r + c) & 1] += h.values[r * h.cols + c] || 0;
  }
  if (ink[0] === ink[1]) return null;
  return ink[0] > ink[1] ? 0 : 1;
}

function countErasures(h: NativeTraceHypothesis): number {
  const parity = dotParity(h);
  let n = 0;
  for (let r = 0; r < h.rows; r++) {
    for (let c = 0; c < h.cols; c++) {
      if ((parity === null || ((r + c) & 1) === parity) && isErasure(h.values[r * h.cols + c])) n++;
    }
  }
  return n;
}

/** DetectorTrace::kMaxHypotheses (native/detector/detector_trace.h): later grids are not recorded. */
const TRACE_MAX_HYPOTHESES = 400;

/** Files are named by these numbers, so the report and the pictures agree. */
export const latticeFile = (id: number) => `lattice-${id}.png`;
export const gridFile = (id: number) => `grid-${id}.png`;

/**
 * A few hundred grids can be tried on one photo; past this many, grids and lattices are listed
 * in the report without a picture each. Lattices that were sampled and grids that decoded
 * always get one (see gridsToDraw for which grids).
 */
export const MAX_PICTURES = 64;

/**
 * Which grids get a picture when there are too many: every decoded one, then the cleanest
 * (fewest erasures for its size) of each lattice, then the second cleanest of each, and so on.
 * Taking the first ones in order would show only the first lattices tried, while the grids a
 * user needs to see are often those sampled over the symbol from a later pass.
 */
function gridsToDraw(hyps: { lattice: number; rows: number; cols: number; erasures: number; outcome: string }[]): Set<number> {
  const chosen = new Set<number>();
  hyps.forEach((h, i) => { if (h.outcome === 'decoded') chosen.add(i); });
  const byLattice = new Map<number, number[]>();
  hyps.forEach((h, i) => byLattice.set(h.lattice, [...(byLattice.get(h.lattice) ?? []), i]));
  const fraction = (i: number) => hyps[i].erasures / (hyps[i].rows * hyps[i].cols);
  const queues = [...byLattice.values()].map((q) => q.sort((a, b) => fraction(a) - fraction(b) || a - b));
  const limit = MAX_PICTURES + chosen.size; // decoded grids do not count against the cap
  for (let round = 0; chosen.size < limit; round++) {
    const next = queues.filter((q) => round < q.length).map((q) => q[round]);
    if (!next.length) break;
    for (const i of next) if (chosen.size < limit) chosen.add(i);
  }
  return chosen;
}

/** Lattice ids run over all passes, in order: the id of (pass index, lattice index). */
export function latticeIds(trace: NativeInspection): number[][] {
  let next = 1;
  return trace.passes.map((p) => p.lattices.map(() => next++));
}

const round2 = (v: number) => Math.round(v * 100) / 100;
const stagesOf = (traced: { deconvolving: boolean }): InspectStageGroup => (traced.deconvolving ? 'deconvolving' : 'first');

/** The report without `out` and `files` (the writer fills those). */
export function buildReport(trace: NativeInspection, width: number, height: number): InspectReport {
  const ids = latticeIds(trace);
  const passes: InspectPass[] = trace.passes.map((p, pi) => ({
    id: pi + 1,
    via: p.via,
    polarity: p.dark ? 'dark' : 'light',
    region: { ...p.region },
    scale: p.scale,
    stages: stagesOf(p),
    candidates: p.dots.length / 3,
    clusters: p.clusters.map((c) => c.length),
    lattices: p.lattices.map((l, li): InspectLattice => {
      const id = ids[pi][li];
      const dots = l.dots.length / 3;
      return {
        id, cluster: l.cluster + 1, outcome: l.outcome, dots, rows: l.rows, cols: l.cols, pitch: round2(l.pitch),
        file: dots > 0 && (id <= MAX_PICTURES || l.outcome === 'sampled' || l.outcome === 'extended over the image') ? latticeFile(id) : null,
      };
    }),
  }));
  const hypotheses: InspectHypothesis[] = trace.hypotheses.map((h, i) => ({
    id: i + 1,
    pass: h.pass + 1,
    lattice: ids[h.pass]?.[h.lattice] ?? 0,
    rows: h.rows,
    cols: h.cols,
    erasures: countErasures(h),
    outcome: h.outcome,
    corners: h.corners.map((c) => ({ x: round2(c.x), y: round2(c.y) })),
    file: null,
  }));
  for (const i of gridsToDraw(hypotheses)) hypotheses[i].file = gridFile(i + 1);
  const results: InspectRead[] = trace.results.map((r) => ({
    text: toSymbol(r).text,
    via: r.via,
    corners: r.corners.map((c) => ({ x: round2(c.x), y: round2(c.y) })),
    rows: r.rows,
    cols: r.cols,
    errors_corrected: r.errorsCorrected,
    erasures_corrected: r.erasuresCorrected,
    ec_budget: r.ecBudget,
  }));
  const windows: InspectWindow[] = trace.windows.map((w, i) => ({
    id: i + 1, region: { ...w.region }, stages: stagesOf(w), read: w.read,
  }));
  const { stage, verdict } = judge(passes, hypotheses, results);
  return {
    ok: results.length > 0, error: null, stage, verdict, image: { width, height },
    passes, hypotheses, windows, results, out: null, files: [],
  };
}

/** The report when nothing was inspected (an image that cannot be loaded, a wrong option). */
export function failedReport(error: string, why = 'the image could not be loaded'): InspectReport {
  return {
    ok: false, error, stage: 'error', verdict: `not inspected: ${why} (${error})`,
    image: null, passes: [], hypotheses: [], windows: [], results: [], out: null, files: [],
  };
}

function countBy(items: string[]): string {
  const n = new Map<string, number>();
  for (const s of items) n.set(s, (n.get(s) ?? 0) + 1);
  return [...n].map(([k, v]) => `${v} ${k}`).join(', ');
}

/** "lattice-3.png" or "lattice-3.png ... lattice-9.png": the pictures that show a stage. */
function fileSpan(files: (string | null)[]): string {
  const f = files.filter((x): x is string => x !== null);
  if (f.length === 0) return 'report.txt';
  return f.length === 1 ? f[0] : `${f[0]} ... ${f[f.length - 1]}`;
}

/**
 * The furthest stage any pass reached decides the verdict: a user wants to know the last thing
 * that worked and the first that did not, and which picture to open.
 */
function judge(passes: InspectPass[], hyps: InspectHypothesis[], results: InspectRead[]): { stage: InspectStage; verdict: string } {
  if (results.length) {
    const r = results[0];
    const more = results.length > 1 ? ` (and ${results.length - 1} more)` : '';
    const grid = hyps.find((h) => h.outcome === 'decoded')?.file;
    return {
      stage: 'read',
      verdict: `read: ${r.rows}x${r.cols} DotCode via ${r.via}, ${r.errors_corrected} errors and ` +
        `${r.erasures_corrected} erasures corrected of ${r.ec_budget} check words${more} — see hypotheses.png${grid ? ` and ${grid}` : ''}`,
    };
  }
  const lattices = passes.flatMap((p) => p.lattices);
  if (hyps.length) {
    const best = hyps.reduce((a, b) => (b.erasures / (b.rows * b.cols) < a.erasures / (a.rows * a.cols) ? b : a));
    const count = hyps.length >= TRACE_MAX_HYPOTHESES ? `${hyps.length} (the most the trace keeps) or more` : `${hyps.length}`;
    return {
      stage: 'refused',
      verdict: `refused: ${count} sampled grid${hyps.length > 1 ? 's were' : ' was'} handed to the decoder and ` +
        `refused (more errors and erasures than the check words correct, or no valid symbol size); the ` +
        `cleanest, grid ${best.id} (${best.rows}x${best.cols}), has ${best.erasures} erasures — see hypotheses.png and ${best.file ?? 'report.txt'}`,
    };
  }
  const mapless = lattices.filter((l) => l.outcome === 'no grid map' || l.outcome === 'sampled');
  if (mapless.length) {
    return {
      stage: 'no_grid',
      verdict: `no grid: a lattice was fitted but could not be mapped to a DotCode grid — see ${fileSpan(mapless.map((l) => l.file))}`,
    };
  }
  const rejected = lattices.filter((l) => l.outcome.startsWith('lattice rejected'));
  if (rejected.length) {
    return {
      stage: 'lattice_rejected',
      verdict: `lattice rejected: ${rejected.length} cluster${rejected.length > 1 ? 's' : ''} started a lattice that ` +
        `failed its growth or fill check — see ${fileSpan(rejected.map((l) => l.file))}`,
    };
  }
  const clusters = passes.reduce((n, p) => n + p.clusters.length, 0);
  if (clusters) {
    const outcomes = lattices.length ? ` (${countBy(lattices.map((l) => l.outcome))})` : '';
    return {
      stage: 'no_lattice',
      verdict: `no lattice: dots found but no cluster formed a lattice${outcomes} — see clusters.png`,
    };
  }
  const candidates = passes.reduce((n, p) => n + p.candidates, 0);
  if (candidates) {
    return {
      stage: 'no_cluster',
      verdict: `no cluster: ${candidates} dot candidates found but never enough close together to group — see dots.png`,
    };
  }
  return {
    stage: 'no_dots',
    verdict: 'no dots: no dot candidates of either polarity (is the code in the image, in focus, with dots of 2 px or more?) — see dots.png',
  };
}

const pt = (p: { x: number; y: number }) => `(${p.x.toFixed(1)}, ${p.y.toFixed(1)})`;

/** report.txt: the same facts as report.json, for a person. */
export function reportText(report: InspectReport, source: string): string {
  const lines: string[] = [`dotcode inspect ${source}`];
  if (report.error) {
    lines.push(`verdict: ${report.verdict}`);
    return `${lines.join('\n')}\n`;
  }
  lines.push(`image: ${report.image!.width}x${report.image!.height} pixels (grey, as the engine reads it)`);
  lines.push(`verdict: ${report.verdict}`, '');
  lines.push('passes (dots.png: every candidate; clusters.png: the groups the lattice stage tried)');
  if (!report.passes.length) lines.push('  none ran');
  for (const p of report.passes) {
    const r = p.region;
    const how = (p.scale !== 1 ? `, read at ${p.scale}x` : '') + (p.stages === 'deconvolving' ? ', deconvolved' : '');
    lines.push(`  pass ${p.id} ${p.via}: ${p.polarity} dots, region ${r.x0},${r.y0}-${r.x1},${r.y1}${how}: ` +
      `${p.candidates} candidates, ${p.clusters.length} cluster${p.clusters.length === 1 ? '' : 's'}`);
    for (const l of p.lattices) {
      const size = l.dots ? `: ${l.dots} dots over ${l.rows}x${l.cols} positions, pitch ${l.pitch} px` : '';
      const file = l.file ? ` -> ${l.file}` : '';
      lines.push(`    lattice ${l.id} (cluster ${l.cluster}, ${p.clusters[l.cluster - 1] ?? '?'} dots): ${l.outcome}${size}${file}`);
    }
    const tried = new Set(p.lattices.map((l) => l.cluster));
    const untried = p.clusters.map((_, i) => i + 1).filter((c) => !tried.has(c));
    if (untried.length) lines.push(`    not tried (too small, used by another lattice, or out of time): cluster ${untried.join(', ')}`);
  }
  lines.push('', 'grids handed to the decoder (hypotheses.png: where each was sampled)');
  if (!report.hypotheses.length) lines.push('  none');
  for (const h of report.hypotheses) {
    const file = h.file ? ` -> ${h.file}` : '';
    lines.push(`  grid ${h.id} ${h.rows}x${h.cols} from lattice ${h.lattice} (pass ${h.pass}): ${h.erasures} erasures, ${h.outcome}${file}`);
  }
  if (report.windows.length) {
    lines.push('', 'windows (the photo read again in windows after its whole read found nothing: every window\'s first stages, ' +
      'then the deconvolving stages of those that read nothing; not traced pass by pass)');
    for (const w of report.windows) {
      const r = w.region;
      lines.push(`  window ${w.id} ${r.x0},${r.y0}-${r.x1},${r.y1}: ${w.stages} stages, ${w.read ? `${w.read} symbol${w.read === 1 ? '' : 's'} read` : 'nothing read'}`);
    }
  }
  lines.push('', 'results');
  if (!report.results.length) lines.push('  none');
  for (const r of report.results) {
    lines.push(`  ${JSON.stringify(r.text)}`); // quoted with escapes: control characters stay visible
    lines.push(`    via ${r.via}, ${r.rows}x${r.cols}, corners ${r.corners.map(pt).join(' ')}`);
    lines.push(`    ${r.errors_corrected} errors and ${r.erasures_corrected} erasures corrected, ${r.ec_budget} check words`);
  }
  return `${lines.join('\n')}\n`;
}
