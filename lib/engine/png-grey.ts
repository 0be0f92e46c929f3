// Small PNGs straight to the grey plane in the calling thread, without sharp. A libvips pipeline
// costs about 0.5 ms before it decodes a single pixel (a thread hop, pipeline set-up), which is
// more than inflating and unfiltering a barcode-sized PNG takes here (bench/RESULTS.md, "zxing
// formats against native zxing-cpp"). The output must be byte for byte what image.ts's sharp
// pipeline gives, or reads would change: so only the plain cases are taken (8-bit samples, or
// 1/2/4-bit grey and palette; not interlaced; no colour profile, gamma, EXIF or single-colour
// transparency), and everything else returns null and goes to sharp. test/engine/png-grey.test.ts
// compares the two on every PNG of the sample corpora.
import { inflateSync } from 'zlib';
import { flattenOnWhite, lumaOf, lumaPlane, rgbaToGrey } from './luma';

/** Above this many pixels sharp is used anyway: its fixed cost no longer matters. */
export const PNG_IN_THREAD_PIXELS = 1_000_000;

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Chunks whose meaning libvips applies (or may apply) and this decoder does not: leave to sharp. */
const HANDS_OFF = new Set(['iCCP', 'gAMA', 'cHRM', 'sRGB', 'eXIf', 'sBIT']);

interface Header { width: number; height: number; depth: number; colour: number }

/** Grey plane of a plain PNG, or null when it is not one this decoder takes. Throws on nothing. */
export function pngToGrey(png: Uint8Array): { data: Uint8Array; width: number; height: number } | null {
  try {
    return decode(png);
  } catch {
    return null; // a damaged file: sharp gives the error message callers expect
  }
}

function decode(b: Uint8Array): { data: Uint8Array; width: number; height: number } | null {
  for (let i = 0; i < 8; i++) if (b[i] !== SIGNATURE[i]) return null;
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let header: Header | null = null;
  let palette: Uint8Array | null = null;
  let alphas: Uint8Array | null = null;
  const idat: Uint8Array[] = [];
  let o = 8;
  for (;;) {
    if (o + 8 > b.length) return null; // no IEND: truncated
    const len = view.getUint32(o);
    const type = String.fromCharCode(b[o + 4], b[o + 5], b[o + 6], b[o + 7]);
    const body = o + 8;
    if (body + len + 4 > b.length) return null;
    if (type === 'IHDR') {
      const interlace = b[body + 12];
      if (interlace !== 0 || b[body + 10] !== 0 || b[body + 11] !== 0) return null;
      header = { width: view.getUint32(body), height: view.getUint32(body + 4), depth: b[body + 8], colour: b[body + 9] };
    } else if (type === 'PLTE') {
      palette = b.subarray(body, body + len);
    } else if (type === 'tRNS') {
      if (header?.colour !== 3) return null; // a transparent grey level or colour: sharp's business
      alphas = b.subarray(body, body + len);
    } else if (type === 'IDAT') {
      idat.push(b.subarray(body, body + len));
    } else if (type === 'IEND') {
      break;
    } else if (HANDS_OFF.has(type)) {
      return null;
    }
    o = body + len + 4; // CRCs are not checked: zlib's own check guards the pixel data
  }
  if (!header || !idat.length) return null;
  const { width, height, depth, colour } = header;
  if (width <= 0 || height <= 0 || width * height > PNG_IN_THREAD_PIXELS) return null;
  const channels = ({ 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 } as Record<number, number>)[colour];
  if (!channels) return null;
  const depthOk = depth === 8 || ((colour === 0 || colour === 3) && (depth === 1 || depth === 2 || depth === 4));
  if (!depthOk) return null;
  if (colour === 3 && !palette) return null;

  const bitsPerPixel = channels * depth;
  const stride = Math.ceil((width * bitsPerPixel) / 8);
  const bpp = Math.max(1, bitsPerPixel >> 3); // filter distance in bytes
  const raw = inflateSync(idat.length === 1 ? idat[0] : Buffer.concat(idat));
  if (raw.length < (stride + 1) * height) return null;
  const rows = unfilter(raw, stride, height, bpp);

  return { data: toGrey(rows, header, stride, palette, alphas), width, height };
}

/**
 * Rows of samples -> grey, one loop per kind of pixel (a branch per pixel on the kind, and a
 * division or palette look-up per pixel, cost more than the rest of a small PNG's decoding).
 */
function toGrey(rows: Uint8Array, h: Header, stride: number, palette: Uint8Array | null, alphas: Uint8Array | null): Uint8Array {
  const { width, height, depth, colour } = h;
  const out = new Uint8Array(width * height);
  if (colour === 0 && depth === 8) {
    for (let y = 0; y < height; y++) out.set(rows.subarray(y * stride, y * stride + width), y * width);
    return out;
  }
  if (colour === 0 || colour === 3) {
    // A sample is an index into a table of grey levels (grey scaled to 0..255, or the palette's
    // colours as grey); -1 marks palette indices past the palette's end, an error as in libvips.
    const maxLevel = (1 << depth) - 1;
    const levels = new Int16Array(maxLevel + 1);
    for (let s = 0; s <= maxLevel; s++) {
      if (colour === 0) levels[s] = Math.trunc((s * 255) / maxLevel);
      else levels[s] = s * 3 + 2 < palette!.length ? paletteGrey(palette!, alphas, s) : -1;
    }
    if (depth <= 4) {
      expandSmallSamples(rows, h, stride, levels, out);
      return out;
    }
    if (depth === 8) {
      // (a palette image: one index a byte, so one look-up a pixel and no bit shifts)
      for (let y = 0; y < height; y++) {
        for (let i = y * stride, o = y * width, end = o + width; o < end; i++, o++) {
          const v = levels[rows[i]];
          if (v < 0) throw new Error('palette index out of range');
          out[o] = v;
        }
      }
      return out;
    }
    for (let y = 0; y < height; y++) {
      const end = (y + 1) * width;
      // byte by byte, its samples from the highest bits down
      for (let i = y * stride, o = y * width; o < end; i++) {
        const byte = rows[i];
        for (let shift = 8 - depth; shift >= 0 && o < end; shift -= depth, o++) {
          const v = levels[(byte >> shift) & maxLevel];
          if (v < 0) throw new Error('palette index out of range');
          out[o] = v;
        }
      }
    }
    return out;
  }
  for (let y = 0; y < height; y++) {
    const row = y * stride;
    const dst = y * width;
    if (colour === 2) {
      out.set(lumaPlane(rows.subarray(row, row + width * 3), width), dst);
    } else if (colour === 4) {
      for (let x = 0, p = row; x < width; x++, p += 2) out[dst + x] = flattenOnWhite(rows[p], rows[p + 1]);
    } else {
      out.set(rgbaToGrey(rows.subarray(row, row + width * 4), width), dst);
    }
  }
  return out;
}

/**
 * 1-, 2- and 4-bit samples (most barcode PNGs): every byte value's 8, 4 or 2 grey levels are
 * tabled once, and a byte of samples becomes two 32-bit copies, one, or one 16-bit copy from that
 * table into a row buffer (the table is filled byte by byte, so the copies keep pixel order
 * whatever the endianness).
 */
function expandSmallSamples(rows: Uint8Array, h: Header, stride: number, levels: Int16Array, out: Uint8Array): void {
  const { width, height, depth } = h;
  const perByte = 8 / depth;
  const maxLevel = (1 << depth) - 1;
  const table = new Uint8Array(256 * perByte);
  const bad = new Uint8Array(256); // a byte holding an index past the palette's end
  for (let b = 0; b < 256; b++) {
    for (let k = 0; k < perByte; k++) {
      const v = levels[(b >> (8 - depth * (k + 1))) & maxLevel];
      if (v < 0) bad[b] = 1;
      else table[b * perByte + k] = v;
    }
  }
  const words = new Uint32Array(table.buffer, 0, perByte >= 4 ? table.length >> 2 : 0);
  const halves = new Uint16Array(table.buffer);
  const wordsPerByte = perByte >> 2;
  const fullBytes = Math.floor(width / perByte);
  const row = new Uint8Array(fullBytes * perByte);
  const rowWords = new Uint32Array(row.buffer, 0, perByte >= 4 ? row.length >> 2 : 0);
  const rowHalves = new Uint16Array(row.buffer);
  for (let y = 0; y < height; y++) {
    const src = y * stride;
    const dst = y * width;
    for (let i = 0; i < fullBytes; i++) {
      const b = rows[src + i];
      if (bad[b]) throw new Error('palette index out of range');
      if (wordsPerByte === 2) {
        rowWords[2 * i] = words[2 * b];
        rowWords[2 * i + 1] = words[2 * b + 1];
      } else if (wordsPerByte === 1) {
        rowWords[i] = words[b];
      } else {
        rowHalves[i] = halves[b];
      }
    }
    out.set(row, dst);
    // the samples of a last, partly used byte
    for (let x = fullBytes * perByte; x < width; x++) {
      const bit = x * depth;
      const v = levels[(rows[src + (bit >> 3)] >> (8 - depth - (bit & 7))) & maxLevel];
      if (v < 0) throw new Error('palette index out of range');
      out[dst + x] = v;
    }
  }
}

function paletteGrey(palette: Uint8Array, alphas: Uint8Array | null, i: number): number {
  const p = i * 3;
  const a = alphas && i < alphas.length ? alphas[i] : 255;
  if (a === 255) return lumaOf(palette[p], palette[p + 1], palette[p + 2]);
  return lumaOf(flattenOnWhite(palette[p], a), flattenOnWhite(palette[p + 1], a), flattenOnWhite(palette[p + 2], a));
}

/**
 * Undoes PNG's per-row filters (None, Sub, Up, Average, Paeth) into a fresh buffer; one loop per
 * filter, so the choice is made once a row. Bytes before the row's first pixel and the row above
 * the first read as 0.
 */
function unfilter(raw: Uint8Array, stride: number, height: number, bpp: number): Uint8Array {
  const out = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const src = y * (stride + 1) + 1;
    const dst = y * stride;
    const up = dst - stride;
    const first = y > 0; // is there a row above?
    switch (filter) {
      case 0:
        out.set(raw.subarray(src, src + stride), dst);
        break;
      case 1:
        for (let i = 0; i < stride; i++) out[dst + i] = raw[src + i] + (i >= bpp ? out[dst + i - bpp] : 0);
        break;
      case 2:
        if (first) for (let i = 0; i < stride; i++) out[dst + i] = raw[src + i] + out[up + i];
        else out.set(raw.subarray(src, src + stride), dst);
        break;
      case 3:
        for (let i = 0; i < stride; i++) {
          const a = i >= bpp ? out[dst + i - bpp] : 0;
          const b = first ? out[up + i] : 0;
          out[dst + i] = raw[src + i] + ((a + b) >> 1);
        }
        break;
      case 4:
        for (let i = 0; i < stride; i++) {
          const a = i >= bpp ? out[dst + i - bpp] : 0;
          const b = first ? out[up + i] : 0;
          const c = first && i >= bpp ? out[up + i - bpp] : 0;
          const p = a + b - c;
          const pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
          out[dst + i] = raw[src + i] + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
        }
        break;
      default:
        throw new Error(`bad PNG filter ${filter}`);
    }
  }
  return out;
}
