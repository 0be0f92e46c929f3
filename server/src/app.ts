// The Koa application. Routes come from modules (server/src/modules.ts): each module registers
// its HTTP routes on the shared router and, if it has one, a web-socket path; the app itself only
// adds the cross-cutting parts (errors, security headers, request log, metrics).
import Koa from 'koa';
import Router from '@koa/router';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import * as client from 'prom-client';
import { ApiError, errorBody, storeDown } from './errors';
import { MAX_IMAGE_BYTES, MAX_PIXELS, type Engine } from './engine';
import { Logger, safeUrl } from './logger';
import { Store, StoreUnavailableError } from './store/types';
import type { TrustedKey } from 'dotcode-sdk/license';

export interface ServerConfig {
  /** request body cap (SPEC 8: 8 MB) */
  maxBodyBytes: number;
  /** pixel cap checked before decoding (SPEC 8: roughly 40 megapixels) */
  maxPixels: number;
  /** per-key burst limit: `limit` requests per `windowMs` */
  rateLimit: { limit: number; windowMs: number };
  /** how long a completed Idempotency-Key answer is kept */
  idempotencyTtlMs: number;
  /** how long an SDK machine keeps its seat without a heartbeat */
  sdkLeaseMs: number;
  /** a camera socket (/v1/live, the Live Scanner) answers frame_dropped when more than this many frames wait (frames.ts) */
  liveMaxQueued: number;
  /** open /v1/live sockets per API key in this process (each may hold a few 8 MB frames) */
  liveMaxSocketsPerKey: number;
  /** take client addresses from X-Forwarded-For (only behind a load balancer that sets it) */
  trustProxy: boolean;
  /**
   * pixels decoded at once (all customers; one customer), decodes one customer may have waiting,
   * and when to recycle the engine's threads (budgeted-engine.ts)
   */
  decodeBudget: { pixels: number; perCustomer: number; maxWaiting: number; recycleAfterPixels: number; recycleIdleMs: number };
  /**
   * this server's public URL, stamped into downloaded SDKs: `--public-url`, or derived once from
   * the listening address at start (server.ts); never taken from a request's Host header
   */
  publicUrl: string;
  /** SDK downloads per licence: `limit` per `windowMs` (each may cost a tarball build) */
  downloadRateLimit: { limit: number; windowMs: number };
  /** stamped SDK tarballs kept in <data>/sdk-cache (the oldest go first) */
  sdkCacheMax: number;
  /** the data folder (supplier keys, SQLite file, SDK tarball cache) */
  dataDir: string;
  /** the SDK package folder that /v1/sdk/download packs */
  sdkPackageDir: string;
}

export const DEFAULT_CONFIG: Omit<ServerConfig, 'dataDir' | 'sdkPackageDir'> = {
  maxBodyBytes: MAX_IMAGE_BYTES,
  maxPixels: MAX_PIXELS,
  rateLimit: { limit: 50, windowMs: 1000 },
  idempotencyTtlMs: 24 * 3600 * 1000,
  sdkLeaseMs: 30 * 24 * 3600 * 1000,
  liveMaxQueued: 2,
  liveMaxSocketsPerKey: 8,
  trustProxy: false,
  // one image at the pixel cap, plus room for other customers' ordinary images beside it
  decodeBudget: { pixels: 48_000_000, perCustomer: 40_000_000, maxWaiting: 16, recycleAfterPixels: 8_000_000, recycleIdleMs: 2000 },
  publicUrl: '',
  downloadRateLimit: { limit: 20, windowMs: 3600_000 },
  sdkCacheMax: 4,
};

/** The supplier's public key, when `admin init` has been run on the data folder. */
export interface SupplierInfo {
  trusted(): TrustedKey[];
  publicKeyPem(): string | null;
}

export interface Metrics {
  registry: client.Registry;
  httpRequests: client.Counter<'method' | 'route' | 'status'>;
  httpDuration: client.Histogram<'route'>;
  decodeSeconds: client.Histogram<'source'>;
  scans: client.Counter<'source' | 'outcome'>;
  storeErrors: client.Counter;
  liveFrames: client.Counter<'outcome'>;
  escapedErrors: client.Counter;
}

export interface AppDeps {
  store: Store;
  engine: Engine;
  logger: Logger;
  config: ServerConfig;
  /** injected clock (ms since epoch): periods and leases are tested with a fixed one */
  now: () => number;
  supplier: SupplierInfo;
  metrics: Metrics;
}

export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

export interface ModuleContext {
  router: Router;
  deps: AppDeps;
  /** claims a web-socket path (exact pathname) */
  addUpgrade(path: string, handler: UpgradeHandler): void;
  /** runs when the server closes (close sockets, timers) */
  onClose(fn: () => Promise<void> | void): void;
}

export interface ServerModule {
  name: string;
  register(ctx: ModuleContext): void;
}

export interface App {
  koa: Koa;
  router: Router;
  upgrades: Map<string, UpgradeHandler>;
  close(): Promise<void>;
}

export function createMetrics(): Metrics {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  const reg = { registers: [registry] };
  return {
    registry,
    httpRequests: new client.Counter({ name: 'dotcode_http_requests_total', help: 'HTTP requests by route and status', labelNames: ['method', 'route', 'status'], ...reg }),
    httpDuration: new client.Histogram({ name: 'dotcode_http_request_duration_seconds', help: 'HTTP request time by route', labelNames: ['route'], buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5], ...reg }),
    decodeSeconds: new client.Histogram({ name: 'dotcode_decode_seconds', help: 'Engine decode time', labelNames: ['source'], buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5], ...reg }),
    scans: new client.Counter({ name: 'dotcode_scans_total', help: 'Scans counted against quotas, by outcome', labelNames: ['source', 'outcome'], ...reg }),
    storeErrors: new client.Counter({ name: 'dotcode_store_errors_total', help: 'Requests answered 503 because the store was unreachable', ...reg }),
    liveFrames: new client.Counter({ name: 'dotcode_live_frames_total', help: 'Live socket frames by outcome', labelNames: ['outcome'], ...reg }),
    escapedErrors: new client.Counter({ name: 'dotcode_escaped_errors_total', help: 'Errors that escaped every request handler (logged; the server kept running)', ...reg }),
  };
}

/** Headers every answer carries. The API serves JSON only; pages (scanner, portal) set their own CSP. */
function securityHeaders(ctx: Koa.Context, tls: boolean): void {
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
  ctx.set('Cross-Origin-Resource-Policy', 'same-origin');
  ctx.set('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'");
  if (tls) ctx.set('Strict-Transport-Security', 'max-age=31536000');
}

export function createApp(deps: AppDeps, modules: ServerModule[], opts: { tls?: boolean } = {}): App {
  // Behind a load balancer (--trust-proxy) the client address is the last one X-Forwarded-For
  // names (the one the balancer added; earlier entries are whatever the client sent). Otherwise
  // every customer would share the balancer's address, e.g. for the portal's sign-in limit.
  const koa = new Koa({ proxy: !!deps.config.trustProxy, maxIpsCount: 1 });
  // Errors Koa reports outside the request flow (a response stream that fails, a client that
  // disconnects during a download). Koa's default prints a raw stack to stderr, outside the JSON
  // log: log them as JSON, and a client going away is not an error of ours.
  koa.on('error', (err: Error & { code?: string }, ctx?: Koa.Context) => {
    const gone = err.code === 'ERR_STREAM_PREMATURE_CLOSE' || err.code === 'ECONNRESET' || err.code === 'EPIPE'
      || err.code === 'ECONNABORTED' || (err.code ?? '').startsWith('HPE_'); // a client that sent a broken request and left
    const o = { err: gone ? err.code : err.stack ?? String(err), url: ctx ? safeUrl(ctx.url) : undefined };
    if (gone) logger.info(o, 'client went away before the answer was sent');
    else logger.error(o, 'error while sending an answer');
  });
  const router = new Router();
  const upgrades = new Map<string, UpgradeHandler>();
  const closers: (() => Promise<void> | void)[] = [];
  const { logger, metrics } = deps;

  koa.use(async (ctx, next) => {
    const t0 = process.hrtime.bigint();
    securityHeaders(ctx, !!opts.tls);
    ctx.set('Cache-Control', 'no-store');
    try {
      await next();
      if (ctx.status === 405 && ctx.body === undefined) {
        throw new ApiError(405, 'method_not_allowed', `${ctx.method} is not allowed on ${ctx.path}; allowed: ${ctx.response.get('Allow')}.`);
      }
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new ApiError(404, 'not_found', `No route for ${ctx.method} ${ctx.path}.`);
      }
    } catch (err) {
      let e: ApiError;
      if (err instanceof ApiError) e = err;
      else if (err instanceof StoreUnavailableError) {
        metrics.storeErrors.inc();
        logger.warn({ err: err.message }, 'store unavailable');
        e = storeDown();
      } else {
        logger.error({ err: (err as Error).stack ?? String(err), url: safeUrl(ctx.url) }, 'internal error');
        e = new ApiError(500, 'internal_error', 'The service failed on this request; retry once after about a second.', {}, { 'Retry-After': '1' });
      }
      ctx.status = e.status;
      for (const [k, v] of Object.entries(e.headers)) ctx.set(k, v);
      ctx.body = errorBody(e.code, e.message, e.extra);
    } finally {
      const route = (ctx as unknown as { _matchedRoute?: string })._matchedRoute ?? 'unmatched';
      const secs = Number(process.hrtime.bigint() - t0) / 1e9;
      metrics.httpRequests.inc({ method: ctx.method, route: String(route), status: String(ctx.status) });
      metrics.httpDuration.observe({ route: String(route) }, secs);
      // Never the headers, never the raw query: keys travel in both.
      logger.info({ method: ctx.method, url: safeUrl(ctx.url), status: ctx.status, ms: Math.round(secs * 1000 * 10) / 10,
        customer: (ctx.state as { customer?: { id: string } }).customer?.id }, 'request');
    }
  });

  const mctx: ModuleContext = {
    router,
    deps,
    addUpgrade(path, handler) {
      if (upgrades.has(path)) throw new Error(`web-socket path ${path} registered twice`);
      upgrades.set(path, handler);
    },
    onClose(fn) { closers.push(fn); },
  };
  for (const m of modules) m.register(mctx);
  koa.use(router.routes());
  koa.use(router.allowedMethods({ throw: false }));

  return {
    koa, router, upgrades,
    async close() { for (const c of closers) await c(); },
  };
}
