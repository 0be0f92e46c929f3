// Starts the Cloud API: opens the store, builds the app from the route modules, listens on
// HTTP or HTTPS (--tls-cert/--tls-key; WSS then comes with it), and dispatches web-socket
// upgrades by path.
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import * as os from 'node:os';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { App, AppDeps, createApp, createMetrics, DEFAULT_CONFIG, ServerConfig, ServerModule, SupplierInfo } from './app';
import { Engine, sdkEngine } from './engine';
import { budgetedEngine, type BudgetedEngine } from './budgeted-engine';
import * as client from 'prom-client';
import { createLogger, Logger } from './logger';
import { guardProcess } from './guard';
import { modules as defaultModules } from './modules';
import { openStore } from './store';
import { unwatchRawApiKeys, watchRawApiKeys } from './rawkeys';
import type { Store } from './store/types';
import { keyId, packageRoot, type TrustedKey } from 'dotcode-sdk/license';
import { supplierDir } from './signing';

export interface StartOptions {
  port?: number;
  host?: string;
  dataDir: string;
  redisUrl?: string;
  redisPrefix?: string;
  tlsCert?: string;
  tlsKey?: string;
  /** overrides of the default configuration */
  config?: Partial<ServerConfig>;
  /** an already open store (tests); otherwise opened from dataDir / redisUrl */
  store?: Store;
  engine?: Engine;
  logger?: Logger;
  logFile?: string;
  now?: () => number;
  modules?: ServerModule[];
  /** `dotcode serve`: log an error that escapes every handler instead of exiting (guard.ts) */
  guardProcess?: boolean;
}

export interface RunningServer {
  url: string;
  port: number;
  server: http.Server | https.Server;
  app: App;
  deps: AppDeps;
  /** graceful: waits up to graceMs (default 10 s) for requests in flight */
  close(graceMs?: number): Promise<void>;
}

/**
 * Reads the supplier public key from the data folder, re-checking while it is absent so that
 * `admin init` on a running server takes effect without a restart.
 */
export function supplierFromDataDir(dataDir: string): SupplierInfo {
  let pem: string | null = null;
  const load = (): string | null => {
    if (pem) return pem;
    try { pem = fs.readFileSync(path.join(supplierDir(dataDir), 'public-key.pem'), 'utf8'); } catch { /* not initialised yet */ }
    return pem;
  };
  return {
    trusted(): TrustedKey[] {
      const p = load();
      return p ? [{ kid: keyId(p), publicKey: p }] : [];
    },
    publicKeyPem: load,
  };
}

/** The decode budget in /metrics: pixels decoded now, the peak, decodes waiting, recycles. */
function engineMetrics(m: ReturnType<typeof createMetrics>, e: BudgetedEngine): void {
  const registers = [m.registry];
  new client.Gauge({ name: 'dotcode_decode_pixels_in_flight', help: 'Pixels being decoded now', registers, collect() { this.set(e.gate.load.pixels); } });
  new client.Gauge({ name: 'dotcode_decode_pixels_peak', help: 'Most pixels ever decoded at once by this process', registers, collect() { this.set(e.gate.peak); } });
  new client.Gauge({ name: 'dotcode_decodes_waiting', help: 'Decodes waiting for the pixel budget', registers, collect() { this.set(e.gate.load.waiting); } });
  new client.Gauge({ name: 'dotcode_engine_recycles', help: 'Engine thread recycles after large images', registers, collect() { this.set(e.recycles()); } });
}

/** The listening address as a URL; a wildcard address becomes this machine's host name. */
function derivedPublicUrl(tls: boolean, addr: AddressInfo): string {
  const wildcard = addr.address === '0.0.0.0' || addr.address === '::';
  const host = wildcard ? os.hostname() : addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return `${tls ? 'https' : 'http'}://${host}:${addr.port}`;
}

export async function startServer(o: StartOptions): Promise<RunningServer> {
  const logger = o.logger ?? createLogger({ file: o.logFile });
  const store = o.store ?? await openStore({ dataDir: o.dataDir, redisUrl: o.redisUrl, redisPrefix: o.redisPrefix, tolerateDown: true });
  // a store that is down at start is not fatal: requests get 503 until it answers; one that is
  // still connecting is given a moment, so the first requests do not get 503 for nothing
  await store.whenReady(3000);
  await store.ping().catch((e: Error) => logger.warn({ err: e.message }, 'store not reachable yet; answering 503 until it is'));
  const tls = !!(o.tlsCert && o.tlsKey);
  const config: ServerConfig = { ...DEFAULT_CONFIG, dataDir: o.dataDir, sdkPackageDir: packageRoot(), ...o.config };
  const metrics = createMetrics();
  const b = config.decodeBudget;
  const engine = budgetedEngine(o.engine ?? sdkEngine, {
    budget: b.pixels, perTenant: b.perCustomer, maxWaiting: b.maxWaiting, recycleAfterPixels: b.recycleAfterPixels, recycleIdleMs: b.recycleIdleMs,
  }, logger);
  engineMetrics(metrics, engine);
  const deps: AppDeps = {
    store, logger, config,
    engine,
    now: o.now ?? Date.now,
    supplier: supplierFromDataDir(o.dataDir),
    metrics,
  };
  const unguard = o.guardProcess ? guardProcess(logger, deps.metrics.escapedErrors) : null;
  const app = createApp(deps, o.modules ?? defaultModules, { tls });
  const handler = app.koa.callback();
  const server = tls
    ? https.createServer({ cert: fs.readFileSync(o.tlsCert!), key: fs.readFileSync(o.tlsKey!) }, handler)
    : http.createServer(handler);
  // slow or stuck clients must not pin sockets forever
  server.requestTimeout = 60_000;
  server.headersTimeout = 20_000;
  // raw header scan for stray whitespace around X-API-Key (see rawkeys.ts)
  if (tls) server.on('secureConnection', (s) => watchRawApiKeys(s));
  else server.on('connection', (s) => watchRawApiKeys(s));
  server.on('upgrade', (req, socket, head) => {
    // Node hands the raw socket over without its own error listener: a client that resets it
    // before the answer is written would raise an 'error' nobody listens to (issue 16).
    socket.on('error', () => socket.destroy());
    unwatchRawApiKeys(socket);
    const pathname = new URL(req.url ?? '/', 'http://x').pathname;
    const h = app.upgrades.get(pathname);
    if (!h) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    h(req, socket, head);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 8080, o.host ?? '127.0.0.1', () => { server.off('error', reject); resolve(); });
  });
  // Warm the engine's workers in the background so the first request does not pay for it.
  deps.engine.warmUp().catch((e: Error) => logger.warn({ err: e.message }, 'engine warm-up failed'));
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  const url = `${tls ? 'https' : 'http'}://${host}:${addr.port}`;
  if (!config.publicUrl) {
    // Once, here: the URL stamped into downloaded SDKs never comes from a request's Host header
    // (a client could stamp any address into a tarball, and force a new build per Host).
    config.publicUrl = derivedPublicUrl(tls, addr);
    logger.warn({ public_url: config.publicUrl }, 'no --public-url given: downloaded SDKs will report to this address');
  }
  logger.info({ url, store: store.kind }, 'dotcode api listening');
  return {
    url, port: addr.port, server, app, deps,
    async close(graceMs = 10_000) {
      await app.close();
      engine.stop();
      // stop accepting; let requests in flight finish (their scans are already reserved) for up
      // to graceMs, then cut whatever is left
      await new Promise<void>((resolve) => {
        const t = setTimeout(() => server.closeAllConnections(), graceMs);
        t.unref();
        server.close(() => { clearTimeout(t); resolve(); });
        server.closeIdleConnections();
      });
      if (!o.store) await store.close();
      unguard?.();
    },
  };
}
