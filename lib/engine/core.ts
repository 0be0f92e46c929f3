// The decode itself: wire input -> grey (once) -> DotCode reader -> zxing readers -> results
// (decode() without a format interleaves the two: readFirst).
// One implementation of the order and of the result building, whatever thread each step runs
// in: decode()/decodeAll() run it in the caller's thread with asynchronous readers (sharp and
// the addon's AsyncWorker on libuv threads, zxing in a pool worker that gets the grey plane);
// decodeSync()'s helper thread runs it whole with in-thread readers.
import { blankSymbols } from './blank-symbols';
import { readDotCode, type DotCodeOptions, type DotCodeSymbol } from './dotcode';
import { loadAddon } from './addon';
import { uniformPlane } from './grey-levels';
import { loadGrey, type GreyImage, type WireInput } from './image';
import { loadError, nativeError } from './errors';
import { dotcodeOptions } from './speed';
import { readZXing, readZXingNow, ZXING_FORMATS, loadZXing, type ZXingFormat, type ZXingSymbol } from './zxing';
import type { Format, Gs1Mode, Gs1Result, Speed, SymbolResult } from './types';
import { parseGs1 } from '../gs1';

export interface Job {
  input: WireInput;
  format?: Format;
  gs1: Gs1Mode;
  speed: Speed;
  /** decodeAll: every symbol of every reader; otherwise stop at the first reader that reads. */
  all: boolean;
}

/** The zxing step alone: what a pool worker receives (the grey plane, transferred). */
export interface ZXingJob {
  grey: GreyImage;
  /** One zxing symbology, or all five when absent. */
  format?: ZXingFormat;
  gs1: Gs1Mode;
  speed: Speed;
  all: boolean;
}

export type SymbolAnswer = Omit<SymbolResult, 'elapsed_ms'>;

/** Everything but elapsed_ms, which the caller's side measures around the whole call. */
export interface JobAnswer {
  error: string | null;
  symbols: SymbolAnswer[];
}

/** How the grey plane is made and the two reading steps carried out; runJob fixes their order and the answer. */
export interface Readers {
  /** The input's grey plane, or the `decode_error:...` code of why there is none. */
  grey(input: WireInput): Promise<GreyImage | { error: string }>;
  dotcode(grey: GreyImage, maxSymbols: number, options: DotCodeOptions): Promise<DotCodeSymbol[]>;
  zxing(job: ZXingJob): Promise<JobAnswer>;
  /** Takes back the plane the grey step made once both readers are done with it (plane-pool.ts). */
  release?(grey: GreyImage): void;
}

function gs1For(text: string, mode: Gs1Mode, symbolIsGs1: boolean, symbologyId: string): Gs1Result | null {
  if (mode === 'off') return null;
  try {
    return parseGs1(text, { mode, symbolIsGs1, symbologyId });
  } catch {
    return null; // a GS1 parsing bug must not lose the read itself
  }
}

export function fromDotCode(s: DotCodeSymbol, gs1: Gs1Mode): SymbolAnswer {
  return {
    ok: true, text: s.text, format: 'DotCode', via: s.via, error: null,
    gs1: gs1For(s.text, gs1, s.gs1, s.symbologyId),
    bytes: s.bytes, symbology_id: s.symbologyId, ecis: s.ecis, corners: s.corners,
    structured_append: s.structuredAppend,
  };
}

export function fromZXing(s: ZXingSymbol, gs1: Gs1Mode): SymbolAnswer {
  return {
    ok: true, text: s.text, format: s.format, via: 'zxing', error: null,
    gs1: gs1For(s.text, gs1, s.gs1, s.symbologyId),
    bytes: s.bytes, symbology_id: s.symbologyId, ecis: s.ecis, corners: s.corners,
    structured_append: s.structuredAppend,
  };
}

/** Warms a thread for zxing: instantiates the wasm module and runs one read on a blank plane. */
export async function warmZXing(): Promise<void> {
  await loadZXing();
  await readZXing({ data: new Uint8Array(64 * 64).fill(255), width: 64, height: 64 }, ZXING_FORMATS, 1);
}

/** Warms decodeSync's helper: zxing and the addon. */
export async function warm(): Promise<void> {
  await warmZXing();
  loadAddon();
}

/** The zxing step (in a pool worker, or in the helper thread). */
export async function runZXingJob(job: ZXingJob): Promise<JobAnswer> {
  await loadZXing();
  return runZXingJobNow(job);
}

/** The same, in this thread, without awaiting: zxing must be loaded here (zxingLoaded()). */
export function runZXingJobNow(job: ZXingJob): JobAnswer {
  const formats: readonly ZXingFormat[] = job.format ? [job.format] : ZXING_FORMATS;
  const symbols: SymbolAnswer[] = [];
  for (const s of readZXingNow(job.grey, formats, job.all ? 255 : 1, job.speed)) {
    symbols.push(fromZXing(s, job.gs1));
    if (!job.all) break;
  }
  return { error: null, symbols };
}

/** Both readers in the current thread, blocking it (decodeSync's helper thread). */
export const inThreadReaders: Readers = {
  grey: greyHere,
  dotcode: async (grey, maxSymbols, options) => readDotCode(grey, maxSymbols, options),
  zxing: runZXingJob,
};

/** The grey plane made in this thread. */
export async function greyHere(input: WireInput): Promise<GreyImage | { error: string }> {
  try {
    return await loadGrey(input);
  } catch (e) {
    return { error: loadError(e) };
  }
}

export async function runJob(job: Job, readers: Readers): Promise<JobAnswer> {
  const made = await readers.grey(job.input);
  if ('error' in made) return { error: made.error, symbols: [] };
  try {
    return await readGrey(job, made, readers);
  } finally {
    // every reader has answered: no one holds the plane now (one moved to a worker is detached)
    if (made.owned) readers.release?.(made);
  }
}

async function readGrey(job: Job, grey: GreyImage, readers: Readers): Promise<JobAnswer> {
  // A plane of one grey level holds no symbol: neither reader is asked (a 6000x6000 PNG header
  // over no data read 0.8-1.3 s of CPU in the two readers after its 0.5 s decode).
  if (uniformPlane(grey)) return { error: 'no_dotcode_found', symbols: [] };
  if (!job.format && !job.all) return job.speed === 'video' ? readBoth(job, grey, readers) : readFirst(job, grey, readers);
  const symbols: SymbolAnswer[] = [];

  if (!job.format || job.format === 'DotCode') {
    const d = await readDotCodeOf(job, grey, readers, job.all ? 64 : 1);
    if ('error' in d) return { error: d.error, symbols: [] };
    symbols.push(...d.symbols);
    if (symbols.length && !job.all) return { error: null, symbols };
  }

  if (job.format !== 'DotCode') {
    const z = await readers.zxing({ grey, format: job.format as ZXingFormat | undefined, gs1: job.gs1, speed: job.speed, all: job.all });
    // A failed zxing step (a crashed worker) loses no DotCode symbol already read.
    if (z.error && !symbols.length) return { error: z.error, symbols: [] };
    symbols.push(...z.symbols);
  }
  return { error: symbols.length ? null : 'no_dotcode_found', symbols };
}

/** The plane for a zxing step while the addon still reads it: owned: false makes the pool copy it instead of moving it away. */
function sharedPlane(grey: GreyImage): GreyImage {
  return { data: grey.data, width: grey.width, height: grey.height, owned: false };
}

/**
 * The DotCode detector on the plane, at the job's speed (or only its fast pass). Native failures
 * are "not read by this reader" so the other readers still get their chance, except when the
 * caller asked for DotCode alone, who gets the error.
 */
async function readDotCodeOf(job: Job, grey: GreyImage, readers: Readers, maxSymbols: number, fastOnly = false): Promise<{ symbols: SymbolAnswer[] } | { error: string }> {
  const options = dotcodeOptions(job.speed, false, grey.width * grey.height);
  try {
    const read = await readers.dotcode(grey, maxSymbols, fastOnly ? { ...options, tryHarder: false } : options);
    return { symbols: read.map((s) => fromDotCode(s, job.gs1)) };
  } catch (e) {
    return job.format === 'DotCode' ? { error: nativeError(e) } : { symbols: [] };
  }
}

/**
 * decode() of a still without a format: one symbol, DotCode's before any other. The detector's
 * harder passes take a still image's budget on any lattice of modules, and the other symbologies'
 * modules are lattices: an Aztec, Data Matrix, MaxiCode or PDF417 sample waited 100-600 ms for
 * them before zxing read it in a few. So DotCode's fast pass goes first (most DotCode images read
 * there, at no cost to them), then zxing's plain pass (a few ms; it reads nothing on the real
 * DotCode photos), and only then the detector's harder passes: over the image as given, or, when
 * zxing read a symbol, over a copy with that symbol painted out (blank-symbols.ts), where they
 * still find a DotCode printed beside it, which is then the answer. The rest of zxing's ladder
 * comes last, as before. (bench/RESULTS.md, "Engine per symbology".)
 */
async function readFirst(job: Job, grey: GreyImage, readers: Readers): Promise<JobAnswer> {
  // (without a format readDotCodeOf never answers an error: only its symbols matter here)
  const dotcode = async (plane: GreyImage, fastOnly = false) => {
    const d = await readDotCodeOf(job, plane, readers, 1, fastOnly);
    return 'symbols' in d ? d.symbols : [];
  };
  const quick = await dotcode(grey, true);
  if (quick.length) return { error: null, symbols: quick };

  // ('video' is the plain pass alone; zxing gets a copy, the plane is read again below)
  const plain = await readers.zxing({ grey: sharedPlane(grey), gs1: job.gs1, speed: 'video', all: false });
  if (plain.symbols.length) {
    const rest = blankSymbols(grey, plain.symbols);
    const beside = uniformPlane(rest) ? [] : await dotcode(rest);
    return { error: null, symbols: beside.length ? beside : plain.symbols.slice(0, 1) };
  }

  const hard = await dotcode(grey);
  if (hard.length) return { error: null, symbols: hard };
  const z = await readers.zxing({ grey, gs1: job.gs1, speed: job.speed, all: false });
  if (z.error) return { error: z.error, symbols: [] };
  return { error: z.symbols.length ? null : 'no_dotcode_found', symbols: z.symbols.slice(0, 1) };
}

/**
 * speed 'video' without a format: both readers at once, so a frame costs the slower of the two
 * rather than their sum (bench/video-frame.ts); DotCode's answer still wins when it has one. The
 * addon reads the plane while zxing does, so zxing gets a copy (owned: false makes the pool copy
 * the plane instead of moving it away from under the addon). DotCode starts first: in the
 * caller's thread a small image's zxing step runs at once, synchronously.
 */
async function readBoth(job: Job, grey: GreyImage, readers: Readers): Promise<JobAnswer> {
  const dotcode = readers.dotcode(grey, 1, dotcodeOptions(job.speed)).then((r) => r, () => [] as DotCodeSymbol[]);
  const zxing = readers.zxing({ grey: sharedPlane(grey), gs1: job.gs1, speed: job.speed, all: false });
  const d = await dotcode;
  if (d.length) return { error: null, symbols: [fromDotCode(d[0], job.gs1)] }; // zxing's answer, when it comes, is dropped
  const z = await zxing;
  if (z.error) return { error: z.error, symbols: [] };
  return { error: z.symbols.length ? null : 'no_dotcode_found', symbols: z.symbols.slice(0, 1) };
}
