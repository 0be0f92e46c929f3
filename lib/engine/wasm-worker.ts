// A thread of the WebAssembly reader's pool (wasm-pool.ts): one instance of the reader, one
// job at a time. Errors travel back by name and message so the caller rejects with the same
// TypeError/RangeError/Error the addon would have thrown.
import { parentPort } from 'worker_threads';
import { wasmReader } from './wasm-node';
import type { ImageArgs } from './wasm-module';

parentPort!.on('message', (m: { id: number; args: ImageArgs }) => {
  try {
    const reads = wasmReader().readPlane(m.args);
    parentPort!.postMessage({ id: m.id, reads });
  } catch (e) {
    const err = e instanceof Error ? e : new Error(String(e));
    parentPort!.postMessage({ id: m.id, error: { name: err.name, message: err.message } });
  }
});
