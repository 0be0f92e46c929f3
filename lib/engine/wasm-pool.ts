// The asynchronous half of the WebAssembly reader: the addon's readImage runs on the libuv pool,
// but WebAssembly computes in the thread that calls it, so the wasm reader's readImage hands the
// plane to a small pool of worker threads (wasm-worker.ts), each with its own instance. The
// caller's event loop never runs detector work (DESIGN.md 3).
// The workers are WorkerLanes (worker-lanes.ts). A worker that dies answers its job with the error
// a native exception would give.
import * as path from 'path';
import { defaultPoolSize } from './pool';
import { WorkerLanes } from './worker-lanes';
import { checkImageArgs, type ImageArgs } from './wasm-module';
import type { WireRead } from './wasm-wire';

const WORKER_FILE = path.join(__dirname, 'wasm-worker.js');

/** Buffers arrive as plain Uint8Arrays from a worker: give callers Buffers, as the addon does. */
function revive(reads: WireRead[]): WireRead[] {
  for (const r of reads) r.bytes = Buffer.from(r.bytes.buffer, r.bytes.byteOffset, r.bytes.byteLength);
  return reads;
}

export class WasmReadPool {
  private readonly lanes: WorkerLanes;

  constructor(size = defaultPoolSize()) {
    this.lanes = new WorkerLanes(WORKER_FILE, size);
  }

  /**
   * readImage(grey, width, height, options): arguments are checked here, in the caller's thread,
   * and bad ones throw at once with the addon's messages (as the addon's readImage does); the
   * plane is then copied (the caller keeps its buffer, as with the addon) and the copy moved to
   * a worker.
   */
  read(...callArgs: unknown[]): Promise<WireRead[]> {
    const checked = checkImageArgs(callArgs);
    // A copy of exactly the plane, owned by the job: posting the caller's view would clone its
    // whole underlying buffer, and transferring it would take the caller's memory away.
    const args: ImageArgs = { ...checked, grey: checked.grey.slice() };
    return new Promise((resolve, reject) => {
      this.lanes.submit({ args }, [args.grey.buffer as ArrayBuffer], (m) => {
        const error = m.error as { name: string; message: string } | undefined;
        if (error) {
          const E = error.name === 'TypeError' ? TypeError : error.name === 'RangeError' ? RangeError : Error;
          reject(new E(error.message));
        } else {
          resolve(revive(m.reads as WireRead[]));
        }
      }, (why) => reject(new Error(why === 'engine_closed' ? 'decode_error:internal:engine_closed' : `decode_error:native:${why}`)));
    });
  }

  async close(): Promise<void> {
    await this.lanes.close('engine_closed');
  }
}
