// The WebAssembly DotCode reader behind the addon's own interface: readImageSync,
// inspectImageSync and decodeGrid take the same arguments, refuse bad ones with the same
// TypeError/RangeError messages (native/addon/addon.cpp parseImageArgs and DecodeGrid) and answer
// the same objects. Platform-neutral: no Node.js module is used here, so the Live Scanner page
// bundles this file as it is; wasm-node.ts adds loading from the package and the thread pool.
//
// The module (tools/build-wasm.js) is a standalone .wasm; its only imports are a clock (the
// detector's time budget), proc_exit (abort) and a memory-growth notice, all provided here.
// A trap (an abort: out of memory, a bug) throws `decode_error:native:<why>`, like a native
// exception, and the instance is thrown away: the next call starts a fresh one, since a trapped
// instance's heap may be half-updated. The process never goes down with it.
import { WireReader, type MakeBytes, type WireRead, type WireSymbol, type WireTrace } from './wasm-wire';

/**
 * The few members of the WebAssembly JS API used here, declared for this file alone: the SDK's
 * TypeScript lib (ES2022) has none, and the package's .d.ts files must not need the DOM lib.
 */
export type WasmModule = object;
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => WasmModule;
  Instance: new (module: WasmModule, imports: object) => { exports: object };
};

/** Compiles the module synchronously (Node; a browser compiles asynchronously and passes the result). */
export function compileWasm(bytes: Uint8Array): WasmModule {
  return new WebAssembly.Module(bytes);
}

interface Exports {
  memory: { readonly buffer: ArrayBuffer };
  _initialize(): void;
  dc_alloc(n: number): number;
  dc_free(p: number): void;
  dc_out_ptr(): number;
  dc_out_len(): number;
  dc_read_image(grey: number, w: number, h: number, tryHarder: number, maxSymbols: number, budgetMs: number): void;
  dc_inspect_image(grey: number, w: number, h: number, tryHarder: number, maxSymbols: number, budgetMs: number): void;
  dc_decode_grid(values: number, rows: number, cols: number, hasMargin: number, margin: number): void;
  dc_fusion_new(maxFrames: number): number;
  dc_fusion_free(fusion: number): void;
  dc_fusion_reset(fusion: number): void;
  dc_fusion_push(fusion: number, grey: number, w: number, h: number, tryHarder: number, maxSymbols: number, budgetMs: number): void;
}

/** A video fusion inside one instance (a trapped instance is replaced: its fusions with it). */
export interface WasmFrameFusion { ptr: number; instance: object; maxFrames: number }

/** pushFrame's answer, as the addon's (native/addon/addon.cpp framePushToJs). */
export interface WireFramePush {
  reads: Array<WireRead & { framesUsed: number; track: number }>;
  seen: Uint8Array[];
  detectMs: number;
  fuseMs: number;
}

/** The addon's default options (native/detector/dotcode_reader.h ReadOptions). */
const DEFAULT_MAX_SYMBOLS = 8;
const DEFAULT_BUDGET_MS = 250;
const MAX_SIDE = 1 << 20;

class Aborted extends Error {}

/** The clock the detector's deadline uses: monotonic where asked (steady_clock), in nanoseconds. */
function nowNs(clockId: number): bigint {
  const ms = clockId === 0 ? Date.now() : performance.now();
  return BigInt(Math.round(ms * 1e6));
}

export interface ReadOptionsArg { tryHarder?: unknown; thorough?: unknown; maxSymbols?: unknown; timeBudgetMs?: unknown }

/** napi_get_value_int32: non-finite -> 0, otherwise the low 32 bits. */
function int32(v: number): number {
  return v | 0;
}

function isTypedArray(x: unknown): x is ArrayBufferView {
  return ArrayBuffer.isView(x) && !(x instanceof DataView);
}

/** A checked image call: the plane exactly w*h bytes, options resolved to the core's values. */
export interface ImageArgs { grey: Uint8Array; width: number; height: number; tryHarder: number; maxSymbols: number; budget: number }

/**
 * The addon's parseImageArgs: same checks, same messages, in the same order. Throws
 * synchronously, as the addon's readImage does before it queues any work.
 */
export function checkImageArgs(args: unknown[]): ImageArgs {
  const [grey, w, h, options] = args;
  if (args.length < 3 || !isTypedArray(grey) || typeof w !== 'number' || typeof h !== 'number') {
    throw new TypeError('expected (grey: Uint8Array, width: number, height: number[, options])');
  }
  if (!(grey instanceof Uint8Array || grey instanceof Uint8ClampedArray)) throw new TypeError('grey must be a Uint8Array');
  if (!(w >= 1 && w <= MAX_SIDE && w === Math.floor(w)) || !(h >= 1 && h <= MAX_SIDE && h === Math.floor(h))) {
    throw new RangeError('width and height must be whole numbers from 1 to 1048576');
  }
  if (w * h > grey.byteLength) throw new RangeError('grey is smaller than width*height');
  let tryHarder = -1;
  let maxSymbols = DEFAULT_MAX_SYMBOLS;
  let budget = DEFAULT_BUDGET_MS;
  if (options !== null && typeof options === 'object') {
    const o = options as ReadOptionsArg;
    if (typeof o.tryHarder === 'boolean') tryHarder = o.tryHarder ? 1 : 0;
    // 2: every pass with the thorough allowances (wasm_api.cpp readOptions); the fast passes alone stay so
    if (o.thorough === true && tryHarder !== 0) tryHarder = 2;
    if (typeof o.maxSymbols === 'number') maxSymbols = int32(o.maxSymbols);
    if (typeof o.timeBudgetMs === 'number') {
      // Bounded so the detector's deadline arithmetic cannot overflow: at most ten minutes.
      budget = o.timeBudgetMs >= 0 ? Math.min(o.timeBudgetMs, 600000) : 0;
    }
  }
  const plane = new Uint8Array(grey.buffer, grey.byteOffset, w * h);
  return { grey: plane, width: w, height: h, tryHarder, maxSymbols, budget };
}

export class WasmDotCodeReader {
  private exports: Exports | null = null;
  /** Frees a collected fusion handle's tracks in the instance that holds them. */
  private fusions: FinalizationRegistry<{ ptr: number; instance: object }> | null = null;
  private readonly fusionRelease = new WeakMap<WasmFrameFusion, { ptr: number; instance: object }>();

  /** `bytes` makes the payload objects (Node: Buffer, like the addon; browser: Uint8Array). */
  constructor(private readonly module: WasmModule, private readonly makeBytes: MakeBytes = (b) => b) {}

  private instance(): Exports {
    if (this.exports) return this.exports;
    let memory: Exports['memory'] | null = null;
    const imports = {
      wasi_snapshot_preview1: {
        clock_time_get: (clockId: number, _precision: bigint, out: number): number => {
          new DataView(memory!.buffer).setBigUint64(out, nowNs(clockId), true);
          return 0;
        },
        proc_exit: (code: number): never => { throw new Aborted(`abort:${code}`); },
      },
      env: { emscripten_notify_memory_growth: (): void => { /* views are made afresh per call */ } },
    };
    const inst = new WebAssembly.Instance(this.module, imports);
    const ex = inst.exports as unknown as Exports;
    memory = ex.memory;
    ex._initialize(); // static constructors (a reactor module has no main)
    this.exports = ex;
    return ex;
  }

  /**
   * Runs `fn` against the instance; any trap discards the instance and becomes the error the
   * addon reports for a native exception.
   */
  private call<T>(fn: (ex: Exports) => T): T {
    const ex = this.instance();
    try {
      return fn(ex);
    } catch (e) {
      this.exports = null;
      const why = e instanceof Error ? e.message : String(e);
      throw new Error(`decode_error:native:${why}`);
    }
  }

  private answer(ex: Exports): WireReader {
    const ptr = ex.dc_out_ptr();
    const len = ex.dc_out_len();
    return new WireReader(new Uint8Array(ex.memory.buffer, ptr, len).slice(), this.makeBytes);
  }

  /** Copies the plane into the module's memory, runs `read`, frees the plane whatever happens. */
  private withPlane<T>(a: ImageArgs, read: (ex: Exports, ptr: number) => T): T {
    return this.call((ex) => {
      const ptr = ex.dc_alloc(a.grey.byteLength);
      if (!ptr) throw new Error('out of memory');
      try {
        new Uint8Array(ex.memory.buffer, ptr, a.grey.byteLength).set(a.grey);
        return read(ex, ptr);
      } finally {
        // After a trap the instance is dropped anyway; freeing into it could trap again.
        try { ex.dc_free(ptr); } catch { /* discarded below */ }
      }
    });
  }

  readImageSync(...args: unknown[]): WireRead[] {
    return this.readPlane(checkImageArgs(args));
  }

  /** readImageSync on arguments already checked (the pool checks them in the caller's thread). */
  readPlane(a: ImageArgs): WireRead[] {
    return this.withPlane(a, (ex, ptr) => {
      ex.dc_read_image(ptr, a.width, a.height, a.tryHarder, a.maxSymbols, a.budget);
      return this.answer(ex).reads();
    });
  }

  inspectImageSync(...args: unknown[]): WireTrace & { results: WireRead[] } {
    const a = checkImageArgs(args);
    return this.withPlane(a, (ex, ptr) => {
      ex.dc_inspect_image(ptr, a.width, a.height, a.tryHarder, a.maxSymbols, a.budget);
      const r = this.answer(ex);
      const results = r.reads();
      return { ...r.trace(), results };
    });
  }

  /**
   * The addon's createFrameFusion: the tracks live in this instance's memory, freed when the
   * handle is collected (as the addon's External is).
   */
  createFrameFusion(maxFrames?: unknown): WasmFrameFusion {
    const n = typeof maxFrames === 'number' ? int32(maxFrames) : 12;
    const handle = this.call((ex) => ({ ptr: ex.dc_fusion_new(n), instance: ex, maxFrames: n }));
    this.fusions ??= new FinalizationRegistry(({ ptr, instance }: { ptr: number; instance: object }) => {
      if (instance === this.exports) {
        try { this.exports.dc_fusion_free(ptr); } catch { /* the next call replaces a trapped instance */ }
      }
    });
    const release = { ptr: handle.ptr, instance: handle.instance };
    this.fusions.register(handle, release);
    this.fusionRelease.set(handle, release);
    return handle;
  }

  /**
   * The addon's pushFrame, computed in the calling thread (the fusion's state lives in this
   * instance, so it cannot move to the read pool's workers). After a trap the instance is new and
   * the fusion starts over (its tracks are lost, no read is).
   */
  pushFrame(fusion: unknown, ...args: unknown[]): Promise<WireFramePush> {
    const f = fusion as WasmFrameFusion | null;
    if (!f || typeof f !== 'object' || typeof f.ptr !== 'number') throw new TypeError('expected a frame fusion handle');
    const a = checkImageArgs(args);
    try {
      return Promise.resolve(this.withPlane(a, (ex, ptr) => {
        if (f.instance !== ex) {
          f.ptr = ex.dc_fusion_new(f.maxFrames);
          f.instance = ex;
          const release = this.fusionRelease.get(f);
          if (release) Object.assign(release, { ptr: f.ptr, instance: ex });
        }
        ex.dc_fusion_push(f.ptr, ptr, a.width, a.height, a.tryHarder, a.maxSymbols, a.budget);
        const r = this.answer(ex);
        const reads = r.reads();
        const framesUsed = r.i32s();
        const tracks = r.i32s();
        const seen: Uint8Array[] = [];
        for (let n = r.u32(); n > 0; n--) seen.push(r.blob());
        const detectMs = r.f32();
        const fuseMs = r.f32();
        return { reads: reads.map((x, i) => ({ ...x, framesUsed: framesUsed[i], track: tracks[i] })), seen, detectMs, fuseMs };
      }));
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** The addon's resetFrameFusion. */
  resetFrameFusion(fusion: unknown): void {
    const f = fusion as WasmFrameFusion | null;
    if (!f || typeof f !== 'object' || typeof f.ptr !== 'number') throw new TypeError('expected a frame fusion handle');
    if (f.instance === this.exports) this.call((ex) => ex.dc_fusion_reset(f.ptr));
  }

  /** The addon's DecodeGrid: same coercions, same errors, null when nothing decodes. */
  decodeGrid(...args: unknown[]): WireSymbol | null {
    const [input, opts] = args;
    if (args.length < 1 || input === null || (typeof input !== 'object' && typeof input !== 'function')) {
      throw new TypeError('decodeGrid expects { rows, cols, values }');
    }
    const g = input as { rows?: unknown; cols?: unknown; values?: unknown };
    const rows = int32(Number(g.rows));
    const cols = int32(Number(g.cols));
    if (rows <= 0 || cols <= 0 || rows > 1000 || cols > 1000) return null;
    const values = g.values;
    if (values === null || (typeof values !== 'object' && typeof values !== 'function')) {
      throw new TypeError('decodeGrid: values must be an array of numbers');
    }
    const arr = values as { length?: unknown; [i: number]: unknown };
    const n = rows * cols;
    if (Number(arr.length) >>> 0 !== n) throw new RangeError('decodeGrid: values.length must equal rows*cols');
    const v = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      let x = Number(arr[i]);
      if (!(x >= 0)) x = 0; // NaN and negatives count as "no dot"
      if (x > 1) x = 1;
      v[i] = x;
    }
    let hasMargin = 0;
    let margin = 0;
    if (args.length > 1 && opts !== null && typeof opts === 'object') {
      const m = (opts as { erasureMargin?: unknown }).erasureMargin;
      if (typeof m === 'number') { hasMargin = 1; margin = m; }
    }
    return this.call((ex) => {
      const ptr = ex.dc_alloc(n * 4);
      if (!ptr) throw new Error('out of memory');
      try {
        new Float32Array(ex.memory.buffer, ptr, n).set(v);
        ex.dc_decode_grid(ptr, rows, cols, hasMargin, margin);
        const r = this.answer(ex);
        return r.bool() ? r.symbol() : null;
      } finally {
        try { ex.dc_free(ptr); } catch { /* discarded below */ }
      }
    });
  }
}
