// Entry point of the engine's worker threads. Two roles:
//  - pool worker (decode/decodeAll): one job at a time from parentPort, answered on parentPort:
//    the zxing step on a grey plane the caller has already made (and transferred), or the making
//    of a large image's grey plane (moved back to the caller);
//  - sync helper (decodeSync): the whole job in this thread; answers on a dedicated MessagePort,
//    then wakes the caller that is blocked in Atomics.wait on a shared Int32Array.
import { parentPort, workerData, type MessagePort } from 'worker_threads';
import { inThreadReaders, runJob, runZXingJob, warm, warmZXing, type Job, type JobAnswer, type ZXingJob } from './core';
import { decodeError, loadError } from './errors';
import { loadGrey, warmGrey, type WireInput } from './image';

interface SyncData { role: 'sync'; port: MessagePort; signal: Int32Array }
interface PoolData { role: 'pool' }

const data = workerData as SyncData | PoolData;

/** Never rejects: a caller is never left waiting and never gets an exception for a bad image. */
async function guarded(work: () => Promise<JobAnswer>): Promise<JobAnswer> {
  try {
    return await work();
  } catch (e) {
    return { error: decodeError('internal', (e as Error).message), symbols: [] };
  }
}

const done: JobAnswer = { error: null, symbols: [] };

if (data.role === 'sync') {
  const { port, signal } = data;
  parentPort!.on('message', async (msg: { seq: number; job?: Job; warm?: boolean }) => {
    const reply = msg.warm
      ? await guarded(async () => { await warm(); return done; })
      : await guarded(() => runJob(msg.job!, inThreadReaders));
    port.postMessage({ seq: msg.seq, answer: reply });
    Atomics.store(signal, 0, msg.seq);
    Atomics.notify(signal, 0);
  });
} else {
  parentPort!.on('message', async (msg: { id: number; zxing?: ZXingJob; grey?: WireInput; warm?: boolean }) => {
    if (msg.grey) {
      parentPort!.postMessage(...await greyReply(msg.id, msg.grey));
      return;
    }
    const reply = msg.warm
      ? await guarded(async () => { await warmZXing(); await warmGrey(); return done; })
      : await guarded(() => runZXingJob(msg.zxing!));
    parentPort!.postMessage({ id: msg.id, answer: reply });
  });
}

/**
 * A grey plane for the caller (pool.ts, WorkerPool.grey): moved, not copied, when it spans its
 * own buffer (sharp's buffers outside the JS heap cannot be moved; Node copies those); or the
 * decode error's code.
 */
async function greyReply(id: number, input: WireInput): Promise<[object, ArrayBuffer[]]> {
  try {
    const g = await loadGrey(input);
    const d = g.data;
    const whole = d.byteOffset === 0 && d.buffer.byteLength === d.byteLength && d.buffer instanceof ArrayBuffer;
    return [{ id, grey: { data: d, width: g.width, height: g.height } }, whole ? [d.buffer as ArrayBuffer] : []];
  } catch (e) {
    return [{ id, error: loadError(e) }, []];
  }
}
