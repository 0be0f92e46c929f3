// DotCode through the C++ addon (native/detector via native/addon, loaded by ./addon): native
// reads -> symbols with their text.
import { textFromEciList, textFromEciSegments } from './charset';
import { loadAddon, type NativeRead } from './addon';
import type { GreyImage } from './image';
import type { Point } from './types';

export interface DotCodeSymbol {
  bytes: Buffer;
  text: string;
  symbologyId: string;
  ecis: number[];
  gs1: boolean;
  via: string;
  corners: Point[];
  structuredAppend: { index: number; count: number; file_id: number | null } | null;
}

/** Native read -> symbol: payload text by the symbol's ECIs (one mapping for every entry point). */
export function toSymbol(r: NativeRead): DotCodeSymbol {
  return {
    bytes: r.bytes,
    text: r.eciSegments ? textFromEciSegments(r.bytes, r.eciSegments) : textFromEciList(r.bytes, r.ecis),
    symbologyId: r.symbologyId,
    ecis: r.ecis,
    gs1: r.gs1,
    via: r.via,
    corners: r.corners,
    structuredAppend: r.structuredAppend
      ? { index: r.structuredAppend.index, count: r.structuredAppend.count, file_id: r.structuredAppend.fileId }
      : null,
  };
}

/** Detector options the engine sets per call (speed.ts); the addon's defaults otherwise. */
export interface DotCodeOptions {
  tryHarder?: boolean;
  /** Wider per-image allowances of the harder passes (speed 'thorough'; native ReadOptions::thorough). */
  thorough?: boolean;
  /** The detector's bound on its work per image, in ms (the addon's default 250; speed.ts sets it per speed; tests of reads lift it). */
  timeBudgetMs?: number;
}

/**
 * Runs the native reader synchronously. Only decodeSync's helper thread calls this, where
 * blocking blocks no event loop that matters.
 */
export function readDotCode(grey: GreyImage, maxSymbols: number, options: DotCodeOptions = {}): DotCodeSymbol[] {
  return loadAddon().readImageSync(grey.data, grey.width, grey.height, { ...options, maxSymbols }).map(toSymbol);
}

/**
 * Runs the native reader on the libuv thread pool (the addon's AsyncWorker), so the caller's
 * event loop stays free. The addon holds a reference to `grey.data` until it answers: the plane
 * must not be transferred or changed before the promise settles. Bad arguments reject.
 */
export async function readDotCodeAsync(grey: GreyImage, maxSymbols: number, options: DotCodeOptions = {}): Promise<DotCodeSymbol[]> {
  const reads = await loadAddon().readImage(grey.data, grey.width, grey.height, { ...options, maxSymbols });
  return reads.map(toSymbol);
}
