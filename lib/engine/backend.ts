// Where the engine chooses its DotCode reader: the native N-API addon (a local build or a
// prebuilt binary from prebuilds/, found by node-gyp-build) or the WebAssembly build of the same
// C++ reader (dist/lib/wasm, tools/build-wasm.js). Both answer the same calls with the same
// results (test/engine/wasm-parity.ts, run within test/readrate/readrate.test.ts); the addon is faster, the module runs anywhere.
//
// DOTCODE_ENGINE: unset or `auto` = the addon, or the WebAssembly reader wherever no addon loads
// (another OS or CPU, a missing or broken binary), said once in a log line; `wasm` = always the
// WebAssembly reader; `native` = the addon or an error (no silent fallback: for checking that a
// machine really runs the native reader, e.g. the arm64 CI step).
import { isMainThread, workerData } from 'worker_threads';
import type { Addon } from './addon';
import { wasmReader } from './wasm-node';
import { WasmReadPool } from './wasm-pool';

export type EngineKind = 'native' | 'wasm';

let chosen: EngineKind | undefined;

/** Which reader loadAddon() gave this thread (undefined before the first load). */
export function engineKind(): EngineKind | undefined {
  return chosen;
}

function requested(): 'auto' | EngineKind {
  const v = (process.env.DOTCODE_ENGINE ?? '').trim().toLowerCase();
  if (v === '' || v === 'auto') return 'auto';
  if (v === 'native' || v === 'wasm') return v;
  throw new Error(`DOTCODE_ENGINE must be auto, native or wasm (got ${JSON.stringify(process.env.DOTCODE_ENGINE)})`);
}

let pool: WasmReadPool | undefined;

/** The WebAssembly reader behind the addon's interface; readImage runs in its thread pool. */
export function wasmAddon(): Addon {
  const reader = wasmReader(); // throws now, with the reason, if the module is missing
  return {
    readImageSync: (...a: unknown[]) => reader.readImageSync(...a),
    readImage: (...a: unknown[]) => (pool ??= new WasmReadPool()).read(...a),
    inspectImageSync: (...a: unknown[]) => reader.inspectImageSync(...a),
    decodeGrid: (...a: unknown[]) => reader.decodeGrid(...a),
    createFrameFusion: (maxFrames: number) => reader.createFrameFusion(maxFrames),
    pushFrame: (f: unknown, ...a: unknown[]) => reader.pushFrame(f, ...a),
    resetFrameFusion: (f: unknown) => reader.resetFrameFusion(f),
  } as unknown as Addon;
}

/** The engine's own worker threads stay quiet: the thread that started them has said it. */
function mayLog(): boolean {
  const role = (workerData as { role?: string } | null)?.role;
  return isMainThread || (role !== 'pool' && role !== 'sync');
}

/** Loads the DotCode reader for this thread, as DOTCODE_ENGINE asks (see the top of this file). */
export function loadReader(packageRoot: string): Addon {
  const want = requested();
  if (want === 'wasm') {
    const addon = wasmAddon();
    chosen = 'wasm';
    return addon;
  }
  try {
    const addon = (require('node-gyp-build') as (dir: string) => Addon)(packageRoot);
    chosen = 'native';
    return addon;
  } catch (e) {
    if (want === 'native') throw e;
    const why = ((e as Error).message ?? String(e)).split('\n')[0];
    const addon = wasmAddon();
    chosen = 'wasm';
    if (mayLog()) {
      console.warn(`dotcode-sdk: no native DotCode addon for ${process.platform}-${process.arch} (${why}); using the WebAssembly reader (same results, slower)`);
    }
    return addon;
  }
}
