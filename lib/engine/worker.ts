// Entry point of the engine's worker threads. Two roles:
//  - pool worker (decode/decodeAll): one job at a time from parentPort, answers on parentPort;
//  - sync helper (decodeSync): answers on a dedicated MessagePort, then wakes the caller that is
//    blocked in Atomics.wait on a shared Int32Array.
import { parentPort, workerData, type MessagePort } from 'worker_threads';
import { runJob, warm, type Job, type JobAnswer } from './core';

interface SyncData { role: 'sync'; port: MessagePort; signal: Int32Array }
interface PoolData { role: 'pool' }

const data = workerData as SyncData | PoolData;

async function answer(job: Job): Promise<JobAnswer> {
  try {
    return await runJob(job);
  } catch (e) {
    // runJob maps expected failures itself; this is the last line so a caller is never left
    // waiting and never gets an exception for a bad image.
    return { error: `decode_error:internal:${(e as Error).message}`, symbols: [] };
  }
}

if (data.role === 'sync') {
  const { port, signal } = data;
  parentPort!.on('message', async (msg: { seq: number; job?: Job; warm?: boolean }) => {
    let reply: JobAnswer;
    if (msg.warm) {
      try { await warm(); reply = { error: null, symbols: [] }; } catch (e) { reply = { error: `decode_error:internal:${(e as Error).message}`, symbols: [] }; }
    } else {
      reply = await answer(msg.job!);
    }
    port.postMessage({ seq: msg.seq, answer: reply });
    Atomics.store(signal, 0, msg.seq);
    Atomics.notify(signal, 0);
  });
} else {
  parentPort!.on('message', async (msg: { id: number; job?: Job; warm?: boolean }) => {
    if (msg.warm) {
      try { await warm(); parentPort!.postMessage({ id: msg.id, answer: { error: null, symbols: [] } }); } catch (e) {
        parentPort!.postMessage({ id: msg.id, answer: { error: `decode_error:internal:${(e as Error).message}`, symbols: [] } });
      }
      return;
    }
    parentPort!.postMessage({ id: msg.id, answer: await answer(msg.job!) });
  });
}
