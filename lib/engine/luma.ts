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
 * lumaOf in integers: trunc(f32(0.299r + 0.587g + 0.114b)) equals floor((299r + 587g + 114b) /
 * 1000) for every one of the 2^24 colours (test/engine/png-grey.test.ts checks them all), and for
 * sums up to 255000 that floor is (sum * 67109) / 2^26 truncated, exactly in doubles. The loops
 * below use it: it is about a third faster than the float form on a 1280x720 frame.
 */
const LUMA_MUL = 67109;
const LUMA_SHIFT = 2 ** -26;

/** lumaOf, computed as the plane loops compute it. */
export function lumaOfSum(r: number, g: number, b: number): number {
  return Math.trunc((299 * r + 587 * g + 114 * b) * LUMA_MUL * LUMA_SHIFT);
}

/** Word reads below assume little-endian memory (x64, arm64); elsewhere the byte loops run. */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * The grey plane of `n` packed 8-bit RGB pixels. A function of its own so the loop is compiled
 * once and hot (inline in an async function it ran about twice as slowly). Four pixels are three
 * 32-bit words: a quarter of the loads of a byte loop (3.5 -> about 2 ms on a 1280x720 frame).
 */
export function lumaPlane(rgb: Uint8Array, n: number): Uint8Array {
  const grey = new Uint8Array(n);
  let i = 0;
  if (LITTLE_ENDIAN && rgb.byteOffset % 4 === 0) {
    const quads = n >> 2;
    const w = new Uint32Array(rgb.buffer, rgb.byteOffset, quads * 3);
    for (let k = 0, j = 0; k < quads; k++, i += 4, j += 3) {
      const a = w[j], b = w[j + 1], c = w[j + 2];
      // bytes r0 g0 b0 r1 | g1 b1 r2 g2 | b2 r3 g3 b3, lowest byte first
      grey[i] = (299 * (a & 255) + 587 * ((a >>> 8) & 255) + 114 * ((a >>> 16) & 255)) * LUMA_MUL * LUMA_SHIFT;
      grey[i + 1] = (299 * (a >>> 24) + 587 * (b & 255) + 114 * ((b >>> 8) & 255)) * LUMA_MUL * LUMA_SHIFT;
      grey[i + 2] = (299 * ((b >>> 16) & 255) + 587 * (b >>> 24) + 114 * (c & 255)) * LUMA_MUL * LUMA_SHIFT;
      grey[i + 3] = (299 * ((c >>> 8) & 255) + 587 * ((c >>> 16) & 255) + 114 * (c >>> 24)) * LUMA_MUL * LUMA_SHIFT;
    }
  }
  // (a Uint8Array store truncates, as Math.trunc does for these non-negative values)
  for (let j = i * 3; i < n; i++, j += 3) grey[i] = (299 * rgb[j] + 587 * rgb[j + 1] + 114 * rgb[j + 2]) * LUMA_MUL * LUMA_SHIFT;
  return grey;
}

/**
 * The grey plane of `n` 8-bit RGBA pixels (not premultiplied): opaque pixels as lumaPlane, the
 * others flattened onto white first, as the sharp pipeline's flatten does.
 */
export function rgbaToGrey(rgba: Uint8Array, n: number): Uint8Array {
  const grey = new Uint8Array(n);
  if (LITTLE_ENDIAN && rgba.byteOffset % 4 === 0) {
    const w = new Uint32Array(rgba.buffer, rgba.byteOffset, n);
    for (let i = 0; i < n; i++) {
      const p = w[i];
      const a = p >>> 24;
      grey[i] = a === 255
        ? (299 * (p & 255) + 587 * ((p >>> 8) & 255) + 114 * ((p >>> 16) & 255)) * LUMA_MUL * LUMA_SHIFT
        : lumaOfSum(flattenOnWhite(p & 255, a), flattenOnWhite((p >>> 8) & 255, a), flattenOnWhite((p >>> 16) & 255, a));
    }
    return grey;
  }
  for (let i = 0, j = 0; i < n; i++, j += 4) {
    const a = rgba[j + 3];
    grey[i] = lumaOfSum(flattenOnWhite(rgba[j], a), flattenOnWhite(rgba[j + 1], a), flattenOnWhite(rgba[j + 2], a));
  }
  return grey;
}
