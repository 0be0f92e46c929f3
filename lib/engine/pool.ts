// A small pool of worker threads for the zxing step of decode()/decodeAll() (zxing-wasm computes
// synchronously in the thread that calls it), and the helper thread that gives decodeSync() a
// synchronous face (sharp and zxing-wasm only have asynchronous APIs).
// Idle workers are unref'd so they never keep the process alive; a worker is ref'd only while
// it holds a job, so a pending decode keeps the process alive until it answers.
import * as os from 'os';
import * as path from 'path';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'worker_threads';
import type { Job, JobAnswer, ZXingJob } from './core';
import { decodeError } from './errors';

const WORKER_FILE = path.join(__dirname, 'worker.js');

function crashAnswer(why: string): JobAnswer {
  return { error: decodeError('internal', why), symbols: [] };
}

interface Task { id: number; msg: { zxing?: ZXingJob; warm?: boolean }; transfer: ArrayBuffer[]; resolve: (a: JobAnswer) => void }

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

interface Slot { worker: Worker; task: Task | null }

export class WorkerPool {
  private slots: Slot[] = [];
  private queue: Task[] = [];
  private nextId = 1;
  private warmed = new WeakSet<Slot>();

  constructor(readonly size: number) {}

  /** Runs the zxing step in a worker; the job's grey plane is moved there (see forTransfer). */
  run(zxing: ZXingJob): Promise<JobAnswer> {
    const { job, transfer } = forTransfer(zxing);
    return this.submit({ zxing: job }, transfer);
  }

  /**
   * Starts workers (up to `lanes`, default all) and waits until each has zxing loaded and run
   * once. Workers already warm answer at once.
   */
  async warm(lanes = this.size): Promise<void> {
    this.fill(lanes);
    await Promise.all(this.slots.filter((slot) => !this.warmed.has(slot)).map((slot) => new Promise<JobAnswer>((resolve) => {
      const task: Task = { id: this.nextId++, msg: { warm: true }, transfer: [], resolve };
      if (slot.task) this.queue.push(task); else this.dispatch(slot, task);
    })));
  }

  private submit(msg: Task['msg'], transfer: ArrayBuffer[]): Promise<JobAnswer> {
    return new Promise((resolve) => {
      this.fill();
      const task: Task = { id: this.nextId++, msg, transfer, resolve };
      const idle = this.slots.find((s) => !s.task);
      if (idle) this.dispatch(idle, task); else this.queue.push(task);
    });
  }

  private fill(upTo = this.size): void {
    while (this.slots.length < Math.min(upTo, this.size)) this.slots.push(this.spawn());
  }

  private spawn(): Slot {
    const worker = new Worker(WORKER_FILE, { workerData: { role: 'pool' } });
    const slot: Slot = { worker, task: null };
    worker.on('message', (m: { id: number; answer: JobAnswer }) => {
      const task = slot.task;
      if (!task || task.id !== m.id) return;
      slot.task = null;
      worker.unref();
      if (task.msg.warm && !m.answer.error) this.warmed.add(slot);
      task.resolve(m.answer);
      this.next(slot);
    });
    const fail = (why: string) => {
      const i = this.slots.indexOf(slot);
      if (i < 0) return; // already closed or replaced
      this.slots.splice(i, 1);
      if (slot.task) slot.task.resolve(crashAnswer(why));
      slot.task = null;
      // Replace the lost worker only if there is work waiting for it.
      if (this.queue.length) {
        const fresh = this.spawn();
        this.slots.push(fresh);
        this.next(fresh);
      }
    };
    worker.on('error', (e) => fail(`worker_error:${e.message}`));
    worker.on('exit', (code) => fail(`worker_exit:${code}`));
    // After the listeners: attaching a 'message' listener refs the worker's port again.
    worker.unref();
    return slot;
  }

  private dispatch(slot: Slot, task: Task): void {
    slot.task = task;
    slot.worker.ref();
    slot.worker.postMessage({ id: task.id, ...task.msg }, task.transfer);
  }

  private next(slot: Slot): void {
    const task = this.queue.shift();
    if (task) this.dispatch(slot, task);
  }

  async close(): Promise<void> {
    const slots = this.slots;
    this.slots = [];
    for (const t of this.queue) t.resolve(crashAnswer('engine_closed'));
    this.queue = [];
    for (const s of slots) if (s.task) s.task.resolve(crashAnswer('engine_closed'));
    await Promise.all(slots.map((s) => s.worker.terminate()));
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
