// How many grey levels a plane holds, when it holds very few: a blank frame (one level: no symbol
// can be in it, core.ts) and a rendered black-and-white symbol (two: zxing's fixed-threshold pass,
// zxing.ts twoLevels). One scan for both, four pixels a step where the plane is word-aligned; it
// stops at the first level past the ones asked for, a few pixels into any photograph.
import type { GreyImage } from './image';

/** 0x80 in each byte of the 32-bit word `v` that is not zero, 0 in the others (exact: no carries between bytes). */
function nonzeroBytes(v: number): number {
  return (((v & 0x7f7f7f7f) + 0x7f7f7f7f) | v) & 0x80808080;
}

/**
 * The plane's grey levels, in order of first appearance, when it holds at most `most` of them
 * (1 or 2); null when it holds more.
 */
export function fewLevels(grey: GreyImage, most: 1 | 2): number[] | null {
  const d = grey.data;
  const n = grey.width * grey.height;
  if (n === 0) return [];
  const a = d[0];
  let b = a; // the second level once seen (b === a: none yet)
  /** Pixel i is one of the levels, or becomes the second: false at one level too many. */
  const fits = (v: number): boolean => {
    if (v === a || v === b) return true;
    if (b !== a || most === 1) return false;
    b = v;
    return true;
  };
  // the bytes up to the first word boundary, then whole words, then the rest
  const head = Math.min(n, 1 + ((4 - ((d.byteOffset + 1) & 3)) & 3));
  for (let i = 1; i < head; i++) if (!fits(d[i])) return null;
  const words = (n - head) >> 2;
  if (words > 0) {
    const w = new Uint32Array(d.buffer, d.byteOffset + head, words);
    const A = a * 0x01010101;
    for (let k = 0; k < words; k++) {
      const x = w[k] ^ A; // bytes equal to a are 0
      if (x === 0) continue;
      // with both levels known, every byte of x must be 0 or a ^ b: no byte nonzero in both x and x ^ (a ^ b)
      if (b !== a && (nonzeroBytes(x) & nonzeroBytes(x ^ ((a ^ b) * 0x01010101))) === 0) continue;
      for (let j = head + 4 * k, end = j + 4; j < end; j++) if (!fits(d[j])) return null;
    }
  }
  for (let i = head + 4 * words; i < n; i++) if (!fits(d[i])) return null;
  return b === a ? [a] : [a, b];
}

/** Whether every pixel of the plane has one grey level (a blank frame, where no symbol can be). */
export function uniformPlane(grey: GreyImage): boolean {
  return fewLevels(grey, 1) !== null;
}
