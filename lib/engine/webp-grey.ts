// Small WebPs straight to the grey plane in the calling thread, not through sharp: libvips takes
// about 40 ns a pixel for the lossy WebPs of the zxing samples (2-3 ms for a 240x240 one: its
// loader's own set-up and locking, not libwebp's work). First choice is the system's libwebp,
// opened by the addon at run time (native/addon/webp_grey.cpp): about 5 ns a pixel. Where there
// is no addon (the WebAssembly reader) or no libwebp, libwebp compiled to WebAssembly (the
// @jsquash/webp package's decoder): about 20 ns, and 4 ns for lossless ones (bench/RESULTS.md,
// "zxing formats against native zxing-cpp"). All three are libwebp, whose lossy decoding is exact
// by its specification, and they hand back the same RGBA bytes (every WebP of the sample corpora,
// test/engine/webp-grey.test.ts); the grey is then made as image.ts's sharp pipeline makes it
// (luma.ts, and luma_row.cpp in the addon). Only the plain cases are taken: a lossy or lossless
// image, or an extended one whose only extras are alpha or XMP. A colour profile, EXIF
// (orientation) or an animation, and anything these decoders refuse, go to sharp, which reports
// errors as before.
import * as fs from 'fs';
import { addonOffering, type Addon } from './addon';
import { rgbaToGrey } from './luma';
import { givePlane, takePlane } from './plane-pool';

/** Above this many pixels sharp is used: the decode would hold the calling thread too long. */
export const WEBP_IN_THREAD_PIXELS = 262_144;

/** The part of the decoder's Emscripten module used here. */
interface WebPModule {
  decode(data: Uint8Array): { data: Uint8ClampedArray; width: number; height: number } | null;
}

type Factory = (overrides: object) => Promise<WebPModule>;

let ready: Promise<WebPModule> | undefined;
let decoder: WebPModule | undefined;

/** Absolute path of the decoder's .wasm inside node_modules. */
export function webpWasmPath(): string {
  return require.resolve('@jsquash/webp/codec/dec/webp_dec.wasm');
}

/** Instantiates the decoder once per thread, from the .wasm in node_modules (never fetched). */
export function loadWebP(): Promise<unknown> {
  if (!ready) {
    ready = (async () => {
      const factory = (require('@jsquash/webp/codec/dec/webp_dec.js') as { default: Factory }).default;
      const bin = fs.readFileSync(webpWasmPath());
      const m = await factory({
        noInitialRun: true,
        wasmBinary: bin.buffer.slice(bin.byteOffset, bin.byteOffset + bin.byteLength),
        locateFile: (p: string) => (p.endsWith('.wasm') ? webpWasmPath() : p),
      });
      decoder = m;
      return m;
    })();
    ready.catch(() => { ready = undefined; }); // a later call may retry; meanwhile sharp decodes
  }
  return ready;
}

/** VP8X flags (byte 20) this decoder cannot honour as libvips does: ICC profile, EXIF, animation. */
const VP8X_HANDS_OFF = 0x20 | 0x08 | 0x02;

/** Whether the container is one this decoder takes, from its header alone. */
export function plainWebP(b: Uint8Array): boolean {
  if (b.length < 30) return false;
  const fourcc = String.fromCharCode(b[12], b[13], b[14], b[15]);
  if (fourcc === 'VP8 ' || fourcc === 'VP8L') return true;
  return fourcc === 'VP8X' && (b[20] & VP8X_HANDS_OFF) === 0;
}

/** The addon when it can decode WebPs here; null with the WebAssembly reader or without libwebp. */
function nativeReader(): Addon | null {
  return addonOffering('webp', (a) => a.webpToGreySync !== undefined && a.webpAvailable?.() === true);
}

type Grey = { data: Uint8Array; width: number; height: number };

/**
 * The grey plane of a plain WebP of `width` x `height` (from its header) and at most
 * WEBP_IN_THREAD_PIXELS pixels, or null for sharp to take it: by the addon's libwebp where it
 * has one, else by the WebAssembly decoder. Never throws.
 */
export async function webpToGrey(bytes: Uint8Array, width: number | null, height: number | null): Promise<Grey | null> {
  if (width === null || height === null || !(width > 0 && height > 0)) return null;
  if (width * height > WEBP_IN_THREAD_PIXELS || !plainWebP(bytes)) return null;
  return nativeReader() ? webpViaAddon(bytes, width, height) : webpViaWasm(bytes, width, height);
}

/** webpToGrey by the addon's libwebp (null also where it has none). */
export function webpViaAddon(bytes: Uint8Array, width: number, height: number): Grey | null {
  const addon = nativeReader();
  if (!addon) return null;
  const grey = takePlane(width * height);
  // (a refusal, a damaged file or another size than the header's, is one for sharp too)
  if (addon.webpToGreySync!(bytes, grey) === null) return { data: grey, width, height };
  givePlane(grey);
  return null;
}

/** webpToGrey by libwebp in WebAssembly. */
export async function webpViaWasm(bytes: Uint8Array, width: number, height: number): Promise<Grey | null> {
  try {
    await loadWebP();
  } catch {
    return null;
  }
  const m = decoder;
  if (!m) return null;
  let img: { data: Uint8ClampedArray; width: number; height: number } | null;
  try {
    img = m.decode(bytes);
  } catch {
    // An abort leaves an Emscripten module unusable: start a fresh one next time.
    decoder = undefined;
    ready = undefined;
    return null;
  }
  if (!img || img.width !== width || img.height !== height || img.data.length !== width * height * 4) return null;
  const rgba = new Uint8Array(img.data.buffer, img.data.byteOffset, img.data.byteLength);
  return { data: rgbaToGrey(rgba, width * height), width, height };
}
