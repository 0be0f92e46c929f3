// The one engine module (docs/ARCHITECTURE.md "Engine API"): every caller (SDK, Cloud API, Live
// Scanner, CLI, bench) decodes through these functions.
//
// Threading (DESIGN.md 3): decode()/decodeAll() never run pixel work on the caller's event loop,
// yet avoid a thread hop when DotCode reads the image:
//  1. the image becomes one grey plane in the caller's thread, with sharp (libvips works on
//     libuv threads; only small raw colour frames are folded in-thread, see image.ts);
//  2. the addon reads DotCode on the libuv pool (readImage, an N-API AsyncWorker);
//  3. only when zxing is needed (DotCode read nothing, `format` names a zxing symbology, or
//     decodeAll wants every symbol) the grey plane is moved to a small worker_threads pool, each
//     worker with its own zxing-wasm instance (zxing-wasm computes in the thread that calls it).
// With format 'DotCode' no worker is involved at all. decodeSync() blocks only its caller, through
// a helper thread that runs the whole job (see SyncBridge). core.ts holds the one implementation
// of the order and of the result building that both paths share.
import { readDotCodeAsync } from './dotcode';
import { loadAddon } from './addon';
import { decodesBetterOffThread, readImageFile, warmGrey, type GreyImage, type WireInput } from './image';
import { decodeError, loadError } from './errors';
import { defaultPoolSize, SyncBridge, WorkerPool } from './pool';
import { greyHere, runJob, runZXingJobNow, type Job, type JobAnswer, type Readers, type ZXingJob } from './core';
import { loadZXing, zxingLoaded } from './zxing';
import { loadWebP } from './webp-grey';
import { describeInput, inspectPrepared } from './inspect';
import { failedReport } from './inspect-report';
import { prepare } from './prepare';
import { dropPlanes, givePlane } from './plane-pool';
import { setOtherReaders } from './frame-reader';
import {
  DEFAULT_SPEED, FORMATS, GS1_MODES, isSpeed, SPEEDS,
  type DecodeAllResult, type DecodeOptions, type DecodeResult, type Format, type Gs1Mode, type Speed,
  type ImageInput, type InspectOptions, type InspectReport, type SymbolResult,
} from './types';

export * from './types';
export { probeImage } from './image';
export { MAX_PIXELS, MAX_IMAGE_BYTES } from './limits';
export { DECODE_ERROR_CODES, DECODE_ERROR_PREFIX, decodeErrorCode, isInternalError, type DecodeErrorCode } from './errors';
export { zxingWasmPath } from './zxing';
export { FrameReader, type FrameReaderOptions, type FrameResult, type FrameStats } from './frame-reader';

/** Longest a decodeSync call waits for its helper thread before answering decode_error:internal:timeout. */
const SYNC_TIMEOUT_MS = 60_000;

let pool: WorkerPool | null = null;
let bridge: SyncBridge | null = null;

function thePool(): WorkerPool {
  if (!pool) pool = new WorkerPool(defaultPoolSize());
  return pool;
}

function theBridge(): SyncBridge {
  if (!bridge) bridge = new SyncBridge();
  return bridge;
}

/**
 * Images up to this many pixels are read by zxing in the caller's thread (except with speed
 * `thorough`). Moving the plane to a worker and the answer back costs about 0.2-0.5 ms on this
 * 2-core machine (more under load), as much as zxing's whole read of a small image that holds a
 * symbol. The price is that a small image with nothing readable in it holds the event loop while
 * every pass runs: at most about 10 ms over the zxing samples up to this size (all five
 * symbologies, balanced; bench/RESULTS.md, "zxing in the caller's thread"); `thorough`, whose
 * extra passes can take twice that, always uses the pool, as do larger images, so one slow photo
 * never stalls other requests.
 */
const ZXING_IN_THREAD_PIXELS = 100_000;

function zxingStep(job: ZXingJob): Promise<JobAnswer> {
  if (job.speed !== 'thorough' && job.grey.width * job.grey.height <= ZXING_IN_THREAD_PIXELS) {
    if (zxingLoaded()) return Promise.resolve(runZXingJobNow(job));
    void loadZXing().catch(() => undefined); // ready for the next small image; this one goes to the pool
  }
  return thePool().run(job);
}

// The FrameReader's zxing step: the same as decode()'s, on the frame's grey plane.
setOtherReaders((grey, format, gs1, speed) => zxingStep({ grey, format, gs1, speed, all: false }));

/**
 * The grey plane: large encoded images are decoded in the pool (image.ts, decodesBetterOffThread),
 * everything else here. A file is read here first, to know which.
 */
async function greyStep(input: WireInput): Promise<GreyImage | { error: string }> {
  if (input.kind === 'raw') return greyHere(input);
  let bytes: Uint8Array;
  if (input.kind === 'path') {
    try {
      bytes = await readImageFile(input.path);
    } catch (e) {
      return { error: loadError(e) };
    }
  } else {
    bytes = input.bytes;
  }
  if (decodesBetterOffThread(bytes)) return thePool().grey({ kind: 'bytes', bytes });
  return greyHere({ kind: 'bytes', bytes });
}

/** decode()/decodeAll(): the grey plane and DotCode in this thread (asynchronously) or the pool, zxing in the pool or, for small images, here. */
const callerReaders: Readers = {
  grey: greyStep,
  dotcode: readDotCodeAsync,
  zxing: zxingStep,
  // zxingStep has copied or moved the plane, or read it, before it returns: at the job's end the
  // plane is free to be reused by the next decode here
  release: (grey) => givePlane(grey.data),
};

async function runHere(job: Job): Promise<JobAnswer> {
  try {
    return await runJob(job, callerReaders);
  } catch (e) {
    // runJob maps expected failures itself; this is the last line so a caller never gets an
    // exception for a bad image.
    return { error: decodeError('internal', (e as Error).message), symbols: [] };
  }
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}

function makeJob(input: ImageInput, options: DecodeOptions | undefined, all: boolean): { job: Job } | { error: string } {
  const format = options?.format;
  const gs1: Gs1Mode = options?.gs1 ?? 'auto';
  const speed: Speed = options?.speed ?? DEFAULT_SPEED;
  if (format !== undefined && !(FORMATS as readonly string[]).includes(format)) {
    return { error: decodeError('unknown_format_option') };
  }
  if (!(GS1_MODES as readonly string[]).includes(gs1)) return { error: decodeError('unknown_gs1_option') };
  if (!isSpeed(speed)) return { error: decodeError('unknown_speed_option') };
  const p = prepare(input);
  if ('error' in p) return p;
  return { job: { input: p.wire, format, gs1, speed, all } };
}

/** Buffers cross threads as plain Uint8Arrays: give the caller Buffers back. */
function revive(answer: JobAnswer, elapsed: number): SymbolResult[] {
  return answer.symbols.map((s) => ({
    ok: s.ok, text: s.text, format: s.format, via: s.via, elapsed_ms: elapsed, error: s.error, gs1: s.gs1,
    bytes: toBuffer(s.bytes as Uint8Array),
    symbology_id: s.symbology_id, ecis: s.ecis, corners: s.corners, structured_append: s.structured_append,
  }));
}

function toBuffer(u: Uint8Array): Buffer {
  return Buffer.isBuffer(u) ? u : Buffer.from(u.buffer, u.byteOffset, u.byteLength);
}

/** SPEC 2.1 result, members in the SPEC's order. */
function toResult(answer: JobAnswer, elapsed: number): DecodeResult {
  const s = answer.symbols[0];
  if (!s) return { ok: false, text: null, format: null, via: 'none', elapsed_ms: elapsed, error: answer.error ?? 'no_dotcode_found', gs1: null };
  return { ok: true, text: s.text, format: s.format as Format, via: s.via, elapsed_ms: elapsed, error: null, gs1: s.gs1 };
}

function failure(error: string, t0: number): DecodeResult {
  return { ok: false, text: null, format: null, via: 'none', elapsed_ms: round(performance.now() - t0), error, gs1: null };
}

/** Reads the first symbol found (DotCode first), off the caller's event loop. Never rejects for bad input. */
export async function decode(input: ImageInput, options?: DecodeOptions): Promise<DecodeResult> {
  const t0 = performance.now();
  const j = makeJob(input, options, false);
  if ('error' in j) return failure(j.error, t0);
  const answer = await runHere(j.job);
  const result = toResult(answer, round(performance.now() - t0));
  if (options?.debugDir) await writeDebug(j.job.input, describeInput(input), options.debugDir, false, options.speed);
  return result;
}

/** Every symbol in the image, from every reader allowed by `format`. */
export async function decodeAll(input: ImageInput, options?: DecodeOptions): Promise<DecodeAllResult> {
  const t0 = performance.now();
  const j = makeJob(input, options, true);
  if ('error' in j) return { ok: false, symbols: [], elapsed_ms: round(performance.now() - t0), error: j.error };
  const answer = await runHere(j.job);
  const elapsed = round(performance.now() - t0);
  const symbols = revive(answer, elapsed);
  if (options?.debugDir) await writeDebug(j.job.input, describeInput(input), options.debugDir, true, options.speed);
  return { ok: symbols.length > 0, symbols, elapsed_ms: elapsed, error: symbols.length ? null : answer.error ?? 'no_dotcode_found' };
}

/**
 * Same as decode(), blocking the calling thread until the answer is there. The work still runs
 * in a helper thread (sharp and zxing-wasm are asynchronous only); the caller waits on it with
 * Atomics.wait, which costs well under a millisecond per call (bench/engine-symbologies.ts).
 */
export function decodeSync(input: ImageInput, options?: DecodeOptions): DecodeResult {
  const t0 = performance.now();
  const j = makeJob(input, options, false);
  if ('error' in j) return failure(j.error, t0);
  const answer = theBridge().run(j.job, SYNC_TIMEOUT_MS);
  const result = toResult(answer, round(performance.now() - t0));
  // The pictures need sharp, which has no synchronous API: they are written after this returns,
  // from a copy of the pixels, since a caller may refill its frame buffer at once.
  if (options?.debugDir) void writeDebug(detached(j.job.input), describeInput(input), options.debugDir, false, options.speed);
  return result;
}

/**
 * What the DotCode detector saw on an image, stage by stage (docs/engine.md, "Why does my code
 * not read?"): the image is read exactly as decode() reads it, the reader runs once with its
 * trace on, and with `out` the pictures and report.txt/report.json are written there. Never
 * rejects for a bad image (the report's `error` says why); rejects when `out` cannot be written.
 */
export async function inspect(input: ImageInput, options: InspectOptions = {}): Promise<InspectReport> {
  if (options.format !== undefined && options.format !== 'DotCode') {
    return failedReport(decodeError('unknown_format_option'), 'inspect traces the DotCode reader only');
  }
  if (options.speed !== undefined && !isSpeed(options.speed)) {
    return failedReport(decodeError('unknown_speed_option'), `speed is one of ${SPEEDS.join(', ')}`);
  }
  const p = prepare(input);
  return inspectPrepared('error' in p ? p : p.wire, options, describeInput(input));
}

/** The same input on memory of its own. */
function detached(w: WireInput): WireInput {
  if (w.kind === 'bytes') return { ...w, bytes: w.bytes.slice() };
  if (w.kind === 'raw') return { ...w, data: w.data.slice() };
  return w;
}

/**
 * DecodeOptions.debugDir: the inspection of the image just decoded, run after the decode so its
 * result and elapsed_ms are untouched. A folder that cannot be written is a warning: debugging
 * must not turn a read into a failure.
 */
async function writeDebug(input: WireInput, source: string, dir: string, all: boolean, speed: Speed | undefined): Promise<void> {
  try {
    await inspectPrepared(input, { out: dir, all, speed }, source);
  } catch (e) {
    process.emitWarning(`could not write the DotCode inspection to ${dir}: ${(e as Error).message}`, 'DotCodeDebugWarning');
  }
}

/**
 * Gets every step ready so the first real decode does not pay for it: in this thread sharp and
 * the addon are loaded and each run once on a tiny image; the zxing workers start and load
 * zxing's wasm meanwhile. `sync: true` also warms decodeSync's helper (blocking).
 */
export async function warmUp(options: { sync?: boolean } = {}): Promise<void> {
  if (options.sync) theBridge().warm();
  // One step after the other: on a 2-core machine, workers starting (Node bootstrap, zxing's
  // wasm compile) while this thread loads sharp doubled the first DotCode decode (bench/RESULTS.md,
  // "Figures behind code comments"). DotCode first, as decode() reads it first; then one zxing
  // lane, then the others.
  await warmHere();
  await thePool().warm(1);
  await thePool().warm();
  // Last: this thread's zxing, for small images (ZXING_IN_THREAD_PIXELS), and its WebP decoder
  // (webp-grey.ts). Compiling the wasm is asynchronous, so the event loop stays free meanwhile.
  await loadZXing().catch(() => undefined);
  await loadWebP().catch(() => undefined);
}

let warmedHere: Promise<void> | null = null;

/** Once per process: this thread's sharp and addon, loaded and run once each. */
function warmHere(): Promise<void> {
  warmedHere ??= (async () => {
    // Let a constructor that called warmUp() return first: loading the two native modules holds
    // this thread for some milliseconds, and a decode issued at once would load them anyway.
    await new Promise((r) => setImmediate(r));
    const grey = await warmGrey();
    await loadAddon().readImage(grey.data, grey.width, grey.height, { maxSymbols: 1 });
  })().catch(() => { warmedHere = null; /* a real decode reports what is wrong */ });
  return warmedHere;
}

/** Stops every engine thread. Later calls start fresh ones. */
export async function close(): Promise<void> {
  const p = pool;
  const b = bridge;
  pool = null;
  bridge = null;
  dropPlanes();
  await Promise.all([p?.close(), b?.close()]);
}

/** Engine facts for docs, bench and diagnostics. */
export function engineInfo(): { workers: number; formats: readonly Format[] } {
  return { workers: defaultPoolSize(), formats: FORMATS };
}
