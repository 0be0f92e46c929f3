// The grey level of a pixel exactly as image.ts's sharp pipeline computes it, for the decoders
// that make the grey plane without sharp (png-grey.ts, and the raw path of image.ts). Exact
// means bit for bit: libvips' recomb sums the BT.601 weights in double precision, stores a
// float, and the cast to 8 bits truncates; flatten blends onto white per channel and truncates.
// Checked against sharp over all 2^24 colours and over every (value, alpha) pair
// (test/engine/png-grey.test.ts keeps a sample of both).
const f32 = Math.fround;

/** BT.601 luma of gamma-encoded R, G, B (0..255), as sharp's recomb + cast gives it. */
export function lumaOf(r: number, g: number, b: number): number {
  return Math.trunc(f32(0.299 * r + 0.587 * g + 0.114 * b));
}

/** One channel of a pixel with alpha `a` flattened onto white (255), as libvips' flatten gives it. */
export function flattenOnWhite(c: number, a: number): number {
  return Math.trunc((c * a + 255 * (255 - a)) / 255);
}

/**
 * The grey plane of `n` packed 8-bit RGB pixels. A function of its own so the loop is compiled
 * once and hot (inline in an async function it ran about twice as slowly); lumaOf's arithmetic,
 * written out (a Uint8Array store truncates, as Math.trunc does for these non-negative values).
 */
export function lumaPlane(rgb: Uint8Array, n: number): Uint8Array {
  const grey = new Uint8Array(n);
  for (let i = 0, j = 0; i < n; i++, j += 3) grey[i] = f32(0.299 * rgb[j] + 0.587 * rgb[j + 1] + 0.114 * rgb[j + 2]);
  return grey;
}
