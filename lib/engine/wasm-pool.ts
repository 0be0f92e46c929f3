// The asynchronous half of the WebAssembly reader: the addon's readImage runs on the libuv pool,
// but WebAssembly computes in the thread that calls it, so the wasm reader's readImage hands the
// plane to a small pool of worker threads (wasm-worker.ts), each with its own instance. The
// caller's event loop never runs detector work (DESIGN.md 3).
// Idle workers are unref'd so they never keep the process alive; a busy one is ref'd until it
// answers. A worker that dies answers its job with the error a native exception would give and
// is replaced on the next job.
import * as path from 'path';
import { Worker } from 'worker_threads';
import { defaultPoolSize } from './pool';
import { checkImageArgs, type ImageArgs } from './wasm-module';
import type { WireRead } from './wasm-wire';

const WORKER_FILE = path.join(__dirname, 'wasm-worker.js');

interface Job {
  id: number;
  args: ImageArgs;
  resolve(reads: WireRead[]): void;
  reject(e: Error): void;
}

interface Lane { worker: Worker; job: Job | null }

/** Buffers arrive as plain Uint8Arrays from a worker: give callers Buffers, as the addon does. */
function revive(reads: WireRead[]): WireRead[] {
  for (const r of reads) r.bytes = Buffer.from(r.bytes.buffer, r.bytes.byteOffset, r.bytes.byteLength);
  return reads;
}

export class WasmReadPool {
  private lanes: Lane[] = [];
  private queue: Job[] = [];
  private nextId = 1;

  constructor(private readonly size = defaultPoolSize()) {}

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
    const args = { ...checked, grey: checked.grey.slice() };
    return new Promise((resolve, reject) => {
      const job: Job = { id: this.nextId++, args, resolve, reject };
      if (this.lanes.length < this.size) this.lanes.push(this.spawn());
      const idle = this.lanes.find((l) => !l.job);
      if (idle) this.dispatch(idle, job); else this.queue.push(job);
    });
  }

  private spawn(): Lane {
    const worker = new Worker(WORKER_FILE);
    const lane: Lane = { worker, job: null };
    worker.on('message', (m: { id: number; reads?: WireRead[]; error?: { name: string; message: string } }) => {
      const job = lane.job;
      if (!job || job.id !== m.id) return;
      lane.job = null;
      worker.unref();
      if (m.error) {
        const E = m.error.name === 'TypeError' ? TypeError : m.error.name === 'RangeError' ? RangeError : Error;
        job.reject(new E(m.error.message));
      } else {
        job.resolve(revive(m.reads!));
      }
      const next = this.queue.shift();
      if (next) this.dispatch(lane, next);
    });
    const fail = (why: string) => {
      const i = this.lanes.indexOf(lane);
      if (i < 0) return;
      this.lanes.splice(i, 1);
      lane.job?.reject(new Error(`decode_error:native:${why}`));
      lane.job = null;
      const next = this.queue.shift();
      if (next) {
        const fresh = this.spawn();
        this.lanes.push(fresh);
        this.dispatch(fresh, next);
      }
    };
    worker.on('error', (e) => fail(`worker_error:${e.message}`));
    worker.on('exit', (code) => fail(`worker_exit:${code}`));
    worker.unref();
    return lane;
  }

  private dispatch(lane: Lane, job: Job): void {
    lane.job = job;
    lane.worker.ref();
    lane.worker.postMessage({ id: job.id, args: job.args }, [job.args.grey.buffer as ArrayBuffer]);
  }

  async close(): Promise<void> {
    const lanes = this.lanes;
    this.lanes = [];
    for (const j of this.queue) j.reject(new Error('decode_error:internal:engine_closed'));
    this.queue = [];
    await Promise.all(lanes.map((l) => l.worker.terminate()));
  }
}
