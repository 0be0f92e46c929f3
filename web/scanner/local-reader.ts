// On-device decoding for the Live Scanner: the WebAssembly build of our DotCode reader (the same
// module the SDK falls back to, lib/engine/wasm-module.ts) and zxing-wasm for the five other
// symbologies, both fetched from this server (/scanner/wasm/..., never a CDN) and run in the page,
// so camera frames never leave the phone. The answer has the shape of the socket's result
// message, so the page treats both paths alike. Where WebAssembly is missing or a module does not
// load, load() rejects and the page keeps sending frames over the socket.
//
// DotCode frames go through the module's video fusion (the same as the SDK's FrameReader): a
// symbol that no single frame shows whole (glare sliding over it) is read from several frames.
// The reads run on the page's thread: a 1280-pixel frame takes tens of milliseconds, one frame
// at a time, a few per second (the page's frame pacing), which leaves the page responsive.
import { prepareZXingModule, readBarcodes, type ReaderOptions } from 'zxing-wasm/reader';
import { WasmDotCodeReader, type WasmFrameFusion } from '../../lib/engine/wasm-module';
import { parseGs1 } from '../../lib/gs1';

export const DOTCODE_WASM_URL = '/scanner/wasm/dotcode_reader.wasm';
export const ZXING_WASM_URL = '/scanner/wasm/zxing_reader.wasm';

export interface LocalResult {
  type: 'result'; ok: boolean; text: string | null; format: string | null; via: string;
  elapsed_ms: number; error: string | null; gs1: ReturnType<typeof parseGs1> | null;
  /** 1: this frame alone read it; more: DotCode read from that many frames fused (docs/engine.md, "Video"). */
  frames_used?: number;
}

const ZXING_OPTIONS: ReaderOptions = {
  formats: ['QRCode', 'DataMatrix', 'PDF417', 'Aztec', 'MaxiCode'],
  tryHarder: true, tryRotate: true, tryInvert: true, tryDownscale: true,
  maxNumberOfSymbols: 1, textMode: 'Plain', characterSet: 'Unknown',
};

let dotcode: WasmDotCodeReader | null = null;
/** The camera stream's video fusion: DotCode tracked over frames, read from them together. */
let fusion: WasmFrameFusion | null = null;
let loading: Promise<void> | null = null;
let zxing: Promise<unknown> | null = null;

/**
 * Fetches and compiles the modules once; rejects where WebAssembly is unavailable or a module
 * does not load. Resolves as soon as the DotCode reader (170 KiB) is ready, so the first frame
 * is read without waiting for zxing (about 1 MiB), which keeps loading meanwhile and is awaited
 * only when a frame holds no DotCode.
 */
export function load(): Promise<void> {
  loading ??= (async () => {
    if (typeof WebAssembly !== 'object' || typeof WebAssembly.compile !== 'function') throw new Error('no WebAssembly');
    zxing = prepareZXingModule({
      overrides: { locateFile: (p: string) => (p.endsWith('.wasm') ? ZXING_WASM_URL : p) },
      fireImmediately: true,
    });
    zxing.catch(() => undefined);
    const res = await fetch(DOTCODE_WASM_URL, { credentials: 'same-origin' });
    if (!res.ok) throw new Error(`${DOTCODE_WASM_URL}: ${res.status}`);
    const module = await WebAssembly.compile(await res.arrayBuffer());
    const reader = new WasmDotCodeReader(module);
    reader.readImageSync(new Uint8Array(64 * 64).fill(255), 64, 64); // instantiate now, not on the first frame
    dotcode = reader;
  })();
  loading.catch(() => { loading = null; });
  return loading;
}

export function ready(): boolean {
  return dotcode !== null;
}

/** ITU-R BT.601 luma, the weights libvips uses for the server's greyscale. */
function grey(img: ImageData): Uint8Array {
  const n = img.width * img.height;
  const out = new Uint8Array(n);
  const d = img.data;
  for (let i = 0, j = 0; i < n; i++, j += 4) out[i] = (d[j] * 299 + d[j + 1] * 587 + d[j + 2] * 114 + 500) / 1000;
  return out;
}

/** ECI -> TextDecoder label for the character sets phones meet; other ECIs read as Latin-1. */
const ECI_LABELS: Record<number, string> = { 4: 'iso-8859-2', 7: 'iso-8859-5', 20: 'shift_jis', 25: 'utf-16be', 26: 'utf-8', 28: 'big5', 29: 'gbk', 30: 'euc-kr' };

function latin1(b: Uint8Array): string {
  let s = '';
  for (let i = 0; i < b.length; i++) s += String.fromCharCode(b[i]);
  return s;
}

/** A DotCode payload as text, segment by segment by its ECIs (the SDK's charset.ts, in small). */
function dotcodeText(bytes: Uint8Array, segments: { offset: number; eci: number }[]): string {
  const cuts = [{ offset: 0, eci: 3 }, ...segments];
  let text = '';
  for (let i = 0; i < cuts.length; i++) {
    const part = bytes.subarray(cuts[i].offset, i + 1 < cuts.length ? cuts[i + 1].offset : bytes.length);
    const label = ECI_LABELS[cuts[i].eci];
    try {
      text += label ? new TextDecoder(label).decode(part) : latin1(part);
    } catch {
      text += latin1(part);
    }
  }
  return text;
}

function gs1For(text: string, symbolIsGs1: boolean, symbologyId: string): LocalResult['gs1'] {
  try {
    return parseGs1(text, { mode: 'auto', symbolIsGs1, symbologyId });
  } catch {
    return null; // a GS1 parsing problem must not lose the read
  }
}

/** DotCode first, then the zxing symbologies, as the engine's decode() orders them. */
export async function decodeFrame(img: ImageData): Promise<LocalResult> {
  const t0 = performance.now();
  const done = (r: Omit<LocalResult, 'type' | 'elapsed_ms'>): LocalResult => ({ type: 'result', ...r, elapsed_ms: Math.round((performance.now() - t0) * 100) / 100 });
  if (!dotcode) return done({ ok: false, text: null, format: null, via: 'none', error: 'decode_error:internal:not_loaded', gs1: null });
  try {
    fusion ??= dotcode.createFrameFusion(12);
    const push = await dotcode.pushFrame(fusion, grey(img), img.width, img.height, { maxSymbols: 1 });
    if (push.reads.length) {
      const r = push.reads[0];
      const text = dotcodeText(r.bytes, r.eciSegments);
      return done({ ok: true, text, format: 'DotCode', via: r.via, error: null, gs1: gs1For(text, r.gs1, r.symbologyId), frames_used: r.framesUsed });
    }
  } catch {
    // a failed DotCode read leaves the other readers their chance, as in the engine
  }
  await zxing; // a zxing module that failed to load rejects here: the page then uses the socket
  const z = (await readBarcodes(img, ZXING_OPTIONS)).find((r) => r.isValid);
  if (z) return done({ ok: true, text: z.text, format: z.format, via: 'zxing', error: null, gs1: gs1For(z.text, z.contentType === 'GS1', z.symbologyIdentifier) });
  return done({ ok: false, text: null, format: null, via: 'none', error: 'no_dotcode_found', gs1: null });
}
