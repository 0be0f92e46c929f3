// The Live Scanner socket, /v1/scanner/live (docs/ARCHITECTURE.md "Live Scanner socket",
// docs/scanner.md).
//
// 1. The page opens the socket (no key in the URL: URLs end up in proxies' logs and histories).
// 2. First message, text: {"type":"hello","license_key","device_id","format"?}.
// 3. The server verifies the key offline (signature, revocation, the `scanner` feature, term plus
//    14 days' grace), then takes a seat lease for the device and answers {"type":"ready",...};
//    or {"type":"error","error","message"} and closes: 4401 invalid key, 4403 not licensed /
//    expired / revoked, 4409 every machine is already scanning, 4400 protocol misuse.
// 4. Each binary message is one JPEG (or PNG) frame; each gets exactly one JSON answer, in order:
//    {"type":"result", ...SPEC 2.1 decode result}.
//
// Seats are leases (SPEC 3.1, 8): a device holds one while frames flow; every frame renews it
// (at most every LEASE_RENEW_MS), and it runs out LEASE_MS after the last frame. Closing the
// socket does NOT free the seat at once: a device that reopens the page with its device id
// within the lease gets the same slot back, so closing and reopening never uses another slot.
// Scanner frames never touch a Cloud API quota (no API key is involved).

import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { WebSocketServer, WebSocket, RawData } from 'ws';
import { verifyLicense, licenceState, GRACE_SECONDS } from '../../../lib/license';
import type { LicensePayload, TrustedKey } from '../../../lib/license';
import type { DecodeOptions, DecodeResult, Format } from '../../../lib/engine';
import { FORMATS } from '../../../lib/engine/types';
import type { Store } from '../store/types';

export const SCANNER_PATH = '/v1/scanner/live';
/** A seat is freed after this long without a frame from its device. */
export const LEASE_MS = 60_000;
/** Frames renew the lease at most this often (a store write per frame would be wasteful). */
export const LEASE_RENEW_MS = 10_000;
/** The largest frame accepted (SPEC 8: 8 MB images); bigger messages close the socket (1009). */
export const MAX_FRAME_BYTES = 8 * 1024 * 1024;
/** The hello must come this soon after the socket opens. */
const HELLO_TIMEOUT_MS = 10_000;
/** Most reads one usage message may report (a page reports every few seconds). */
const MAX_USAGE_READS = 1000;
/** Frames waiting behind the one being decoded; more are answered frame_dropped at once. */
const MAX_QUEUED_FRAMES = 2;
/** The same text read again within this time is the same code held in view: one scan, not many. */
const SAME_CODE_MS = 2_000;
/** Reads are added to the device's machine record at most this often (and on close). */
const SCAN_FLUSH_MS = 15_000;
const DEVICE_ID = /^[A-Za-z0-9_-]{8,64}$/;

export const MESSAGES = {
  notLicensed: 'This licence does not include the Live Scanner',
  seatsFull: 'All the machines on this licence are already scanning',
} as const;

export interface ScannerDeps {
  store: Store;
  /** Supplier public keys that licence keys must be signed with. */
  trustedKeys: () => readonly TrustedKey[];
  /** The engine's decode (lib/engine through the server's engine seam). */
  decode: (bytes: Buffer, options: DecodeOptions, tenant?: string) => Promise<DecodeResult>;
  /** Clock in ms (tests of lease expiry pass their own). */
  now?: () => number;
  leaseMs?: number;
  log?: { info: (o: object, msg?: string) => void; warn: (o: object, msg?: string) => void };
}

interface Refusal { code: number; error: string; message: string }

function isoDay(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().slice(0, 10);
}

/** Checks a licence key for the Live Scanner; returns the payload or the refusal to send. */
export async function checkScannerLicence(deps: ScannerDeps, key: unknown, nowMs: number): Promise<LicensePayload | Refusal> {
  let payload: LicensePayload;
  try {
    payload = verifyLicense(key, deps.trustedKeys());
  } catch (err) {
    return { code: 4401, error: 'invalid_license', message: `This licence key is not valid (${(err as Error).message}). Paste the whole key you received from your supplier.` };
  }
  if (await deps.store.isRevoked(payload.lid)) {
    return { code: 4403, error: 'license_revoked', message: 'This licence has been revoked. Contact your supplier.' };
  }
  if (!payload.features.includes('scanner')) {
    return { code: 4403, error: 'feature_not_licensed', message: MESSAGES.notLicensed };
  }
  if (licenceState(payload, nowMs).state === 'expired') {
    return {
      code: 4403, error: 'license_expired',
      message: `This licence has expired: its term ended on ${isoDay(payload.exp)} and the 14-day grace period on ${isoDay(payload.exp + GRACE_SECONDS)}. Ask your supplier for a renewal key.`,
    };
  }
  return payload;
}

/** Short description of the browser for the machine list ("Chrome on Android"). */
export function describeAgent(ua: string | undefined): string {
  if (!ua) return 'Browser';
  const browser = /Edg\//.test(ua) ? 'Edge' : /Firefox\//.test(ua) ? 'Firefox' : /Chrom(e|ium)\//.test(ua) ? 'Chrome'
    : /Safari\//.test(ua) ? 'Safari' : 'Browser';
  const os = /Android/.test(ua) ? 'Android' : /iPhone|iPad|iPod/.test(ua) ? 'iOS' : /Windows/.test(ua) ? 'Windows'
    : /Mac OS X/.test(ua) ? 'macOS' : /Linux/.test(ua) ? 'Linux' : '';
  return os ? `${browser} on ${os}` : browser;
}

export class ScannerSockets {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  private readonly now: () => number;
  private readonly leaseMs: number;

  constructor(private readonly deps: ScannerDeps) {
    this.now = deps.now ?? Date.now;
    this.leaseMs = deps.leaseMs ?? LEASE_MS;
  }

  /**
   * For the http server's 'upgrade' event. Returns false (and leaves the socket alone) when the
   * request is not for the scanner path, so other socket routes (/v1/live) can share the event.
   */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    const path = (req.url ?? '').split('?')[0];
    if (path !== SCANNER_PATH) return false;
    this.wss.handleUpgrade(req, socket, head, (ws) => this.session(ws, req));
    return true;
  }

  /** Closes every open scanner socket (server shutdown). Leases are left to run out. */
  async close(): Promise<void> {
    for (const ws of this.wss.clients) ws.close(1001, 'server shutting down');
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  get openSockets(): number {
    return this.wss.clients.size;
  }

  private session(ws: WebSocket, req: IncomingMessage): void {
    const deps = this.deps;
    const agent = describeAgent(req.headers['user-agent']);
    let licence: LicensePayload | null = null;
    let deviceId = '';
    let format: Format | undefined;
    let helloSeen = false;
    let lastRenew = 0;
    let queued = 0;
    let chain: Promise<void> = Promise.resolve();
    let closed = false;
    let reads = 0; // reads not yet added to the machine record
    let totalScans = 0; // the device's count as stored in its machine record
    let lastText: string | null = null;
    let lastTextAt = 0;
    const socketId = randomUUID();

    const send = (msg: object) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg));
    };
    const refuse = (r: Refusal) => {
      send({ type: 'error', error: r.error, message: r.message });
      ws.close(r.code, r.error);
    };
    const helloTimer = setTimeout(() => refuse({ code: 4400, error: 'hello_expected', message: 'Send the hello message (licence key and device id) first.' }), HELLO_TIMEOUT_MS);

    // The device's scan count lives in its machine record's info (see takeSeat).
    const seatInfo = () => ({ name: agent, scans: String(totalScans + reads) });
    const takeSeat = async (): Promise<boolean> => {
      if (!licence) return false;
      const r = await deps.store.acquireSeat(licence.lid, deviceId, 'scanner', licence.seats, seatInfo(), this.leaseMs, this.now());
      lastRenew = this.now();
      return r.ok;
    };
    const flushReads = async () => {
      if (!licence || reads === 0) return;
      totalScans += reads;
      reads = 0;
      await deps.store.acquireSeat(licence.lid, deviceId, 'scanner', licence.seats, seatInfo(), this.leaseMs, this.now()).catch(() => undefined);
      lastRenew = this.now();
    };
    const flushTimer = setInterval(() => { void flushReads(); }, SCAN_FLUSH_MS);

    const onHello = async (text: string) => {
      let msg: { type?: unknown; license_key?: unknown; device_id?: unknown; format?: unknown };
      try { msg = JSON.parse(text); } catch { msg = {}; }
      if (msg.type !== 'hello') return refuse({ code: 4400, error: 'hello_expected', message: 'The first message must be {"type":"hello",...}.' });
      if (typeof msg.device_id !== 'string' || !DEVICE_ID.test(msg.device_id)) {
        return refuse({ code: 4400, error: 'bad_device_id', message: 'device_id must be 8 to 64 letters, digits, "-" or "_".' });
      }
      if (msg.format !== undefined && !(FORMATS as readonly unknown[]).includes(msg.format)) {
        return refuse({ code: 4400, error: 'bad_format', message: `format must be one of ${FORMATS.join(', ')}.` });
      }
      format = msg.format as Format | undefined;
      deviceId = msg.device_id;
      const checked = await checkScannerLicence(deps, msg.license_key, this.now());
      if ('error' in checked) {
        deps.log?.info({ event: 'scanner_refused', error: checked.error, device: deviceId }, 'scanner refused');
        return refuse(checked);
      }
      licence = checked;
      const existing = (await deps.store.listMachines(licence.lid))
        .find((m) => m.kind === 'scanner' && m.machineId === deviceId);
      totalScans = Number(existing?.info.scans ?? 0) || 0;
      if (!(await takeSeat())) {
        deps.log?.info({ event: 'scanner_seats_full', lid: licence.lid, device: deviceId }, 'scanner seats full');
        return refuse({ code: 4409, error: 'seat_limit_reached', message: MESSAGES.seatsFull });
      }
      const st = licenceState(licence, this.now());
      send({
        type: 'ready',
        license: {
          org: licence.org, plan: licence.plan, seats: licence.seats, exp: licence.exp,
          grace_ends: licence.exp + GRACE_SECONDS, in_grace: st.state === 'grace',
        },
        device_id: deviceId,
        lease_seconds: Math.round(this.leaseMs / 1000),
      });
    };

    const onFrame = async (frame: Buffer) => {
      // Renew the lease while frames flow. If the lease ran out (the tab slept past it) and
      // another device took the seat meanwhile, this device is told so and disconnected.
      if (this.now() - lastRenew >= LEASE_RENEW_MS) {
        if (!(await takeSeat())) return refuse({ code: 4409, error: 'seat_limit_reached', message: MESSAGES.seatsFull });
      }
      const result = await deps.decode(frame, { format, gs1: 'auto' }, `licence:${licence!.lid}`);
      if (result.ok && result.text !== null) {
        const t = this.now();
        if (result.text !== lastText || t - lastTextAt > SAME_CODE_MS) reads++;
        lastText = result.text;
        lastTextAt = t;
      }
      send({ type: 'result', ...result });
    };

    // The page decodes on the device (web/scanner/local-reader.ts) and sends, instead of frames,
    // the count of codes it read, at least every few seconds: counted as frames' reads are, and
    // renewing the seat lease as frames do.
    const onUsage = async (text: string) => {
      let msg: { type?: unknown; reads?: unknown };
      try { msg = JSON.parse(text); } catch { return; }
      if (msg.type !== 'usage' || typeof msg.reads !== 'number' || !Number.isInteger(msg.reads) || msg.reads < 0 || msg.reads > MAX_USAGE_READS) return;
      if (this.now() - lastRenew >= LEASE_RENEW_MS) {
        if (!(await takeSeat())) return refuse({ code: 4409, error: 'seat_limit_reached', message: MESSAGES.seatsFull });
      }
      reads += msg.reads;
    };

    ws.on('message', (data: RawData, isBinary: boolean) => {
      const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer);
      if (!helloSeen) {
        helloSeen = true;
        clearTimeout(helloTimer);
        if (isBinary) return refuse({ code: 4400, error: 'hello_expected', message: 'Send the hello message before any frame.' });
        chain = chain.then(() => onHello(buf.toString('utf8'))).catch((err) => {
          deps.log?.warn({ event: 'scanner_hello_failed', err: String(err) }, 'scanner hello failed');
          refuse({ code: 1011, error: 'server_error', message: 'The service could not check the licence just now. Try again in a moment.' });
        });
        return;
      }
      if (!isBinary) {
        // {"type":"usage","reads":n}: the page read frames on the device; other text is reserved.
        chain = chain.then(() => { if (!closed && licence) return onUsage(buf.toString('utf8')); }).catch(() => undefined);
        return;
      }
      if (queued >= MAX_QUEUED_FRAMES + 1) {
        // Answered in order behind the frames already queued, at no decoding cost.
        chain = chain.then(() => send({ type: 'result', ok: false, text: null, format: null, via: 'none', elapsed_ms: 0, error: 'frame_dropped', gs1: null }));
        return;
      }
      queued++;
      chain = chain.then(async () => {
        try {
          if (!closed && licence) await onFrame(buf);
        } catch (err) {
          deps.log?.warn({ event: 'scanner_frame_failed', err: String(err) }, 'scanner frame failed');
          send({ type: 'result', ok: false, text: null, format: null, via: 'none', elapsed_ms: 0, error: 'frame_dropped', gs1: null });
        } finally {
          queued--;
        }
      });
    });
    ws.on('close', () => {
      closed = true;
      clearTimeout(helloTimer);
      clearInterval(flushTimer);
      // The lease is kept (see the top of this file); only the last reads are written.
      void chain.then(flushReads).catch(() => undefined);
      deps.log?.info({ event: 'scanner_closed', socket: socketId, device: deviceId || null }, 'scanner socket closed');
    });
    ws.on('error', () => { /* 'close' follows */ });
  }
}
