// Image input -> one 8-bit greyscale buffer. Encoded images (PNG, JPEG, WebP) are decoded and
// turned grey in a single sharp pipeline; raw frames are converted here in one pass because
// sharp cannot be told that OpenCV data is BGR. Every failure becomes an EngineError whose code
// is the `<detail>` of `decode_error:<detail>`.
import { promises as fsp } from 'fs';
import { lumaPlane } from './luma';
import { pngToGrey } from './png-grey';
import { webpToGrey } from './webp-grey';
import { addonTakesJpeg, isStartOfFrame, jpegGreyInAddon } from './jpeg-grey';
import type { ImageProbe } from './types';
import { EngineError } from './errors';
import { MAX_PIXELS } from './limits';

export interface GreyImage {
  data: Uint8Array;
  width: number;
  height: number;
  /**
   * True when `data` was made by the engine (not the caller's own frame), so its memory may be
   * handed to a worker thread (ArrayBuffer transfer) instead of copied.
   */
  owned?: boolean;
}

/** What crosses the thread boundary: inputs already normalised on the caller's side. */
export type WireInput =
  | { kind: 'path'; path: string }
  | { kind: 'bytes'; bytes: Uint8Array }
  | { kind: 'raw'; data: Uint8Array; width: number; height: number; channels: number; bgr: boolean };

/**
 * Reads type and size from the first bytes without decoding pixels (the server uses it to refuse
 * oversized images before any work). Unknown content gives type null.
 */
export function probeImage(bytes: Uint8Array): ImageProbe {
  const b = bytes;
  const none: ImageProbe = { type: null, width: null, height: null };
  if (!b || b.length < 12) return none;
  const u32be = (o: number) => ((b[o] << 24) >>> 0) + (b[o + 1] << 16) + (b[o + 2] << 8) + b[o + 3];
  const u16be = (o: number) => (b[o] << 8) | b[o + 1];
  const u16le = (o: number) => b[o] | (b[o + 1] << 8);
  const u24le = (o: number) => b[o] | (b[o + 1] << 8) | (b[o + 2] << 16);
  // PNG: signature, then the IHDR chunk with width and height.
  if (b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) {
    if (b.length >= 24) return { type: 'png', width: u32be(16), height: u32be(20) };
    return { type: 'png', width: null, height: null };
  }
  // JPEG: walk the markers to the first start-of-frame.
  if (b[0] === 0xff && b[1] === 0xd8) {
    let o = 2;
    while (o + 9 < b.length) {
      if (b[o] !== 0xff) { o++; continue; }
      const m = b[o + 1];
      if (m === 0xff) { o++; continue; }
      if (m === 0xd8 || m === 0x01 || (m >= 0xd0 && m <= 0xd7)) { o += 2; continue; }
      if (isStartOfFrame(m)) return { type: 'jpeg', width: u16be(o + 7), height: u16be(o + 5) };
      if (m === 0xd9 || m === 0xda) break;
      o += 2 + u16be(o + 2);
    }
    return { type: 'jpeg', width: null, height: null };
  }
  // WebP: RIFF....WEBP then VP8 (lossy), VP8L (lossless) or VP8X (extended).
  if (b[0] === 0x52 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x46 &&
      b[8] === 0x57 && b[9] === 0x45 && b[10] === 0x42 && b[11] === 0x50) {
    if (b.length >= 30) {
      const fourcc = String.fromCharCode(b[12], b[13], b[14], b[15]);
      if (fourcc === 'VP8 ') return { type: 'webp', width: u16le(26) & 0x3fff, height: u16le(28) & 0x3fff };
      if (fourcc === 'VP8L') {
        const bits = b[21] | (b[22] << 8) | (b[23] << 16) | (b[24] << 24);
        return { type: 'webp', width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
      }
      if (fourcc === 'VP8X') return { type: 'webp', width: u24le(24) + 1, height: u24le(27) + 1 };
    }
    return { type: 'webp', width: null, height: null };
  }
  return none;
}

// sharp is loaded lazily: a caller that only probes or hands over grey frames never pays for it.
let sharpModule: typeof import('sharp') | undefined;
function sharp(): typeof import('sharp') {
  if (!sharpModule) {
    sharpModule = require('sharp') as typeof import('sharp');
    // One libvips thread per image: concurrent decodes already spread over the libuv pool, and
    // the machines we target have few cores.
    sharpModule.concurrency(1);
    sharpModule.cache(false);
  }
  return sharpModule;
}

const LUMA: [number, number, number] = [0.299, 0.587, 0.114];

/** Encoded PNGs up to this many pixels are decoded in the calling thread (png-grey.ts). */
export const SMALL_IMAGE_PIXELS = 262_144;

async function decodeEncoded(bytes: Uint8Array): Promise<GreyImage> {
  if (bytes.byteLength === 0) throw new EngineError('empty_input', 'the image is empty');
  const probe = probeImage(bytes);
  if (!probe.type) throw new EngineError('unsupported_format', 'not a PNG, JPEG or WebP image');
  if (probe.width && probe.height && probe.width * probe.height > MAX_PIXELS) {
    throw new EngineError('image_too_large', `${probe.width}x${probe.height} is over ${MAX_PIXELS} pixels`);
  }
  // Shorter roads to the very same bytes (luma.ts). Small PNGs and WebPs (barcode crops, the
  // zxing samples): sharp's fixed cost per call (a thread hop and the pipeline's set-up, about 0.5 ms)
  // outweighs inflating them here. Images without alpha up to RAW_IN_THREAD_PIXELS: libvips'
  // recomb computes three float bands to keep one, about 12 ms of a 1280x720 JPEG's 17-19 ms on
  // this machine, where the luma loop here takes about 3 ms (the bound and the cost that
  // rawToGrey already accepts for raw colour frames).
  const pixels = probe.width !== null && probe.height !== null ? probe.width * probe.height : Infinity;
  // JPEGs sharp would only decode: libjpeg-turbo in the addon, the same bytes (jpeg-grey.ts).
  if (probe.type === 'jpeg') {
    const g = await jpegGreyInAddon(bytes, probe.width, probe.height);
    if (g) return g;
  }
  if (pixels <= SMALL_IMAGE_PIXELS && probe.type === 'png') {
    const g = pngToGrey(bytes);
    if (g) return { ...g, owned: true };
  }
  // Small WebPs: libvips' WebP loader costs 2-3 ms on a 240x240 image (webp-grey.ts).
  if (probe.type === 'webp') {
    const g = await webpToGrey(bytes, probe.width, probe.height);
    if (g) return { ...g, owned: true };
  }
  if (pixels <= RAW_IN_THREAD_PIXELS && !mayHaveAlpha(bytes, probe.type)) {
    const g = await srgbThenLuma(bytes);
    if (g) return g;
  }
  return greyPipeline(bytes);
}

/**
 * Whether the file may carry alpha, from its header: the whole pipeline flattens alpha before
 * any colour conversion, which the short road (colour conversion, then luma here) cannot copy.
 */
function mayHaveAlpha(b: Uint8Array, type: 'png' | 'jpeg' | 'webp'): boolean {
  if (type === 'jpeg') return false;
  if (type === 'png') return true; // the PNGs pngToGrey left: with alpha, profiles, 16 bits, ...
  const fourcc = String.fromCharCode(b[12], b[13], b[14], b[15]);
  if (fourcc === 'VP8 ') return false; // simple lossy WebP: no alpha
  if (fourcc === 'VP8L') return b.length < 25 || (b[24] & 0x10) !== 0; // alpha_is_used bit
  return b.length < 21 || (b[20] & 0x10) !== 0; // VP8X: the alpha flag
}

/** sharp up to sRGB (EXIF orientation, colour profile, CMYK), then the luma in this thread. */
async function srgbThenLuma(bytes: Uint8Array): Promise<GreyImage | null> {
  let out: { data: Buffer; info: { width: number; height: number; channels: number; size: number } };
  try {
    out = await sharp()(bytes, { limitInputPixels: MAX_PIXELS, failOn: 'none' })
      .rotate()
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
  } catch {
    return null; // the whole pipeline reports the error as it always has
  }
  const { data, info } = out;
  const n = info.width * info.height;
  // Three 8-bit channels is the only case taken; anything else (alpha after all, 16 bits) goes
  // through the whole pipeline.
  if (info.channels !== 3 || data.byteLength !== n * 3) return null;
  return { data: lumaPlane(data, n), width: info.width, height: info.height, owned: true };
}

/** The whole grey pipeline in libvips. */
async function greyPipeline(bytes: Uint8Array): Promise<GreyImage> {
  try {
    const { data, info } = await sharp()(bytes, { limitInputPixels: MAX_PIXELS, failOn: 'none' })
      .rotate() // honour EXIF orientation, as a viewer would show the photo
      // Transparent pixels become white paper, not black (a code drawn on a transparent PNG).
      .flatten({ background: '#ffffff' })
      .toColourspace('srgb')
      // Luma as BT.601 weights on the gamma-encoded values, the way zxing-cpp's own loader and
      // most camera pipelines do it. sharp's greyscale() works in linear light, which lost
      // qrcode-2/#253 of the zxing samples; the cost is small (bench/RESULTS.md, "Figures behind code comments").
      .recomb([LUMA, LUMA, LUMA])
      .extractChannel(0) // exactly one byte per pixel
      .raw()
      .toBuffer({ resolveWithObject: true });
    return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height, owned: true };
  } catch (e) {
    const msg = (e as Error).message || String(e);
    if (/pixel limit/i.test(msg)) throw new EngineError('image_too_large', msg);
    throw new EngineError('unreadable_image', msg);
  }
}

/** For tests and benches: the whole libvips pipeline, whatever the image's size or type. */
export function loadGreyPipeline(bytes: Uint8Array): Promise<GreyImage> {
  return greyPipeline(bytes);
}

function checkRaw(data: Uint8Array, width: number, height: number, channels: number): number {
  const n = width * height;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width <= 0 || height <= 0) {
    throw new EngineError('invalid_frame', 'width and height must be positive integers');
  }
  if (n > MAX_PIXELS) throw new EngineError('image_too_large', `${width}x${height} is over ${MAX_PIXELS} pixels`);
  if (channels !== 1 && channels !== 3 && channels !== 4) {
    throw new EngineError('invalid_frame', `channels must be 1, 3 or 4, not ${channels}`);
  }
  if (data.byteLength < n * channels) {
    throw new EngineError('invalid_frame', `data holds ${data.byteLength} bytes, ${n * channels} expected`);
  }
  return n;
}

/** Loads sharp and runs the grey pipeline once on a tiny PNG (engine warm-up). */
export async function warmGrey(): Promise<GreyImage> {
  const png = await sharp()({ create: { width: 32, height: 32, channels: 3, background: '#ffffff' } }).png().toBuffer();
  return decodeEncoded(png);
}

/** Raw 1/3/4-channel pixels -> grey with integer BT.601 weights, in one pass. */
export function rawToGrey(data: Uint8Array, width: number, height: number, channels: number, bgr: boolean): GreyImage {
  const n = checkRaw(data, width, height, channels);
  // A grey frame is used as it is: the caller's memory, never transferred away from it.
  if (channels === 1) return { data: data.subarray(0, n), width, height, owned: false };
  const out = new Uint8Array(n);
  const r = bgr ? 2 : 0;
  const bl = bgr ? 0 : 2;
  for (let i = 0, j = 0; i < n; i++, j += channels) {
    out[i] = (data[j + r] * 77 + data[j + 1] * 150 + data[j + bl] * 29 + 128) >> 8;
  }
  return { data: out, width, height, owned: true };
}

/**
 * Colour frames up to this many pixels are folded to grey by rawToGrey in the calling thread:
 * for a 720p frame that is far less than a libvips pipeline costs. Larger ones would hold the
 * event loop too long and go through sharp instead, off the event loop (bench/RESULTS.md,
 * "Figures behind code comments").
 */
export const RAW_IN_THREAD_PIXELS = 1_000_000;

/**
 * The same integer BT.601 luma as rawToGrey, computed by libvips on its own threads: the float
 * weights 77/256, 150/256, 29/256 are exact in binary, and +0.5 before libvips' truncating cast
 * gives (77r + 150g + 29b + 128) >> 8 bit for bit (test/engine/grey-path.test.ts checks it).
 */
export async function rawToGreyOffThread(data: Uint8Array, width: number, height: number, channels: number, bgr: boolean): Promise<GreyImage> {
  checkRaw(data, width, height, channels);
  if (channels === 1) return rawToGrey(data, width, height, channels, bgr);
  const w: [number, number, number] = bgr ? [29 / 256, 150 / 256, 77 / 256] : [77 / 256, 150 / 256, 29 / 256];
  const input = Buffer.from(data.buffer, data.byteOffset, width * height * channels);
  let p = sharp()(input, { raw: { width, height, channels: channels as 3 | 4 }, limitInputPixels: MAX_PIXELS });
  if (channels === 4) p = p.removeAlpha(); // alpha is ignored, as rawToGrey ignores it
  const { data: out } = await p.recomb([w, w, w]).linear(1, 0.5).extractChannel(0).raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(out.buffer, out.byteOffset, out.byteLength), width, height, owned: true };
}

/** The bytes of an image file; failures as the engine's errors (file_not_found, ...). */
export async function readImageFile(file: string): Promise<Buffer> {
  try {
    return await fsp.readFile(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new EngineError('file_not_found', `no such file: ${file}`);
    if (code === 'EISDIR') throw new EngineError('not_a_file', `${file} is a directory`);
    if (code === 'EACCES' || code === 'EPERM') throw new EngineError('permission_denied', `cannot read ${file}`);
    throw new EngineError('file_unreadable', `${file}: ${(e as Error).message}`);
  }
}

/**
 * Whether an encoded image is worth decoding in a worker thread rather than the caller's: a
 * known type (anything else fails at once, here) of more than SMALL_IMAGE_PIXELS pixels, whose
 * decoding holds the calling thread for milliseconds (a 1280x720 JPEG: sharp's call about 0.8 ms,
 * the luma about 2 ms, and the collection of its buffers), against about 0.2 ms for the hop.
 */
export function decodesBetterOffThread(bytes: Uint8Array): boolean {
  const probe = probeImage(bytes);
  if (!probe.type || !probe.width || !probe.height) return false;
  const pixels = probe.width * probe.height;
  // The addon decodes such a JPEG on a libuv thread: the caller's thread only queues it.
  if (probe.type === 'jpeg' && addonTakesJpeg(bytes, probe.width, probe.height)) return false;
  return pixels > SMALL_IMAGE_PIXELS && pixels <= MAX_PIXELS;
}

/**
 * Any wire input -> grey, once per decode. Runs in the caller's thread for decode()/decodeAll()
 * (file reads and sharp run on libuv/libvips threads, not on the event loop) and in the helper
 * thread for decodeSync().
 */
export async function loadGrey(input: WireInput): Promise<GreyImage> {
  switch (input.kind) {
    case 'path':
      return decodeEncoded(await readImageFile(input.path));
    case 'bytes':
      return decodeEncoded(input.bytes);
    case 'raw':
      if (input.channels !== 1 && input.width * input.height > RAW_IN_THREAD_PIXELS) {
        return rawToGreyOffThread(input.data, input.width, input.height, input.channels, input.bgr);
      }
      return rawToGrey(input.data, input.width, input.height, input.channels, input.bgr);
  }
}
