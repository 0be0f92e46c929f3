// The two WebAssembly modules the Live Scanner page reads frames with on the device
// (web/scanner/local-reader.ts): our DotCode reader (dist/lib/wasm, tools/build-wasm.js) and
// zxing-wasm's reader, served from this server (the page's CSP allows only this origin, and
// nothing is fetched from a CDN). A module that is missing answers 404 and the page sends
// frames over the socket instead.
import { readFileSync, statSync } from 'node:fs';
import type { Context } from 'koa';
import { zxingWasmPath } from '../../../lib/engine';
import { dotcodeWasmPath } from '../../../lib/engine/wasm-node';

export const WASM_FILES: Record<string, () => string> = {
  'dotcode_reader.wasm': dotcodeWasmPath,
  'zxing_reader.wasm': zxingWasmPath,
};

const cache = new Map<string, { body: Buffer; mtimeMs: number }>();

/** Koa handler for one module, GET /scanner/wasm/<name> (one route per file: no path parameter). */
export const serveWasm = (name: string) => (ctx: Context): void => {
  const locate = WASM_FILES[name];
  let file: string | null = null;
  try { file = locate ? locate() : null; } catch { file = null; }
  let mtimeMs = 0;
  try { if (file) mtimeMs = statSync(file).mtimeMs; } catch { file = null; }
  if (!file) {
    ctx.status = 404;
    ctx.body = { ok: false, error: 'not_found', message: `${name} is not available on this server` };
    return;
  }
  let hit = cache.get(name);
  if (!hit || hit.mtimeMs !== mtimeMs) {
    hit = { body: readFileSync(file), mtimeMs };
    cache.set(name, hit);
  }
  ctx.type = 'application/wasm';
  ctx.set('Cache-Control', 'no-cache');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.body = hit.body;
};
