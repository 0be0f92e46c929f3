// QR Code, Data Matrix, PDF417, Aztec and MaxiCode through zxing-cpp (the zxing-wasm package,
// reader build). By default zxing-wasm downloads its .wasm from a CDN; we hand it the binary that
// ships inside the package instead, so reading never touches the network.
import * as fs from 'fs';
import type { ReaderOptions, ReadResult } from 'zxing-wasm/reader';
import { textFromEciProtocol } from './charset';
import type { GreyImage } from './image';
import type { Format, Point } from './types';

type ZXingReader = typeof import('zxing-wasm/reader');

export const ZXING_FORMATS = ['QRCode', 'DataMatrix', 'PDF417', 'Aztec', 'MaxiCode'] as const;
export type ZXingFormat = (typeof ZXING_FORMATS)[number];

let reader: ZXingReader | undefined;
let ready: Promise<unknown> | undefined;

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
    ready = reader.prepareZXingModule({
      overrides: {
        wasmBinary,
        // Belt and braces: if the module ever asks for a file anyway, point it at the package.
        locateFile: (p: string) => (p.endsWith('.wasm') ? zxingWasmPath() : p),
      },
      fireImmediately: true,
    });
    ready.catch(() => { ready = undefined; }); // let a later call retry a failed load
  }
  return ready;
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

/**
 * Settings chosen against zxing-cpp's own sample suite (test/engine/corpus.test.ts): the thorough
 * mode with rotations, inverted symbols and downscaling, as zxing-cpp's test runner uses.
 */
function options(formats: readonly ZXingFormat[], maxSymbols: number): ReaderOptions {
  return {
    formats: [...formats],
    tryHarder: true,
    tryRotate: true,
    tryInvert: true,
    tryDownscale: true,
    maxNumberOfSymbols: maxSymbols,
    // Plain: bytes transcoded by ECI, and for QR Code segments without one, zxing-cpp's guess
    // between ISO-8859-1, Shift_JIS and UTF-8 (see toSymbol). Unknown = let it guess.
    textMode: 'Plain',
    characterSet: 'Unknown',
  };
}

/**
 * zxing-wasm takes ImageData (RGBA) and itself folds it back to one luminance byte per pixel
 * before calling zxing-cpp, so the grey buffer is widened to RGBA once here (R=G=B=grey, A=255).
 * Timed in bench/engine-symbologies.ts ("rgba" column).
 */
export function greyToRgba(grey: GreyImage): Uint8ClampedArray {
  const n = grey.width * grey.height;
  const rgba = new Uint8ClampedArray(n * 4);
  const out32 = new Uint32Array(rgba.buffer);
  const src = grey.data;
  for (let i = 0; i < n; i++) {
    const g = src[i];
    out32[i] = 0xff000000 | (g << 16) | (g << 8) | g; // little-endian: bytes R,G,B,A
  }
  return rgba;
}

export async function readZXing(grey: GreyImage, formats: readonly ZXingFormat[], maxSymbols: number): Promise<ZXingSymbol[]> {
  await loadZXing();
  const imageData = { data: greyToRgba(grey), width: grey.width, height: grey.height, colorSpace: 'srgb' };
  const results = await reader!.readBarcodes(imageData as unknown as Parameters<ZXingReader['readBarcodes']>[0], options(formats, maxSymbols));
  const out: ZXingSymbol[] = [];
  for (const r of results) {
    if (!r.isValid) continue;
    const format = r.format as Format;
    if (!(ZXING_FORMATS as readonly string[]).includes(format)) continue;
    out.push(toSymbol(r, format));
  }
  return out;
}

function toSymbol(r: ReadResult, format: Format): ZXingSymbol {
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
    gs1: r.contentType === 'GS1',
    corners,
    structuredAppend: r.sequenceSize > 0
      ? { index: r.sequenceIndex + 1, count: r.sequenceSize, file_id: r.sequenceId || null }
      : null,
  };
}
