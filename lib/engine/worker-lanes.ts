// The machinery both engine worker pools share (pool.ts: zxing; wasm-pool.ts: the WebAssembly
// DotCode reader): a few worker threads, spawned on demand up to a size, each holding at most one
// task, the rest queued in order. Idle workers are unref'd so they never keep the process alive;
// a worker is ref'd only while it holds a task. A worker that dies fails its task and is replaced
// only when work is waiting for it. What a task's message and reply mean is the pool's business.
import { Worker } from 'worker_threads';

export interface Lane {
  readonly worker: Worker;
  task: LaneTask | null;
}

interface LaneTask {
  id: number;
  msg: object;
  transfer: ArrayBuffer[];
  /** The worker's reply (`{ id, ... }`), and the lane that gave it. */
  settle(reply: Record<string, unknown>, lane: Lane): void;
  /** The task will get no reply: its worker died, or the pool closed. */
  fail(why: string): void;
}

export class WorkerLanes {
  private lanes: Lane[] = [];
  private queue: LaneTask[] = [];
  private nextId = 1;

  constructor(private readonly file: string, readonly size: number, private readonly workerData?: unknown) {}

  /** The workers started so far. */
  get started(): readonly Lane[] {
    return this.lanes;
  }

  /** Starts workers up to `upTo` (at most the pool's size). */
  fill(upTo = this.size): void {
    while (this.lanes.length < Math.min(upTo, this.size)) this.lanes.push(this.spawn());
  }

  /**
   * Runs a task on `lane` when given and idle, else on any idle worker (one is started if the
   * pool is not full), else queues it.
   */
  submit(msg: object, transfer: ArrayBuffer[], settle: LaneTask['settle'], fail: LaneTask['fail'], lane?: Lane): void {
    const task: LaneTask = { id: this.nextId++, msg, transfer, settle, fail };
    if (!lane) {
      if (this.lanes.length < this.size && !this.lanes.some((l) => !l.task)) this.lanes.push(this.spawn());
      lane = this.lanes.find((l) => !l.task);
    }
    if (lane && !lane.task) this.dispatch(lane, task); else this.queue.push(task);
  }

  /** Fails every queued and running task with `why`, then stops the workers. */
  async close(why: string): Promise<void> {
    const lanes = this.lanes;
    this.lanes = [];
    for (const t of this.queue) t.fail(why);
    this.queue = [];
    for (const l of lanes) if (l.task) l.task.fail(why);
    await Promise.all(lanes.map((l) => l.worker.terminate()));
  }

  private spawn(): Lane {
    const worker = new Worker(this.file, this.workerData === undefined ? {} : { workerData: this.workerData });
    const lane: Lane = { worker, task: null };
    worker.on('message', (m: { id: number }) => {
      const task = lane.task;
      if (!task || task.id !== m.id) return;
      lane.task = null;
      worker.unref();
      task.settle(m as unknown as Record<string, unknown>, lane);
      this.next(lane);
    });
    const died = (why: string) => {
      const i = this.lanes.indexOf(lane);
      if (i < 0) return; // already closed or replaced
      this.lanes.splice(i, 1);
      const task = lane.task;
      lane.task = null;
      task?.fail(why);
      if (this.queue.length) {
        const fresh = this.spawn();
        this.lanes.push(fresh);
        this.next(fresh);
      }
    };
    worker.on('error', (e) => died(`worker_error:${e.message}`));
    worker.on('exit', (code) => died(`worker_exit:${code}`));
    // After the listeners: attaching a 'message' listener refs the worker's port again.
    worker.unref();
    return lane;
  }

  private dispatch(lane: Lane, task: LaneTask): void {
    lane.task = task;
    lane.worker.ref();
    lane.worker.postMessage({ id: task.id, ...task.msg }, task.transfer);
  }

  private next(lane: Lane): void {
    const task = this.queue.shift();
    if (task) this.dispatch(lane, task);
  }
}
