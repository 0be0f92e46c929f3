// A copy of a grey plane with the symbols another reader found painted over, for the DotCode
// detector's harder passes. Those passes look for dot lattices, and the modules of a QR Code, Data
// Matrix, Aztec, PDF417 or MaxiCode are lattices too: on an image that holds one of those and no
// DotCode they used to spend most of a still image's budget there (100-600 ms on the zxing samples)
// before the zxing readers were asked. A DotCode is printed beside such a symbol, never across it,
// so nothing the detector should read is lost under the paint.
import type { GreyImage } from './image';
import type { Point } from './types';

/**
 * How far each symbol's quadrilateral is grown about its centre before it is painted: 6% a side,
 * enough to cover the reader's corners being a module off on the smallest symbols (a module of a
 * 21x21 QR Code is 4.8% of its side) and still inside a QR Code's quiet zone of four modules up to
 * 57x57 modules, so a DotCode printed at the edge of that quiet zone keeps its dots.
 */
const GROWTH = 1.12;

/** The quadrilateral grown about its centre by GROWTH. */
function grown(corners: readonly Point[]): Point[] {
  const cx = corners.reduce((s, p) => s + p.x, 0) / corners.length;
  const cy = corners.reduce((s, p) => s + p.y, 0) / corners.length;
  return corners.map((p) => ({ x: cx + (p.x - cx) * GROWTH, y: cy + (p.y - cy) * GROWTH }));
}

/** Whether (x, y) lies inside the convex polygon `q` (either winding) or on its edge. */
function inside(q: readonly Point[], x: number, y: number): boolean {
  let side = 0;
  for (let i = 0; i < q.length; i++) {
    const a = q[i];
    const b = q[(i + 1) % q.length];
    const cross = (b.x - a.x) * (y - a.y) - (b.y - a.y) * (x - a.x);
    if (cross === 0) continue;
    const s = cross > 0 ? 1 : -1;
    if (side === 0) side = s;
    else if (s !== side) return false;
  }
  return true;
}

/**
 * Paints the grown quadrilateral with the median grey of the pixels along its rim (the symbol's
 * quiet zone), so no step of contrast is left where the symbol was.
 */
function paint(grey: GreyImage, out: Uint8Array, corners: readonly Point[]): void {
  if (corners.length < 3) return;
  const q = grown(corners);
  const x0 = Math.max(0, Math.floor(Math.min(...q.map((p) => p.x))));
  const x1 = Math.min(grey.width - 1, Math.ceil(Math.max(...q.map((p) => p.x))));
  const y0 = Math.max(0, Math.floor(Math.min(...q.map((p) => p.y))));
  const y1 = Math.min(grey.height - 1, Math.ceil(Math.max(...q.map((p) => p.y))));
  if (x0 > x1 || y0 > y1) return;
  const counts = new Uint32Array(256);
  let rim = 0;
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      if (!inside(q, x, y)) continue;
      if (inside(q, x - 2, y) && inside(q, x + 2, y) && inside(q, x, y - 2) && inside(q, x, y + 2)) continue;
      counts[grey.data[y * grey.width + x]]++;
      rim++;
    }
  }
  let fill = 0;
  for (let seen = 0; fill < 255; fill++) {
    seen += counts[fill];
    if (2 * seen > rim) break;
  }
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) if (inside(q, x, y)) out[y * grey.width + x] = fill;
  }
}

/** A copy of the plane with each symbol (its corners in the plane's pixels) painted over. */
export function blankSymbols(grey: GreyImage, symbols: ReadonlyArray<{ corners: readonly Point[] }>): GreyImage {
  const data = Uint8Array.from(grey.data.subarray(0, grey.width * grey.height));
  for (const s of symbols) paint(grey, data, s.corners);
  return { data, width: grey.width, height: grey.height, owned: true };
}
