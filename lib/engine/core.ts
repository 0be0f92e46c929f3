// The decode itself: wire input -> grey (once) -> DotCode reader -> zxing readers -> results.
// Runs inside the engine's worker threads (pool for decode/decodeAll, helper for decodeSync);
// never on the caller's event loop.
import { readDotCode } from './dotcode';
import { EngineError, loadGrey, type WireInput } from './image';
import { readZXing, ZXING_FORMATS, loadZXing, type ZXingFormat } from './zxing';
import type { Format, Gs1Mode, Gs1Result, SymbolResult } from './types';

export interface Job {
  input: WireInput;
  format?: Format;
  gs1: Gs1Mode;
  /** decodeAll: every symbol of every reader; otherwise stop at the first reader that reads. */
  all: boolean;
}

/** Everything but elapsed_ms, which the caller's side measures around the whole call. */
export interface JobAnswer {
  error: string | null;
  symbols: Omit<SymbolResult, 'elapsed_ms'>[];
}

type ParseGs1 = (text: string, options: { mode: Gs1Mode; symbolIsGs1?: boolean; symbologyId?: string }) => Gs1Result | null;
let parseGs1: ParseGs1 | null | undefined;

/**
 * lib/gs1 is a separate module (docs/ARCHITECTURE.md). It is looked up at run time so the engine
 * keeps working (with gs1 null) in a build where that module is missing.
 */
function gs1Parser(): ParseGs1 | null {
  if (parseGs1 === undefined) {
    try {
      const mod = require('../gs1') as { parseGs1?: ParseGs1 };
      parseGs1 = typeof mod.parseGs1 === 'function' ? mod.parseGs1 : null;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw e;
      parseGs1 = null;
    }
  }
  return parseGs1;
}

function gs1For(text: string, mode: Gs1Mode, symbolIsGs1: boolean, symbologyId: string): Gs1Result | null {
  if (mode === 'off') return null;
  const parse = gs1Parser();
  if (!parse) return null;
  try {
    return parse(text, { mode, symbolIsGs1, symbologyId });
  } catch {
    return null; // a GS1 parsing bug must not lose the read itself
  }
}

/** Warms a thread: instantiates zxing's wasm and loads the addon. */
export async function warm(): Promise<void> {
  await loadZXing();
  require('./dotcode').loadAddon();
}

export async function runJob(job: Job): Promise<JobAnswer> {
  let grey;
  try {
    grey = await loadGrey(job.input);
  } catch (e) {
    if (e instanceof EngineError) return { error: `decode_error:${e.detail}`, symbols: [] };
    return { error: `decode_error:unreadable_image`, symbols: [] };
  }
  const symbols: JobAnswer['symbols'] = [];
  const maxSymbols = job.all ? 64 : 1;

  if (!job.format || job.format === 'DotCode') {
    try {
      for (const s of readDotCode(grey, maxSymbols)) {
        symbols.push({
          ok: true, text: s.text, format: 'DotCode', via: s.via, error: null,
          gs1: gs1For(s.text, job.gs1, s.gs1, s.symbologyId),
          bytes: s.bytes, symbology_id: s.symbologyId, ecis: s.ecis, corners: s.corners,
          structured_append: s.structuredAppend,
        });
      }
    } catch (e) {
      // The addon reports native failures as errors rather than crashing; treat them as "not
      // read by this reader" so the other readers still get their chance.
      if (job.format === 'DotCode') return { error: `decode_error:native:${(e as Error).message}`, symbols: [] };
    }
    if (symbols.length && !job.all) return { error: null, symbols };
  }

  if (job.format !== 'DotCode') {
    const formats: readonly ZXingFormat[] = job.format ? [job.format as ZXingFormat] : ZXING_FORMATS;
    for (const s of await readZXing(grey, formats, job.all ? 255 : 1)) {
      symbols.push({
        ok: true, text: s.text, format: s.format, via: 'zxing', error: null,
        gs1: gs1For(s.text, job.gs1, s.gs1, s.symbologyId),
        bytes: s.bytes, symbology_id: s.symbologyId, ecis: s.ecis, corners: s.corners,
        structured_append: s.structuredAppend,
      });
      if (!job.all) break;
    }
  }
  return { error: symbols.length ? null : 'no_dotcode_found', symbols };
}
