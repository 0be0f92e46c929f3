// JPEGs whose grey plane the addon makes (native/addon/jpeg_grey.cpp): libjpeg-turbo decodes and
// the luma is folded in C++ on a libuv thread, byte for byte the plane sharp + lumaPlane make
// (test/engine/jpeg-grey.test.ts), for about a third of the CPU time: on a 1280x720 JPEG, sharp's
// pipeline (libvips' region machinery, its worker thread, the 2.7 MB RGB buffer) and the luma loop
// in JavaScript took about 10 ms, libjpeg-turbo and the C++ luma about 4 (bench/RESULTS.md,
// "Cloud API: JPEGs decoded by libjpeg-turbo in the addon"). Only JPEGs that sharp would merely
// decode are taken: anything it would rotate or colour-convert (an EXIF orientation, an ICC
// profile, CMYK/YCCK/Adobe files) or that libjpeg warns about goes through sharp as before.
import { addonOffering, type Addon } from './addon';
import type { GreyImage } from './image';
import { givePlane, takePlane } from './plane-pool';

/** Whether a JPEG marker starts a frame (SOF0-15 but DHT, JPG and DAC, which share the range). */
export function isStartOfFrame(m: number): boolean {
  return m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc;
}

/** EXIF orientations that make sharp's rotate() turn or mirror the image (others leave it). */
const TURNING_ORIENTATIONS = new Set([2, 3, 4, 5, 6, 7, 8]);

function ascii(b: Uint8Array, at: number, text: string): boolean {
  if (at + text.length > b.length) return false;
  for (let i = 0; i < text.length; i++) if (b[at + i] !== text.charCodeAt(i)) return false;
  return true;
}

/**
 * The orientation tag of IFD0 in an APP1 Exif payload starting at `at` (after "Exif\0\0"), 1
 * when absent, null when the TIFF structure cannot be followed (then sharp decides).
 */
function exifOrientation(b: Uint8Array, at: number, end: number): number | null {
  if (at + 8 > end) return null;
  const little = ascii(b, at, 'II');
  if (!little && !ascii(b, at, 'MM')) return null;
  const u16 = (o: number) => (little ? b[o] | (b[o + 1] << 8) : (b[o] << 8) | b[o + 1]);
  const u32 = (o: number) => (little ? (b[o] | (b[o + 1] << 8) | (b[o + 2] << 16)) + b[o + 3] * 2 ** 24 : b[o] * 2 ** 24 + ((b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3]));
  const ifd = at + u32(at + 4);
  if (ifd + 2 > end) return null;
  const count = u16(ifd);
  if (ifd + 2 + count * 12 > end) return null;
  for (let i = 0; i < count; i++) {
    const entry = ifd + 2 + i * 12;
    if (u16(entry) === 0x0112) return u16(entry + 8);
  }
  return 1;
}

/**
 * Whether sharp's pipeline would only decode this JPEG (image.ts): an 8-bit baseline, extended or
 * progressive Huffman frame, no EXIF orientation that turns it, no ICC profile, no Adobe marker.
 * Walks the markers up to the first scan; anything unexpected answers false.
 */
export function plainJpeg(b: Uint8Array): boolean {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) return false;
  let o = 2;
  let frame = false;
  let exifSeen = false;
  while (o + 4 <= b.length) {
    if (b[o] !== 0xff) return false;
    const m = b[o + 1];
    if (m === 0xff) { o++; continue; } // fill byte
    if (m === 0x01 || (m >= 0xd0 && m <= 0xd7)) { o += 2; continue; }
    if (m === 0xda) return frame; // the first scan: every marker that matters came before it
    if (m === 0xd9) return false;
    const start = o + 4;
    const end = o + 2 + ((b[o + 2] << 8) | b[o + 3]);
    if (end > b.length || end < start) return false;
    if (isStartOfFrame(m)) {
      // SOF0-2 at 8 bits only: lossless, 12-bit and arithmetic-coded frames stay with sharp
      if (m > 0xc2 || b[start] !== 8 || frame) return false;
      frame = true;
    } else if (m === 0xe1 && ascii(b, start, 'Exif\0\0')) {
      if (exifSeen) return false;
      exifSeen = true;
      const orientation = exifOrientation(b, start + 6, end);
      if (orientation === null || TURNING_ORIENTATIONS.has(orientation)) return false;
    } else if (m === 0xe2 && ascii(b, start, 'ICC_PROFILE\0')) {
      return false;
    } else if (m === 0xee && ascii(b, start, 'Adobe')) {
      return false;
    }
    o = end;
  }
  return false;
}

/** The addon when it can decode JPEGs here; null with the WebAssembly reader or without libjpeg-turbo. */
function jpegReader(): Addon | null {
  return addonOffering('jpeg', (a) => a.jpegToGrey !== undefined && a.jpegAvailable?.() === true);
}

/** Whether jpegGreyInAddon will take this JPEG (of `width` x `height` from its header). */
export function addonTakesJpeg(bytes: Uint8Array, width: number | null, height: number | null): boolean {
  return width !== null && height !== null && width > 0 && height > 0 && jpegReader() !== null && plainJpeg(bytes);
}

/**
 * The grey plane of a JPEG by the addon, or null when it does not take this one (then sharp
 * decodes it). The plane is JS memory, so it can be moved to a worker thread like sharp's.
 */
export async function jpegGreyInAddon(bytes: Uint8Array, width: number | null, height: number | null): Promise<GreyImage | null> {
  if (!addonTakesJpeg(bytes, width, height)) return null;
  const grey = takePlane(width! * height!);
  const refused = await jpegReader()!.jpegToGrey!(bytes, grey);
  if (refused === null) return { data: grey, width: width!, height: height!, owned: true };
  givePlane(grey);
  return null;
}
