// Serves the built browser pages (tools/build-web.js writes dist/web/<name>.html: one file with
// its script and styles inlined): GET /scanner (scanner/) and GET /portal (portal/).
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { Context } from 'koa';

/** dist/web/, found from this compiled file (dist/server/src/pages.js). */
export const WEB_DIR = path.resolve(__dirname, '..', '..', 'web');

interface Page { html: string; csp: string; mtimeMs: number }
const cache = new Map<string, Page>();

/**
 * A strict Content-Security-Policy: only this page's own inline script (by hash) may run, and
 * it may only talk to this origin. A key pasted into the page cannot be sent anywhere else by
 * injected script.
 */
function cspFor(html: string): string {
  const hashes: string[] = [];
  const re = /<script>([\s\S]*?)<\/script>/g;
  for (let m = re.exec(html); m; m = re.exec(html)) {
    hashes.push(`'sha256-${createHash('sha256').update(m[1], 'utf8').digest('base64')}'`);
  }
  return [
    "default-src 'none'",
    // 'wasm-unsafe-eval' lets the page compile the WebAssembly readers it fetches from this
    // origin (on-device decoding); it allows no JavaScript eval.
    `script-src ${hashes.join(' ') || "'none'"} 'wasm-unsafe-eval'`,
    "style-src 'unsafe-inline'",
    "connect-src 'self'",
    "img-src 'self' data: blob:",
    "media-src 'self' blob: mediastream:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function load(name: string): Page | null {
  const file = path.join(WEB_DIR, `${name}.html`);
  let mtimeMs: number;
  try { mtimeMs = statSync(file).mtimeMs; } catch { return null; }
  const hit = cache.get(name);
  // Re-read after a rebuild (development); otherwise served from memory.
  if (hit && hit.mtimeMs === mtimeMs) return hit;
  const html = readFileSync(file, 'utf8');
  const page = { html, csp: cspFor(html), mtimeMs };
  cache.set(name, page);
  return page;
}

/** Koa handler for one built page; `camera` allows the camera for this origin (the scanner). */
export function servePage(name: 'scanner' | 'portal', opts: { camera?: boolean } = {}) {
  return (ctx: Context): void => {
    const page = load(name);
    if (!page) {
      ctx.status = 503;
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = `The ${name} page is not built. Run: node tools/build-web.js (part of npm run build).\n`;
      return;
    }
    ctx.set('Content-Security-Policy', page.csp);
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Permissions-Policy', opts.camera ? 'camera=(self), microphone=()' : 'camera=(), microphone=()');
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = page.html;
  };
}
