// The pictures of `dotcode inspect`: each is the grey image the detector read (or a crop of it),
// enlarged with nearest-neighbour so every image pixel stays a sharp square, with the dot circles
// in a raster layer (inspect-raster.ts), text, lines and boxes in an SVG overlay, both composited
// by sharp, and a caption band on top that says what is drawn. The facts come from the native
// trace (lib/engine/dotcode.ts NativeInspection); the numbering from inspect-report.ts.
import type { NativeInspection, NativeTraceHypothesis, NativeTraceLattice, NativeTracePass } from './addon';
import type { GreyImage } from './image';
import { CircleLayer, css, hsl, type Rgb } from './inspect-raster';
import { dotParity, isErasure, ERASURE_MARGIN } from './inspect-report';
import type { InspectReport } from './types';

// Loaded on first use, as image.ts does: importing the engine must not load sharp.
let sharpModule: typeof import('sharp') | undefined;
function sharp(): typeof import('sharp') {
  sharpModule ??= require('sharp') as typeof import('sharp');
  return sharpModule;
}

/** Dots of the two polarities: the colours are chosen to stand out on grey and from each other. */
const DARK_DOTS: Rgb = [255, 122, 0];
const LIGHT_DOTS: Rgb = [0, 216, 255];
const DECODED: Rgb = [0, 224, 96];
const REFUSED: Rgb = [255, 59, 59];
const WHITE: Rgb = [255, 255, 255];
/** Lattice rows alternate between these, so a row that jumps to its neighbour shows. */
const ROW_COLOURS: Rgb[] = [[255, 224, 0], [255, 48, 208]];

/** Longest side of a whole-image picture: 2-4 px dots need about 4x on a VGA frame. */
const TARGET_SIDE = 2560;
const MAX_WHOLE_SCALE = 4;

/** Captions and labels grow with the picture, so they stay readable when it is viewed fitted to a screen. */
function fontFor(width: number): number {
  return Math.max(14, Math.round(width / 100));
}
/** DejaVu Sans averages under 0.6 em per character; used to wrap captions. */
const CHAR_EM = 0.6;
const MIN_WIDTH = 720;
const FONT_FAMILY = 'DejaVu Sans, Verdana, sans-serif';

/** A rectangle of the image, in image pixels (x1, y1 exclusive), and how it is enlarged. */
interface Canvas {
  x0: number; y0: number; x1: number; y1: number;
  scale: number;
  /** Caption lines, already wrapped, the band height they need, and the text size. */
  caption: string[];
  band: number;
  font: number;
  /** Base stroke width, grown with the picture like the text. */
  line: number;
  width: number;
  height: number;
}

function wrap(text: string, width: number, font: number): string[] {
  const max = Math.max(20, Math.floor((width - 16) / (font * CHAR_EM)));
  const out: string[] = [];
  for (const para of text.split('\n')) {
    let line = '';
    for (const word of para.split(' ')) {
      if (line && line.length + 1 + word.length > max) {
        out.push(line);
        line = word;
      } else {
        line = line ? `${line} ${word}` : word;
      }
    }
    out.push(line);
  }
  return out;
}

function bandHeight(lines: number, font: number): number {
  return Math.round(lines * font * 1.3 + font * 0.7);
}

/** The caption lines, white on the dark band at the top of every picture. */
function captionSvg(lines: string[], font: number): string {
  return lines.map((line, i) => label(8, font * (1.15 + 1.3 * i), line, WHITE, font)).join('');
}

function canvas(rect: { x0: number; y0: number; x1: number; y1: number }, scale: number, caption: string): Canvas {
  const imageWidth = (rect.x1 - rect.x0) * scale;
  const width = Math.max(imageWidth, MIN_WIDTH);
  const font = fontFor(width);
  const lines = wrap(caption, width, font);
  const band = bandHeight(lines.length, font);
  return { ...rect, scale, caption: lines, band, font, line: Math.max(1.5, font / 12), width, height: band + (rect.y1 - rect.y0) * scale };
}

/**
 * Image position -> picture position. The detector's coordinates are continuous: pixel i covers
 * [i, i + 1), so its centre is i + 0.5 (a dot over pixels 72..84 is reported at 78.5).
 */
function px(c: Canvas, x: number): number {
  return (x - c.x0) * c.scale;
}
function py(c: Canvas, y: number): number {
  return (y - c.y0) * c.scale + c.band;
}

const f1 = (v: number) => (Math.round(v * 10) / 10).toString();

function escapeXml(s: string): string {
  return s.replace(/[<>&"]/g, (ch) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[ch]!);
}

/** Text with a dark halo, readable on any part of the image. */
function label(x: number, y: number, text: string, colour: Rgb, size: number, anchor = 'start'): string {
  return `<text x="${f1(x)}" y="${f1(y)}" font-size="${size}" fill="${css(colour)}" stroke="#000" ` +
    `stroke-width="${f1(Math.max(3, size / 5))}" paint-order="stroke" stroke-linejoin="round" text-anchor="${anchor}">${escapeXml(text)}</text>`;
}

/** A dot's outline at its diameter (never under 5 picture pixels across, to stay visible). */
function dot(c: Canvas, layer: CircleLayer, x: number, y: number, d: number, colour: Rgb,
  style: { weight?: number; opacity?: number; fillAlpha?: number } = {}): void {
  layer.circle(px(c, x), py(c, y), Math.max(2.5, (d / 2) * c.scale), (style.weight ?? 1) * c.line, colour,
    style.opacity ?? 1, style.fillAlpha ?? 0);
}

function polygon(c: Canvas, pts: { x: number; y: number }[], colour: Rgb, weight: number, extra = ''): string {
  const p = pts.map((q) => `${f1(px(c, q.x))},${f1(py(c, q.y))}`).join(' ');
  return `<polygon points="${p}" fill="none" stroke="${css(colour)}" stroke-width="${f1(weight * c.line)}" ${extra}/>`;
}

function rectOutline(c: Canvas, r: { x0: number; y0: number; x1: number; y1: number }, colour: Rgb, extra = ''): string {
  const x = (r.x0 - c.x0) * c.scale;
  const y = (r.y0 - c.y0) * c.scale + c.band;
  return `<rect x="${f1(x)}" y="${f1(y)}" width="${f1((r.x1 - r.x0) * c.scale)}" height="${f1((r.y1 - r.y0) * c.scale)}" ` +
    `fill="none" stroke="${css(colour)}" stroke-width="${f1(c.line * 1.3)}" ${extra}/>`;
}

/** Puts the dot layer and the SVG overlay on the enlarged grey rectangle and encodes the PNG. */
async function render(grey: GreyImage, c: Canvas, overlay: string, layer?: CircleLayer): Promise<Buffer> {
  const w = c.x1 - c.x0;
  const h = c.y1 - c.y0;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${c.width}" height="${c.height}" ` +
    `font-family="${FONT_FAMILY}">${overlay}${captionSvg(c.caption, c.font)}</svg>`;
  const plane = Buffer.from(grey.data.buffer, grey.data.byteOffset, grey.width * grey.height);
  return sharp()(plane, { raw: { width: grey.width, height: grey.height, channels: 1 } })
    .extract({ left: c.x0, top: c.y0, width: w, height: h })
    .resize(w * c.scale, h * c.scale, { kernel: 'nearest' })
    .extend({ top: c.band, right: c.width - w * c.scale, background: '#202020' })
    .composite([
      ...(layer ? [{ input: layer.data, raw: { width: layer.width, height: layer.height, channels: 4 as const }, top: 0, left: 0 }] : []),
      { input: Buffer.from(svg), top: 0, left: 0 },
    ])
    .png()
    .toBuffer();
}

/** Whole-image pictures are enlarged so the long side is about TARGET_SIDE (never shrunk, at most 4x). */
function wholeScale(grey: GreyImage): number {
  return Math.max(1, Math.min(MAX_WHOLE_SCALE, Math.floor(TARGET_SIDE / Math.max(grey.width, grey.height))));
}

function wholeCanvas(grey: GreyImage, caption: string): Canvas {
  return canvas({ x0: 0, y0: 0, x1: grey.width, y1: grey.height }, wholeScale(grey), caption);
}

function isWholeImage(p: NativeTracePass, grey: GreyImage): boolean {
  const r = p.region;
  return r.x0 <= 0 && r.y0 <= 0 && r.x1 >= grey.width && r.y1 >= grey.height;
}

/** Passes by number, e.g. "1 fast, 3 adaptive" (the `dotcode:` prefix is the same for all). */
function passList(report: InspectReport, dark: boolean): string {
  // Grouped by pass name, as one name can run on many regions: "6-9 adaptive (61 candidates)".
  const byVia = new Map<string, { ids: number[]; candidates: number }>();
  for (const p of report.passes) {
    if ((p.polarity === 'dark') !== dark) continue;
    const name = p.via.replace(/^dotcode:/, '');
    const g = byVia.get(name) ?? { ids: [], candidates: 0 };
    g.ids.push(p.id);
    g.candidates += p.candidates;
    byVia.set(name, g);
  }
  return [...byVia].map(([name, g]) => `${ranges(g.ids)} ${name} (${g.candidates})`).join(', ') || 'none';
}

/** dots.png: every dot candidate of every pass, the two polarities in two colours. */
export async function drawDots(grey: GreyImage, trace: NativeInspection, report: InspectReport): Promise<Buffer> {
  const c = wholeCanvas(grey,
    `dots.png: dot candidates as circles of their diameter (image ${grey.width}x${grey.height} shown at ${wholeScale(grey)}x). ` +
    `Orange: dark dots, passes ${passList(report, true)}. Cyan: light dots, passes ${passList(report, false)}. ` +
    'Dashed boxes: regions read by the passes named (white: both polarities); passes without a box read the whole image.');
  const parts: string[] = [];
  const layer = new CircleLayer(c.width, c.height);
  // Passes of one polarity find mostly the same dots: draw each position once per polarity.
  const seen = new Set<string>();
  trace.passes.forEach((p) => {
    const colour = p.dark ? DARK_DOTS : LIGHT_DOTS;
    for (let i = 0; i < p.dots.length; i += 3) {
      const key = `${p.dark ? 'd' : 'l'}${Math.round(p.dots[i] * 2)},${Math.round(p.dots[i + 1] * 2)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      dot(c, layer, p.dots[i], p.dots[i + 1], p.dots[i + 2], colour);
    }
  });
  // Several passes read the same region (polarities, sharpening, scales): one box each region,
  // labelled with all of them, white when both polarities looked there.
  const regions = new Map<string, { r: NativeTracePass['region']; ids: number[]; dark: boolean; light: boolean }>();
  trace.passes.forEach((p, i) => {
    if (isWholeImage(p, grey)) return;
    const key = [p.region.x0, p.region.y0, p.region.x1, p.region.y1].map((v) => Math.round(v / 4)).join(',');
    const g = regions.get(key) ?? { r: p.region, ids: [], dark: false, light: false };
    g.ids.push(i + 1);
    if (p.dark) g.dark = true; else g.light = true;
    regions.set(key, g);
  });
  const placer = new LabelPlacer(c.font);
  for (const g of regions.values()) {
    const colour = g.dark && g.light ? WHITE : g.dark ? DARK_DOTS : LIGHT_DOTS;
    parts.push(rectOutline(c, g.r, colour, 'stroke-dasharray="8 5"'));
    const text = `pass${g.ids.length > 1 ? 'es' : ''} ${ranges(g.ids)}`;
    const at = placer.place(px(c, g.r.x0) + 4, py(c, g.r.y0) + c.font + 2, text);
    parts.push(label(at.x, at.y, text, colour, c.font));
  }
  return render(grey, c, parts.join(''), layer);
}

/** Distinct colours for many clusters: hues a golden angle apart. */
function clusterColour(k: number): Rgb {
  return hsl((k * 137.508) % 360, 1, 0.6);
}

/** Labels of boxes that sit on the same spot are stacked instead of drawn over each other. */
class LabelPlacer {
  private placed: { x: number; y: number; w: number }[] = [];
  constructor(private readonly font: number) {}
  place(x: number, y: number, text: string): { x: number; y: number } {
    const w = text.length * this.font * CHAR_EM;
    const step = this.font * 1.15;
    let yy = y;
    while (this.placed.some((p) => Math.abs(p.y - yy) < step && x < p.x + p.w && p.x < x + w)) yy += step;
    this.placed.push({ x, y: yy, w });
    return { x, y: yy };
  }
}

function bounds(dots: Float32Array, idx: ArrayLike<number> | null): { x0: number; y0: number; x1: number; y1: number } {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  const n = idx ? idx.length : dots.length / 3;
  for (let k = 0; k < n; k++) {
    const i = (idx ? idx[k] : k) * 3;
    const r = dots[i + 2] / 2;
    x0 = Math.min(x0, dots[i] - r); y0 = Math.min(y0, dots[i + 1] - r);
    x1 = Math.max(x1, dots[i] + r); y1 = Math.max(y1, dots[i + 1] + r);
  }
  return { x0, y0, x1, y1 };
}

/** clusters.png: each cluster of each pass in its own colour, boxed, with what the lattice stage made of it. */
export async function drawClusters(grey: GreyImage, trace: NativeInspection, report: InspectReport): Promise<Buffer> {
  const total = report.passes.reduce((n, p) => n + p.clusters.length, 0);
  const c = wholeCanvas(grey,
    `clusters.png: ${total} cluster${total === 1 ? '' : 's'} of dot candidates, each in its own colour. Those the lattice ` +
    'stage tried are boxed and labelled "pass/cluster: what it made of them"; the others were too small or used up by an ' +
    'earlier lattice. Candidates in no cluster are not drawn (see dots.png).');
  const parts: string[] = [];
  const labels: string[] = [];
  const layer = new CircleLayer(c.width, c.height);
  const placer = new LabelPlacer(c.font);
  let k = 0;
  trace.passes.forEach((p, pi) => {
    const outcomes = new Map<number, string>();
    p.lattices.forEach((l, li) => outcomes.set(l.cluster, `${l.outcome} (lattice ${report.passes[pi].lattices[li].id})`));
    p.clusters.forEach((cl, ci) => {
      const colour = clusterColour(k++);
      for (const i of cl) {
        dot(c, layer, p.dots[i * 3], p.dots[i * 3 + 1], p.dots[i * 3 + 2], colour, { weight: 0.7, fillAlpha: 0.35 });
      }
      // Only the clusters the lattice stage tried are boxed and labelled: a textured photo has
      // hundreds of small ones, and their labels would hide the image (and cost ~6 ms each).
      const outcome = outcomes.get(ci);
      if (outcome === undefined) return;
      const b = bounds(p.dots, cl);
      parts.push(rectOutline(c, { x0: b.x0 - 1, y0: b.y0 - 1, x1: b.x1 + 1, y1: b.y1 + 1 }, colour, 'stroke-dasharray="6 4"'));
      const text = `${pi + 1}/${ci + 1} ${p.via.replace(/^dotcode:/, '')} ${p.dark ? 'dark' : 'light'}: ${outcome}`;
      const at = placer.place(Math.max(0, px(c, b.x0 - 1)), Math.max(c.band + c.font, py(c, b.y0 - 1) - 4), text);
      labels.push(label(at.x, at.y, text, colour, c.font));
    });
  });
  return render(grey, c, parts.join('') + labels.join(''), layer);
}

/** A crop around some image points with a margin, clamped to the image. */
function cropAround(grey: GreyImage, b: { x0: number; y0: number; x1: number; y1: number }, margin: number) {
  return {
    x0: Math.max(0, Math.floor(b.x0 - margin)),
    y0: Math.max(0, Math.floor(b.y0 - margin)),
    x1: Math.min(grey.width, Math.ceil(b.x1 + margin) + 1),
    y1: Math.min(grey.height, Math.ceil(b.y1 + margin) + 1),
  };
}

/** Enlargement for a crop: about 24 picture pixels per grid pitch, within 2x..12x and 2400 px. */
function cropScale(rect: { x0: number; y0: number; x1: number; y1: number }, pitch: number): number {
  const long = Math.max(rect.x1 - rect.x0, rect.y1 - rect.y0);
  const wanted = Math.min(12, Math.max(2, Math.round(24 / Math.max(pitch, 1))));
  return Math.max(1, Math.min(wanted, Math.floor(2400 / long)));
}

/**
 * lattice-N.png: the lattice's accepted dots on a crop of the image, coloured by row (the two
 * colours alternate), with each row's dots joined in column order, so a bent, skipped or merged
 * row is visible; row numbers on the left.
 */
export async function drawLattice(grey: GreyImage, pass: NativeTracePass, passId: number, l: NativeTraceLattice,
  id: number): Promise<Buffer> {
  const pitch = Math.max(l.pitch, 1);
  const rect = cropAround(grey, bounds(l.dots, null), Math.max(6, 2.5 * pitch));
  const n = l.dots.length / 3;
  const scale = cropScale(rect, pitch);
  const c = canvas(rect, scale,
    `lattice ${id}: pass ${passId} ${pass.via} (${pass.dark ? 'dark' : 'light'} dots), cluster ${l.cluster + 1}: ${l.outcome}. ` +
    `${n} dots over ${l.rows}x${l.cols} grid positions, pitch ${f1(l.pitch)} px, crop ${rect.x0},${rect.y0}-${rect.x1},${rect.y1} at ${scale}x.\n` +
    'Dots coloured by grid row (yellow and magenta alternate); lines join the dots of a row in column order. ' +
    'Faint white: candidates of the same pass the lattice did not take.');
  const parts: string[] = [];
  const layer = new CircleLayer(c.width, c.height);
  const taken = new Set<string>();
  for (let k = 0; k < l.dots.length; k += 3) taken.add(`${l.dots[k]},${l.dots[k + 1]}`);
  for (let i = 0; i < pass.dots.length; i += 3) {
    const x = pass.dots[i], y = pass.dots[i + 1];
    if (x < rect.x0 || x >= rect.x1 || y < rect.y0 || y >= rect.y1 || taken.has(`${x},${y}`)) continue;
    dot(c, layer, x, y, pass.dots[i + 2], WHITE, { weight: 0.8, opacity: 0.6 });
  }
  const rows = new Map<number, number[]>();
  for (let k = 0; k < n; k++) {
    const list = rows.get(l.row[k]) ?? [];
    list.push(k);
    rows.set(l.row[k], list);
  }
  const rowMin = Math.min(...rows.keys());
  for (const [row, ks] of [...rows].sort((a, b) => a[0] - b[0])) {
    ks.sort((a, b) => l.col[a] - l.col[b]);
    const colour = ROW_COLOURS[(row - rowMin) & 1];
    if (ks.length > 1) {
      const pts = ks.map((k) => `${f1(px(c, l.dots[k * 3]))},${f1(py(c, l.dots[k * 3 + 1]))}`).join(' ');
      parts.push(`<polyline points="${pts}" fill="none" stroke="${css(colour)}" stroke-width="${f1(c.line)}" stroke-opacity="0.8"/>`);
    }
    for (const k of ks) dot(c, layer, l.dots[k * 3], l.dots[k * 3 + 1], l.dots[k * 3 + 2], colour, { weight: 1.3 });
    // The row number sits one pitch before the row's first dot, along the row, whatever its angle.
    const first = ks[0], last = ks[ks.length - 1];
    let dx = l.dots[first * 3] - l.dots[last * 3], dy = l.dots[first * 3 + 1] - l.dots[last * 3 + 1];
    const len = Math.hypot(dx, dy) || 1;
    dx /= len; dy /= len;
    const size = Math.round(c.font * 0.85);
    parts.push(label(px(c, l.dots[first * 3] + dx * pitch * 1.2), py(c, l.dots[first * 3 + 1] + dy * pitch * 1.2) + size * 0.35,
      `r${row - rowMin}`, colour, size, 'middle'));
  }
  return render(grey, c, parts.join(''), layer);
}

/** A step of one grid row and of one grid column in the image, fitted to a lattice's dots. */
function latticeAxes(l: NativeTraceLattice): { u: [number, number]; v: [number, number] } | null {
  const n = l.dots.length / 3;
  if (n < 3) return null;
  let mr = 0, mc = 0, mx = 0, my = 0;
  for (let k = 0; k < n; k++) { mr += l.row[k]; mc += l.col[k]; mx += l.dots[k * 3]; my += l.dots[k * 3 + 1]; }
  mr /= n; mc /= n; mx /= n; my /= n;
  // Least squares of image = origin + row·u + col·v, centred so the origin drops out.
  let rr = 0, rc = 0, cc = 0, rx = 0, cx = 0, ry = 0, cy = 0;
  for (let k = 0; k < n; k++) {
    const r = l.row[k] - mr, c = l.col[k] - mc, x = l.dots[k * 3] - mx, y = l.dots[k * 3 + 1] - my;
    rr += r * r; rc += r * c; cc += c * c; rx += r * x; cx += c * x; ry += r * y; cy += c * y;
  }
  const det = rr * cc - rc * rc;
  if (Math.abs(det) < 1e-6) return null;
  return {
    u: [(cc * rx - rc * cx) / det, (cc * ry - rc * cy) / det],
    v: [(rr * cx - rc * rx) / det, (rr * cy - rc * ry) / det],
  };
}

/**
 * Which way to draw a grid so it can be held against the photo: picture x and y each follow
 * the grid axis (row or column, either sign) that runs most nearly along image x and y. Picture
 * position of (row, col) = (x[0]·row + x[1]·col, y[0]·row + y[1]·col), before shifting to 0.
 */
function gridView(l: NativeTraceLattice | undefined): { x: [number, number]; y: [number, number] } {
  const axes = l && latticeAxes(l);
  if (!axes) return { x: [0, 1], y: [1, 0] }; // as sampled: rows down, columns across
  const step = (a: number, b: number): [number, number] => {
    const sx = a * axes.u[0] + b * axes.v[0], sy = a * axes.u[1] + b * axes.v[1];
    const len = Math.hypot(sx, sy) || 1;
    return [sx / len, sy / len];
  };
  const dirs: [number, number][] = [[1, 0], [-1, 0], [0, 1], [0, -1]];
  let best = { x: [0, 1] as [number, number], y: [1, 0] as [number, number] }, bestScore = -Infinity;
  for (const x of dirs) {
    for (const y of dirs) {
      if (x[0] !== 0 === (y[0] !== 0)) continue; // one axis each
      const score = step(x[0], x[1])[0] + step(y[0], y[1])[1];
      if (score > bestScore) { bestScore = score; best = { x, y }; }
    }
  }
  return best;
}

/**
 * grid-N.png: the grid exactly as handed to the decoder, one square per position: black is a dot,
 * white no dot, grey in between, red an erasure; light grey marks the positions of the other
 * checkerboard colour, where DotCode never puts a dot. It is turned (or mirrored) the way its
 * lattice lies in the image, so a 7-row symbol printed wide is drawn wide even when the lattice
 * counted its rows across it.
 */
export async function drawGrid(h: NativeTraceHypothesis, lattice: NativeTraceLattice | undefined, id: number,
  latticeId: number, passLabel: string, erasures: number): Promise<Buffer> {
  const view = gridView(lattice);
  const across = view.x[0] !== 0 ? h.rows : h.cols; // grid positions along picture x
  const down = view.x[0] !== 0 ? h.cols : h.rows;
  // A reversed axis counts from the far side.
  const x0 = view.x[0] + view.x[1] < 0 ? across - 1 : 0, y0 = view.y[0] + view.y[1] < 0 ? down - 1 : 0;
  const at = (r: number, c: number) => ({
    x: x0 + view.x[0] * r + view.x[1] * c,
    y: y0 + view.y[0] * r + view.y[1] * c,
  });
  const cell = Math.max(12, Math.min(28, Math.floor(1600 / Math.max(across, down))));
  const margin = 34; // room for the row and column numbers
  const width = Math.max(across * cell + margin + 8, MIN_WIDTH);
  const lo = (0.5 - ERASURE_MARGIN).toFixed(2), hi = (0.5 + ERASURE_MARGIN).toFixed(2);
  const turned = view.x[0] === 0 && view.x[1] === 1 && view.y[0] === 1 ? '' : ' Turned the way the lattice lies in the image; r = grid row, c = grid column.';
  const font = fontFor(width);
  const caption = wrap(
    `grid ${id}: ${h.rows}x${h.cols} sampled from lattice ${latticeId} (${passLabel}): ${h.outcome}, ${erasures} erasures.\n` +
    `Black: dot. White: no dot. Grey: in between. Red: erasure (${lo}-${hi}). Light grey: off the dot checkerboard.${turned}`, width, font);
  const band = bandHeight(caption.length, font);
  const height = band + margin + down * cell + 8;
  const parity = dotParity(h);
  const parts: string[] = [`<rect width="${width}" height="${height}" fill="#ffffff"/>`, `<rect width="${width}" height="${band}" fill="#202020"/>`];
  for (let r = 0; r < h.rows; r++) {
    for (let col = 0; col < h.cols; col++) {
      const v = h.values[r * h.cols + col];
      let fill: string;
      if (parity !== null && ((r + col) & 1) !== parity) fill = '#dcdcdc';
      else if (isErasure(v)) fill = css(REFUSED);
      else {
        const g = Math.round(255 * (1 - Math.min(1, Math.max(0, v))));
        fill = `rgb(${g},${g},${g})`;
      }
      const p = at(r, col);
      parts.push(`<rect x="${margin + p.x * cell}" y="${band + margin + p.y * cell}" width="${cell}" height="${cell}" fill="${fill}" stroke="#a0a0a0" stroke-width="0.5"/>`);
    }
  }
  // Every fifth row and column numbered (from 0, as the report counts), on the side it runs along.
  const rowsAcross = view.x[0] !== 0;
  const tick = (k: number, isRow: boolean): string => {
    const p = isRow ? at(k, 0) : at(0, k);
    const text = `${isRow ? 'r' : 'c'}${k}`;
    return isRow === rowsAcross
      ? `<text x="${margin + p.x * cell + cell / 2}" y="${band + margin - 8}" font-size="11" text-anchor="middle" fill="#404040">${text}</text>`
      : `<text x="${margin - 4}" y="${band + margin + p.y * cell + cell / 2 + 4}" font-size="11" text-anchor="end" fill="#404040">${text}</text>`;
  };
  for (let r = 0; r < h.rows; r += 5) parts.push(tick(r, true));
  for (let c = 0; c < h.cols; c += 5) parts.push(tick(c, false));
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" ` +
    `font-family="${FONT_FAMILY}">${parts.join('')}${captionSvg(caption, font)}</svg>`;
  return sharp()(Buffer.from(svg)).png().toBuffer();
}

/** "1-4, 7, 9-10" */
function ranges(ids: number[]): string {
  const out: string[] = [];
  for (let i = 0; i < ids.length;) {
    let j = i;
    while (j + 1 < ids.length && ids[j + 1] === ids[j] + 1) j++;
    out.push(j > i ? `${ids[i]}-${ids[j]}` : `${ids[i]}`);
    i = j + 1;
  }
  return out.join(', ');
}

/**
 * hypotheses.png: where each grid handed to the decoder was sampled (its four corner positions),
 * refused ones in red, decoded ones in green, and each result's corners with its text.
 */
export async function drawHypotheses(grey: GreyImage, trace: NativeInspection, report: InspectReport): Promise<Buffer> {
  const decoded = report.hypotheses.filter((h) => h.outcome === 'decoded').length;
  const c = wholeCanvas(grey,
    `hypotheses.png: the ${report.hypotheses.length} grid${report.hypotheses.length === 1 ? '' : 's'} handed to the decoder, ` +
    `drawn through the centres of their corner positions (a filled dot marks the first): red refused ` +
    `(${report.hypotheses.length - decoded}), green decoded (${decoded}). ` +
    (report.results.length ? `Thick green: the ${report.results.length} symbol${report.results.length === 1 ? '' : 's'} read, labelled with the text.` : 'Nothing was read.'));
  const parts: string[] = [];
  // A lattice is sampled at several extents whose outlines nearly coincide: one label per
  // lattice, at the first corner of its first grid, lists them all.
  const groups = new Map<number, { x: number; y: number; ids: number[]; colour: Rgb }>();
  const outlines: string[] = [];
  trace.hypotheses.forEach((h, i) => {
    const colour = h.outcome === 'decoded' ? DECODED : REFUSED;
    const p0 = h.corners[0];
    const outline = polygon(c, h.corners, colour, h.outcome === 'decoded' ? 1.6 : 1, 'stroke-opacity="0.8"') +
      `<circle cx="${f1(px(c, p0.x))}" cy="${f1(py(c, p0.y))}" r="${f1(c.line * 2.5)}" fill="${css(colour)}"/>`;
    // Decoded grids are drawn last, over the refused ones around them.
    if (h.outcome === 'decoded') outlines.push(outline);
    else parts.push(outline);
    const latticeId = report.hypotheses[i].lattice;
    const group = groups.get(latticeId) ?? { x: px(c, p0.x), y: py(c, p0.y), ids: [], colour };
    group.ids.push(i + 1);
    if (h.outcome === 'decoded') group.colour = DECODED;
    groups.set(latticeId, group);
  });
  parts.push(...outlines);
  const placer = new LabelPlacer(c.font);
  for (const [latticeId, g] of groups) {
    const text = `grid${g.ids.length > 1 ? 's' : ''} ${ranges(g.ids)} (lattice ${latticeId})`;
    const at = placer.place(g.x + c.font / 2, Math.max(c.band + c.font, g.y - c.font / 2), text);
    parts.push(label(at.x, at.y, text, g.colour, c.font));
  }
  for (const r of report.results) {
    parts.push(polygon(c, r.corners, DECODED, 2.5));
    const top = r.corners.reduce((a, b) => (b.y < a.y ? b : a));
    const text = r.text.length > 60 ? `${r.text.slice(0, 57)}...` : r.text;
    const at = placer.place(px(c, top.x), Math.max(c.band + c.font, py(c, top.y) - c.font), text);
    parts.push(label(at.x, at.y, JSON.stringify(text).slice(1, -1), DECODED, Math.round(c.font * 1.2)));
  }
  return render(grey, c, parts.join(''));
}
