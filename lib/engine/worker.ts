// Entry point of the engine's worker threads. Two roles:
//  - pool worker (decode/decodeAll): the zxing step only, one job at a time from parentPort,
//    on a grey plane the caller has already made (and transferred); answers on parentPort;
//  - sync helper (decodeSync): the whole job in this thread; answers on a dedicated MessagePort,
//    then wakes the caller that is blocked in Atomics.wait on a shared Int32Array.
import { parentPort, workerData, type MessagePort } from 'worker_threads';
import { inThreadReaders, runJob, runZXingJob, warm, warmZXing, type Job, type JobAnswer, type ZXingJob } from './core';
import { decodeError } from './errors';

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
  parentPort!.on('message', async (msg: { id: number; zxing?: ZXingJob; warm?: boolean }) => {
    const reply = msg.warm
      ? await guarded(async () => { await warmZXing(); return done; })
      : await guarded(() => runZXingJob(msg.zxing!));
    parentPort!.postMessage({ id: msg.id, answer: reply });
  });
}
