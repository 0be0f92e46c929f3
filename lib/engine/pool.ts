// A small pool of worker threads for the zxing step of decode()/decodeAll() (zxing-wasm computes
// synchronously in the thread that calls it) and for the decoding of large images, and the
// helper thread that gives decodeSync() a synchronous face (sharp and zxing-wasm only have
// asynchronous APIs).
// Idle workers are unref'd so they never keep the process alive; a worker is ref'd only while
// it holds a job, so a pending decode keeps the process alive until it answers.
import * as os from 'os';
import * as path from 'path';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'worker_threads';
import { WorkerLanes, type Lane } from './worker-lanes';
import type { Job, JobAnswer, ZXingJob } from './core';
import { decodeError } from './errors';
import type { GreyImage, WireInput } from './image';

const WORKER_FILE = path.join(__dirname, 'worker.js');

function crashAnswer(why: string): JobAnswer {
  return { error: decodeError('internal', why), symbols: [] };
}

/**
 * The grey plane as it should travel: moved (ArrayBuffer transfer) when the engine made it and
 * it spans its whole buffer; otherwise copied once into a buffer of its own, which is then moved
 * (posting a view would clone the whole underlying buffer, e.g. all of a caller's larger frame).
 * The caller's thread no longer needs the plane: the DotCode step is over when zxing starts.
 * Buffers sharp allocates outside the JS heap cannot be detached; Node copies those on posting.
 */
function forTransfer(job: ZXingJob): { job: ZXingJob; transfer: ArrayBuffer[] } {
  const d = job.grey.data;
  const whole = d.byteOffset === 0 && d.buffer.byteLength === d.byteLength && d.buffer instanceof ArrayBuffer;
  const data = job.grey.owned && whole ? d : new Uint8Array(d);
  return { job: { ...job, grey: { data, width: job.grey.width, height: job.grey.height } }, transfer: [data.buffer as ArrayBuffer] };
}

/** The zxing step's workers (worker.js). */
export class WorkerPool {
  private readonly lanes: WorkerLanes;
  private warmed = new WeakSet<Lane>();

  constructor(readonly size: number) {
    this.lanes = new WorkerLanes(WORKER_FILE, size, { role: 'pool' });
  }

  /** Runs the zxing step in a worker; the job's grey plane is moved there (see forTransfer). */
  run(zxing: ZXingJob): Promise<JobAnswer> {
    const { job, transfer } = forTransfer(zxing);
    this.lanes.fill();
    return new Promise((resolve) => {
      this.lanes.submit({ zxing: job }, transfer, (m) => resolve(m.answer as JobAnswer), (why) => resolve(crashAnswer(why)));
    });
  }

  /**
   * The grey plane of an encoded image, made in a worker (sharp's call and the luma loop then
   * hold that thread instead of the caller's) and moved back. Resolves to the plane or to the
   * `decode_error:...` code the caller's thread would have given; never rejects.
   */
  grey(input: WireInput): Promise<GreyImage | { error: string }> {
    this.lanes.fill();
    return new Promise((resolve) => {
      this.lanes.submit({ grey: input }, [], (m) => {
        const g = m.grey as GreyImage | undefined;
        resolve(g ? { data: g.data, width: g.width, height: g.height, owned: true } : { error: m.error as string });
      }, (why) => resolve({ error: decodeError('internal', why) }));
    });
  }

  /**
   * Starts workers (up to `lanes`, default all) and waits until each has zxing loaded and run
   * once. Workers already warm answer at once.
   */
  async warm(lanes = this.size): Promise<void> {
    this.lanes.fill(lanes);
    await Promise.all(this.lanes.started.filter((lane) => !this.warmed.has(lane)).map((lane) => new Promise<void>((resolve) => {
      this.lanes.submit({ warm: true }, [], (m, by) => {
        if (!(m.answer as JobAnswer).error) this.warmed.add(by);
        resolve();
      }, () => resolve(), lane);
    })));
  }

  async close(): Promise<void> {
    await this.lanes.close('engine_closed');
  }
}

/**
 * decodeSync's helper thread. The caller posts the job, then blocks in Atomics.wait until the
 * helper has written its answer to a MessagePort and bumped the shared counter; the answer is
 * then taken off the port with receiveMessageOnPort, with no event-loop turn in between.
 */
export class SyncBridge {
  private worker: Worker | null = null;
  private port: MessagePort | null = null;
  private signal: Int32Array | null = null;
  private seq = 0;

  private start(): void {
    const { port1, port2 } = new MessageChannel();
    this.signal = new Int32Array(new SharedArrayBuffer(4));
    this.port = port1;
    this.worker = new Worker(WORKER_FILE, { workerData: { role: 'sync', port: port2, signal: this.signal }, transferList: [port2] });
    this.worker.on('error', () => { /* reported to the waiting call as a timeout/crash answer */ });
    this.worker.on('exit', () => { this.worker = null; });
    // Never keeps the process alive: the caller blocks on it only during a decodeSync call.
    this.worker.unref();
    port1.unref();
  }

  run(job: Job, timeoutMs: number): JobAnswer {
    return this.call({ job }, timeoutMs);
  }

  warm(timeoutMs = 30_000): JobAnswer {
    return this.call({ warm: true }, timeoutMs);
  }

  private call(msg: { job?: Job; warm?: boolean }, timeoutMs: number): JobAnswer {
    if (!this.worker) this.start();
    const seq = ++this.seq;
    this.worker!.postMessage({ seq, ...msg });
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const seen = Atomics.load(this.signal!, 0);
      if (seen >= seq) break;
      const left = deadline - Date.now();
      if (left <= 0) {
        // A stuck helper would hold every later decodeSync hostage: replace it.
        this.restart();
        return crashAnswer('timeout');
      }
      Atomics.wait(this.signal!, 0, seen, Math.min(left, 1000));
      if (!this.worker) return crashAnswer('worker_exit'); // cannot see 'exit' while blocked; checked on wake
    }
    for (;;) {
      const got = receiveMessageOnPort(this.port!);
      if (!got) return crashAnswer('lost_answer');
      const m = got.message as { seq: number; answer: JobAnswer };
      if (m.seq === seq) return m.answer;
      // an answer to an earlier call that timed out: drop it
    }
  }

  private restart(): void {
    const w = this.worker;
    this.worker = null;
    this.port?.close();
    if (w) void w.terminate();
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    this.port?.close();
    this.port = null;
    if (w) await w.terminate();
  }
}

export function defaultPoolSize(): number {
  const env = Number(process.env.DOTCODE_ENGINE_WORKERS);
  if (Number.isInteger(env) && env > 0) return Math.min(env, 16);
  const cores = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  return Math.max(1, Math.min(4, cores));
}
