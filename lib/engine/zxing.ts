// QR Code, Data Matrix, PDF417, Aztec and MaxiCode through zxing-cpp (the zxing-wasm package,
// reader build). By default zxing-wasm downloads its .wasm from a CDN; we hand it the binary that
// ships inside the package instead, so reading never touches the network.
import * as fs from 'fs';
import type { ReadResult } from 'zxing-wasm/reader';
import { textFromEciProtocol } from './charset';
import { fewLevels } from './grey-levels';
import type { GreyImage } from './image';
import { zxingPasses, type ZXingPass } from './speed';
import type { Format, Point, Speed } from './types';

type ZXingReader = typeof import('zxing-wasm/reader');

export const ZXING_FORMATS = ['QRCode', 'DataMatrix', 'PDF417', 'Aztec', 'MaxiCode'] as const;
export type ZXingFormat = (typeof ZXING_FORMATS)[number];

/** The part of zxing-wasm's Emscripten module the engine calls directly (see readZXing). */
interface ZXingModule {
  _malloc(bytes: number): number;
  _free(ptr: number): void;
  HEAPU8: Uint8Array;
  readBarcodesFromPixmap(ptr: number, width: number, height: number, options: PixmapOptions): ResultVector;
}
interface ResultVector { size(): number; get(i: number): RawResult; delete(): void }
/** A result as the module hands it over, before zxing-wasm's own wrapper would convert it. */
type RawResult = Omit<ReadResult, 'contentType'> & { contentType: number };

/** zxing-wasm's options in the form its C++ side takes them (enums as indices, formats joined). */
interface PixmapOptions {
  formats: string; tryHarder: boolean; tryRotate: boolean; tryInvert: boolean; tryDownscale: boolean;
  tryDenoise: boolean; binarizer: number; isPure: boolean; downscaleFactor: number; downscaleThreshold: number;
  minLineCount: number; maxNumberOfSymbols: number; validateOptionalChecksum: boolean; returnErrors: boolean;
  eanAddOnSymbol: number; textMode: number; characterSet: number; tryCode39ExtendedMode: boolean;
}

let reader: ZXingReader | undefined;
let ready: Promise<ZXingModule> | undefined;
let zmod: ZXingModule | undefined;

/** Absolute path of the reader .wasm inside node_modules (resolved, never fetched). */
export function zxingWasmPath(): string {
  return require.resolve('zxing-wasm/reader/zxing_reader.wasm');
}

/** Loads and instantiates the wasm module once per thread. */
export function loadZXing(): Promise<unknown> {
  if (!ready) {
    reader = require('zxing-wasm/reader') as ZXingReader;
    const bin = fs.readFileSync(zxingWasmPath());
    const wasmBinary = bin.buffer.slice(bin.byteOffset, bin.byteOffset + bin.byteLength);
    ready = (reader.prepareZXingModule({
      overrides: {
        wasmBinary,
        // Belt and braces: if the module ever asks for a file anyway, point it at the package.
        locateFile: (p: string) => (p.endsWith('.wasm') ? zxingWasmPath() : p),
      },
      fireImmediately: true,
    }) as unknown as Promise<ZXingModule>).then((m) => (zmod = m));
    ready.catch(() => { ready = undefined; }); // let a later call retry a failed load
  }
  return ready;
}

/** True once this thread's module is instantiated: a read can then run without awaiting. */
export function zxingLoaded(): boolean {
  return zmod !== undefined;
}

export interface ZXingSymbol {
  format: Format;
  bytes: Buffer;
  text: string;
  symbologyId: string;
  ecis: number[];
  gs1: boolean;
  corners: Point[];
  structuredAppend: { index: number; count: number; file_id: string | null } | null;
}

/** zxing-wasm's index of the content type GS1 (its ContentType list: Text, Binary, Mixed, GS1, ...). */
const CONTENT_GS1 = 3;
const BINARIZERS = { LocalAverage: 0, GlobalHistogram: 1, FixedThreshold: 2 } as const;

/**
 * One pass's options. Settings shared by every pass were chosen against zxing-cpp's own sample
 * suite (test/engine/corpus.test.ts); speed.ts says which passes run.
 */
function options(formats: readonly ZXingFormat[], maxSymbols: number, pass: ZXingPass): PixmapOptions {
  return {
    formats: formats.join(','),
    tryHarder: pass.tryHarder,
    tryRotate: pass.tryRotate,
    tryInvert: pass.tryInvert,
    tryDownscale: pass.tryDownscale,
    tryDenoise: pass.tryDenoise,
    binarizer: BINARIZERS[pass.binarizer],
    isPure: false,
    downscaleFactor: 3,
    downscaleThreshold: 500,
    minLineCount: 2,
    maxNumberOfSymbols: maxSymbols,
    validateOptionalChecksum: false,
    returnErrors: false,
    eanAddOnSymbol: 0, // Ignore
    // Plain (0): bytes transcoded by ECI, and for QR Code segments without one, zxing-cpp's guess
    // between ISO-8859-1, Shift_JIS and UTF-8 (see toSymbol). Unknown (0) = let it guess.
    textMode: 0,
    characterSet: 0,
    tryCode39ExtendedMode: true,
  };
}

/**
 * This thread's copy of the grey plane inside the wasm heap, reused from call to call: a malloc
 * and free per read would cost little, but a buffer the size of the last frame is what a stream
 * of same-sized camera frames wants. Planes above KEEP_BYTES are freed after the read so one
 * large photo does not pin its size for good (the wasm memory itself never shrinks).
 */
let plane = { ptr: 0, bytes: 0 };
const KEEP_BYTES = 4 * 1024 * 1024;

function copyIn(m: ZXingModule, grey: GreyImage): number {
  const n = grey.width * grey.height;
  if (plane.bytes < n) {
    if (plane.ptr) m._free(plane.ptr);
    const ptr = m._malloc(n);
    if (!ptr) throw new Error(`zxing: cannot allocate ${n} bytes`);
    plane = { ptr, bytes: n };
  }
  // HEAPU8 is read after malloc: growing the memory replaces the view.
  m.HEAPU8.set(grey.data.subarray(0, n), plane.ptr);
  return plane.ptr;
}

function release(m: ZXingModule): void {
  if (plane.bytes > KEEP_BYTES) {
    m._free(plane.ptr);
    plane = { ptr: 0, bytes: 0 };
  }
}

/**
 * Reads with the module's own entry point on the grey plane: zxing-wasm's readBarcodes wants
 * RGBA ImageData, which it folds back to one luminance byte per pixel in JavaScript before the
 * same call, so the grey plane goes in as it is (that widening and folding cost about as much as
 * a read of a small image). The passes of `speed` run in order until one reads something.
 */
export function readZXingNow(grey: GreyImage, formats: readonly ZXingFormat[], maxSymbols: number, speed: Speed = 'balanced'): ZXingSymbol[] {
  const m = zmod;
  if (!m) throw new Error('zxing is not loaded in this thread (call loadZXing first)');
  const ptr = copyIn(m, grey);
  try {
    for (const pass of zxingPasses(speed, maxSymbols === 1 && twoLevels(grey))) {
      const found = collect(m.readBarcodesFromPixmap(ptr, grey.width, grey.height, options(formats, maxSymbols, pass)));
      if (found.length) return found;
    }
    return [];
  } finally {
    release(m);
  }
}

/**
 * Whether the plane holds exactly two grey levels, one at most 127 and one above (what zxing-cpp's
 * fixed-threshold binarizer separates exactly; grey-levels.ts scans for them).
 */
export function twoLevels(grey: GreyImage): boolean {
  const levels = fewLevels(grey, 2);
  return levels !== null && levels.length === 2 && (levels[0] <= 127) !== (levels[1] <= 127);
}

export async function readZXing(grey: GreyImage, formats: readonly ZXingFormat[], maxSymbols: number, speed: Speed = 'balanced'): Promise<ZXingSymbol[]> {
  await loadZXing();
  return readZXingNow(grey, formats, maxSymbols, speed);
}

/** The valid symbols of our formats; the C++ vector is freed (zxing-wasm's wrapper never does). */
function collect(v: ResultVector): ZXingSymbol[] {
  const out: ZXingSymbol[] = [];
  try {
    for (let i = 0, n = v.size(); i < n; i++) {
      const r = v.get(i);
      if (!r.isValid) continue;
      const format = r.format as Format;
      if (!(ZXING_FORMATS as readonly string[]).includes(format)) continue;
      out.push(toSymbol(r, format));
    }
  } finally {
    v.delete();
  }
  return out;
}

function toSymbol(r: RawResult, format: Format): ZXingSymbol {
  const bytes = Buffer.from(r.bytes);
  let text: string;
  let ecis: number[] = [];
  if (r.hasECI) {
    // Our own reading of the ECI protocol form: zxing-cpp's text is empty for ECIs that are not
    // character sets, and we want every byte kept (read as Latin-1 there).
    ({ text, ecis } = textFromEciProtocol(r.bytesECI));
  } else if (format === 'QRCode') {
    // QR Code without ECI: the 2000 edition of ISO/IEC 18004 made Shift_JIS the default and
    // printed codes carry UTF-8 as often as Latin-1, without saying so; zxing-cpp's guess (Kanji
    // mode stays Shift_JIS in any case) is what reaches zxing-cpp's own sample counts, whereas
    // strict Latin-1 garbles 12 of qrcode-2's Japanese and Chinese samples.
    text = r.text;
  } else {
    // Data Matrix, PDF417, Aztec, MaxiCode without ECI: ISO-8859-1, byte for byte.
    text = bytes.toString('latin1');
  }
  const p = r.position;
  const corners = [p.topLeft, p.topRight, p.bottomRight, p.bottomLeft].map((q) => ({ x: q.x, y: q.y }));
  return {
    format,
    bytes,
    text,
    symbologyId: r.symbologyIdentifier,
    ecis,
    gs1: r.contentType === CONTENT_GS1,
    corners,
    structuredAppend: r.sequenceSize > 0
      ? { index: r.sequenceIndex + 1, count: r.sequenceSize, file_id: r.sequenceId || null }
      : null,
  };
}
