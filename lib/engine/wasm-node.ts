// The WebAssembly DotCode reader in Node.js: the module file that `npm run build` puts beside
// the compiled library (tools/build-wasm.js), compiled once per thread, behind the addon's
// interface. Payloads are Buffers, as the addon makes them.
import * as fs from 'fs';
import * as path from 'path';
import { compileWasm, WasmDotCodeReader } from './wasm-module';

/** dist/lib/engine -> dist/lib/wasm/dotcode_reader.wasm (the same in the repo and the tarball). */
export function dotcodeWasmPath(): string {
  return path.join(__dirname, '..', 'wasm', 'dotcode_reader.wasm');
}

let reader: WasmDotCodeReader | undefined;

/** This thread's reader; throws (with the reason) when the module is missing or does not compile. */
export function wasmReader(): WasmDotCodeReader {
  if (!reader) {
    const file = dotcodeWasmPath();
    let bytes: Buffer;
    try {
      bytes = fs.readFileSync(file);
    } catch {
      throw new Error(`the WebAssembly reader is not built (${file} is missing; it needs emscripten: npm run build)`);
    }
    // Synchronous compile: loadAddon() is synchronous, and 170 KiB compile in milliseconds.
    reader = new WasmDotCodeReader(compileWasm(bytes), (b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength));
  }
  return reader;
}
