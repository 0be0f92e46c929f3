// Shared helpers of the SDK tests: a supplier key pair stamped into this package, licence keys,
// test images (rendered with bwip-js, an independent encoder), and a small HTTP(S) listener that
// speaks the SDK background protocol of docs/ARCHITECTURE.md with switchable failure modes.
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { packageRoot } from '../../lib/license';
import { generateSupplierKeyPair, LicenseClaims, removeStampKey, signLicense, writeStamp } from '../../server/src/signing';

export const DAY = 86400;
export const supplier = generateSupplierKeyPair();
let stamped = false;

/**
 * Adds this run's supplier key to the repo's (git-ignored) supplier.json. Merging, never
 * replacing: other test files stamp their own keys into the same file concurrently.
 */
export function stampRepo(): void {
  if (stamped) return;
  writeStamp(packageRoot(), supplier.publicKeyPem, '');
  stamped = true;
  // Take this run's throwaway key out again when the test process ends, so the shared stamp
  // does not grow with every run (child processes have finished by then).
  process.once('exit', () => { try { removeStampKey(packageRoot(), supplier.kid); } catch { /* best effort */ } });
}

export function now(): number {
  return Math.floor(Date.now() / 1000);
}

export function makeKey(over: Partial<LicenseClaims> = {}, privateKeyPem = supplier.privateKeyPem): string {
  stampRepo();
  const t = now();
  return signLicense({
    lid: `lic_${Math.random().toString(36).slice(2, 10)}`, org: 'Acme Pharma', plan: 'sdk-pro', seats: 3,
    features: ['sdk'], iat: t - DAY, exp: t + 365 * DAY, url: '', ...over,
  }, privateKeyPem);
}

// eslint-disable-next-line @typescript-eslint/no-var-requires
const bwipjs = require('bwip-js') as { toBuffer(o: Record<string, unknown>): Promise<Buffer> };

/** GS1 Data Matrix with (01)(17)(10)(21): read through zxing, parsed by lib/gs1. */
export const GS1_TEXT = '(01)09506000134352(17)261231(10)ABC123(21)SN0001';
export function gs1DataMatrixPng(): Promise<Buffer> {
  return bwipjs.toBuffer({ bcid: 'gs1datamatrix', text: GS1_TEXT, scale: 4, paddingwidth: 8, paddingheight: 8, backgroundcolor: 'FFFFFF' });
}
export function qrPng(text: string): Promise<Buffer> {
  return bwipjs.toBuffer({ bcid: 'qrcode', text, scale: 4, paddingwidth: 8, paddingheight: 8, backgroundcolor: 'FFFFFF' });
}

export type Mode = 'ok' | 'refuse' | 'hang' | '500' | 'seats';

export interface Protocol {
  url: string;
  mode: Mode;
  connections: number;
  requests: { path: string; auth: string | undefined; body: Record<string, unknown> }[];
  registered: Set<string>;
  scans: number;
  reportIds: Set<string>;
  close(): Promise<void>;
}

/**
 * A listener speaking the registration / usage protocol. `refuse` accepts the TCP connection
 * and drops it at once; `hang` never answers; `500` answers an error page; `seats` answers 409.
 */
export async function protocolServer(mode: Mode, tlsOpts?: { key: string | Buffer; cert: string | Buffer }, host = '127.0.0.1'): Promise<Protocol> {
  const sockets = new Set<Socket>();
  const p: Protocol = {
    url: '', mode, connections: 0, requests: [], registered: new Set(), scans: 0, reportIds: new Set(),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const handler: http.RequestListener = (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: Record<string, unknown> = {};
      try { body = JSON.parse(Buffer.concat(chunks).toString()); } catch { /* keep {} */ }
      p.requests.push({ path: req.url ?? '', auth: req.headers.authorization, body });
      if (p.mode === 'hang') return;
      if (p.mode === '500') { res.writeHead(500, { 'content-type': 'text/html' }); res.end('<h1>Internal Server Error</h1>'); return; }
      const json = (status: number, o: unknown): void => { res.writeHead(status, { 'content-type': 'application/json' }); res.end(JSON.stringify(o)); };
      if (!/^License DC1\./.test(req.headers.authorization ?? '')) return json(401, { ok: false, error: 'invalid_license', message: 'missing licence' });
      if (req.url === '/v1/sdk/register') {
        if (p.mode === 'seats') return json(409, { ok: false, error: 'seat_limit_reached', message: 'all 1 machine(s) on this licence are registered' });
        p.registered.add(String(body.machine_id));
        return json(200, { ok: true, machine_id: body.machine_id, seats: 3, seats_used: p.registered.size });
      }
      if (req.url === '/v1/sdk/usage') {
        const id = String(body.report_id);
        if (!p.reportIds.has(id)) { p.reportIds.add(id); p.scans += Number(body.scans) || 0; }
        return json(200, { ok: true });
      }
      json(404, { ok: false, error: 'not_found' });
    });
  };
  const server = tlsOpts ? https.createServer(tlsOpts, handler) : http.createServer(handler);
  server.on(tlsOpts ? 'secureConnection' : 'connection', () => {});
  server.on('connection', (s: Socket) => {
    p.connections += 1;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    if (p.mode === 'refuse') s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, host, () => r()));
  const port = (server.address() as AddressInfo).port;
  p.url = `${tlsOpts ? 'https' : 'http'}://${host === '127.0.0.1' ? '127.0.0.1' : host}:${port}`;
  return p;
}

/** A port nothing listens on (bound, then released). */
export async function deadPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export async function waitFor(cond: () => boolean, ms: number, step = 20): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (cond()) return true;
    await sleep(step);
  }
  return cond();
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

export function tmpDir(prefix: string): string {
  return fs.mkdtempSync(`${require('node:os').tmpdir()}/${prefix}`);
}

/** Collects warnings instead of printing them. */
export function collector(): { warn(m: string): void; messages: string[] } {
  const messages: string[] = [];
  return { messages, warn: (m: string) => { messages.push(m); } };
}
