// The Live Scanner socket, /v1/scanner/live (docs/ARCHITECTURE.md "Live Scanner socket",
// docs/scanner.md).
//
// 1. The page opens the socket (no key in the URL: URLs end up in proxies' logs and histories).
// 2. First message, text: {"type":"hello","license_key","device_id","format"?}.
// 3. The server checks the key with the one licence policy (lib/license checkEntitlement:
//    signature, revocation, term plus 14 days' grace, the `scanner` feature), then takes a seat lease for the device and answers {"type":"ready",...};
//    or {"type":"error","error","message"} and closes: 4401 invalid key, 4403 not licensed /
//    expired / revoked, 4409 every machine is already scanning, 4400 protocol misuse.
// 4. Each binary message is one JPEG (or PNG) frame; each gets exactly one JSON answer, in order:
//    {"type":"result", ...SPEC 2.1 decode result}. Frames wait and are dropped by the one rule of
//    server/src/frames.ts (as on /v1/live).
//
// Seats are leases (SPEC 3.1, 8): a device holds one while frames flow; every frame renews it
// (at most every LEASE_RENEW_MS), and it runs out LEASE_MS after the last frame. Closing the
// socket does NOT free the seat at once: a device that reopens the page with its device id
// within the lease gets the same slot back, so closing and reopening never uses another slot.
// Scanner frames never touch a Cloud API quota (no API key is involved). A device's reads are
// recorded like an SDK machine's usage reports (Store.recordMachineUsage, kind 'scanner').

import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { WebSocketServer, WebSocket, RawData } from 'ws';
import { checkEntitlement, GRACE_SECONDS, licenseState, type EntitlementCode, type LicensePayload, type TrustedKey } from 'dotcode-sdk/license';
import { FORMATS, MAX_IMAGE_BYTES, type DecodeOptions, type DecodeResult, type Format, type FrameReaderOptions } from 'dotcode-sdk/engine';
import type { FrameSession } from '../engine';
import type { Store } from '../store/types';
import { FrameQueue, type FrameAnswer } from '../frames';

export const SCANNER_PATH = '/v1/scanner/live';
/** A seat is freed after this long without a frame from its device. */
export const LEASE_MS = 60_000;
/** Frames renew the lease at most this often (a store write per frame would be wasteful). */
export const LEASE_RENEW_MS = 10_000;
/** The hello must come this soon after the socket opens. */
const HELLO_TIMEOUT_MS = 10_000;
/** Most reads one usage message may report (a page reports every few seconds). */
const MAX_USAGE_READS = 1000;
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
  /** A FrameReader per socket (DotCode fused over frames; answers carry frames_used and new). Without it each frame is decoded alone. */
  frames?: (options: FrameReaderOptions) => FrameSession;
  /** Clock in ms (tests of lease expiry pass their own). */
  now?: () => number;
  leaseMs?: number;
  /** Frames allowed to wait behind the one being decoded (ServerConfig.liveMaxQueued, as on /v1/live). */
  maxWaitingFrames: number;
  log?: { info: (o: object, msg?: string) => void; warn: (o: object, msg?: string) => void };
}

interface Refusal { code: number; error: string; message: string }

/** How each refusal of the licence policy closes the socket. */
const REFUSAL_CLOSE: Record<EntitlementCode, number> = {
  invalid_license: 4401, license_revoked: 4403, license_expired: 4403, feature_not_licensed: 4403,
};

/** Checks a licence key for the Live Scanner; returns the payload or the refusal to send. */
export async function checkScannerLicense(deps: ScannerDeps, key: unknown, nowMs: number): Promise<LicensePayload | Refusal> {
  const answer = await checkEntitlement(key, {
    trusted: deps.trustedKeys(), feature: 'scanner', now: nowMs, revoked: (lid) => deps.store.isRevoked(lid),
  });
  if (answer.ok) return answer.payload;
  // a person pasted this key into the page: say what to do before the detail
  const message = answer.code === 'invalid_license'
    ? `This licence key is not valid (${answer.message}). Paste the whole key you received from your supplier.` : answer.message;
  return { code: REFUSAL_CLOSE[answer.code], error: answer.code, message };
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

const DROPPED = { type: 'result', ok: false, text: null, format: null, via: 'none', elapsed_ms: 0, error: 'frame_dropped', gs1: null } as const;

/** One scanner socket: hello, seat lease, frames through the shared frame queue, read counting. */
class ScannerSession {
  private readonly socketId = randomUUID();
  private readonly agent: string;
  private readonly frames: FrameQueue<Buffer>;
  private readonly helloTimer: NodeJS.Timeout;
  private readonly flushTimer: NodeJS.Timeout;
  /** Settles when the hello has been handled; frames wait for it. */
  private hello: Promise<void> = Promise.resolve();
  private helloSeen = false;
  private license: LicensePayload | null = null;
  private deviceId = '';
  private format: Format | undefined;
  private lastRenew = 0;
  private closed = false;
  /** reads not yet added to the machine record */
  private reads = 0;
  private flushes = 0;
  private lastText: string | null = null;
  private lastTextAt = 0;
  /** This socket's FrameReader, made once the hello names the format. */
  private reader: FrameSession | null = null;

  constructor(private readonly ws: WebSocket, req: IncomingMessage, private readonly deps: ScannerDeps,
    private readonly now: () => number, private readonly leaseMs: number) {
    this.agent = describeAgent(req.headers['user-agent']);
    this.frames = new FrameQueue<Buffer>({
      maxWaiting: deps.maxWaitingFrames,
      decode: (frame) => this.decodeFrame(frame),
      dropped: () => ({ body: DROPPED }),
      send: (body) => this.send(body),
      close: (code, reason) => ws.close(code, reason),
    });
    this.helloTimer = setTimeout(() => this.refuse({ code: 4400, error: 'hello_expected', message: 'Send the hello message (licence key and device id) first.' }), HELLO_TIMEOUT_MS);
    this.flushTimer = setInterval(() => { void this.flushReads(); }, SCAN_FLUSH_MS);
    ws.on('message', (data: RawData, isBinary: boolean) => this.onMessage(data, isBinary));
    ws.on('close', () => this.onClose());
    ws.on('error', () => { /* 'close' follows */ });
  }

  private send(msg: object): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
  }

  private refuse(r: Refusal): void {
    this.send({ type: 'error', error: r.error, message: r.message });
    this.ws.close(r.code, r.error);
  }

  private onMessage(data: RawData, isBinary: boolean): void {
    const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer);
    if (!this.helloSeen) {
      this.helloSeen = true;
      clearTimeout(this.helloTimer);
      if (isBinary) {
        this.refuse({ code: 4400, error: 'hello_expected', message: 'Send the hello message before any frame.' });
        return;
      }
      this.hello = this.onHello(buf.toString('utf8')).catch((err) => {
        this.deps.log?.warn({ event: 'scanner_hello_failed', err: String(err) }, 'scanner hello failed');
        this.refuse({ code: 1011, error: 'server_error', message: 'The service could not check the licence just now. Try again in a moment.' });
      });
      return;
    }
    if (!isBinary) {
      // {"type":"usage","reads":n}: the page read frames on the device; other text is reserved.
      void this.hello.then(() => this.onUsage(buf.toString('utf8'))).catch(() => undefined);
      return;
    }
    this.frames.push(buf);
  }

  // The page decodes on the device (web/scanner/local-reader.ts) and sends, instead of frames,
  // the count of codes it read, at least every few seconds: counted as frames' reads are, and
  // renewing the seat lease as frames do.
  private async onUsage(text: string): Promise<void> {
    if (this.closed || !this.license) return;
    let msg: { type?: unknown; reads?: unknown };
    try { msg = JSON.parse(text); } catch { return; }
    if (msg.type !== 'usage' || typeof msg.reads !== 'number' || !Number.isInteger(msg.reads) || msg.reads < 0 || msg.reads > MAX_USAGE_READS) return;
    if (this.now() - this.lastRenew >= LEASE_RENEW_MS && !(await this.takeSeat())) {
      this.refuse({ code: 4409, error: 'seat_limit_reached', message: MESSAGES.seatsFull });
      return;
    }
    this.reads += msg.reads;
  }

  private async onHello(text: string): Promise<void> {
    let msg: { type?: unknown; license_key?: unknown; device_id?: unknown; format?: unknown };
    try { msg = JSON.parse(text); } catch { msg = {}; }
    if (msg.type !== 'hello') return this.refuse({ code: 4400, error: 'hello_expected', message: 'The first message must be {"type":"hello",...}.' });
    if (typeof msg.device_id !== 'string' || !DEVICE_ID.test(msg.device_id)) {
      return this.refuse({ code: 4400, error: 'bad_device_id', message: 'device_id must be 8 to 64 letters, digits, "-" or "_".' });
    }
    if (msg.format !== undefined && !(FORMATS as readonly unknown[]).includes(msg.format)) {
      return this.refuse({ code: 4400, error: 'bad_format', message: `format must be one of ${FORMATS.join(', ')}.` });
    }
    this.format = msg.format as Format | undefined;
    this.deviceId = msg.device_id;
    const checked = await checkScannerLicense(this.deps, msg.license_key, this.now());
    if ('error' in checked) {
      this.deps.log?.info({ event: 'scanner_refused', error: checked.error, device: this.deviceId }, 'scanner refused');
      return this.refuse(checked);
    }
    this.license = checked;
    if (!(await this.takeSeat())) {
      this.deps.log?.info({ event: 'scanner_seats_full', lid: checked.lid, device: this.deviceId }, 'scanner seats full');
      return this.refuse({ code: 4409, error: 'seat_limit_reached', message: MESSAGES.seatsFull });
    }
    this.send({
      type: 'ready',
      license: {
        org: checked.org, plan: checked.plan, seats: checked.seats, exp: checked.exp,
        grace_ends: checked.exp + GRACE_SECONDS, in_grace: licenseState(checked, this.now()).state === 'grace',
      },
      device_id: this.deviceId,
      lease_seconds: Math.round(this.leaseMs / 1000),
    });
  }

  private async takeSeat(): Promise<boolean> {
    if (!this.license) return false;
    const r = await this.deps.store.acquireSeat(this.license.lid, this.deviceId, 'scanner', this.license.seats, { name: this.agent }, this.leaseMs, this.now());
    this.lastRenew = this.now();
    return r.ok;
  }

  /** Adds the reads since the last flush to the device's machine record (a report, like an SDK machine's). */
  private async flushReads(): Promise<void> {
    if (!this.license || this.reads === 0) return;
    const n = this.reads;
    this.reads = 0;
    this.flushes++;
    await this.deps.store.recordMachineUsage(this.license.lid, this.deviceId, `scanner:${this.socketId}:${this.flushes}`, n, this.now(), 'scanner')
      .catch(() => undefined);
  }

  private async decodeFrame(frame: Buffer): Promise<FrameAnswer | null> {
    await this.hello;
    if (this.closed || !this.license) return null;
    try {
      // Renew the lease while frames flow. If the lease ran out (the tab slept past it) and
      // another device took the seat meanwhile, this device is told so and disconnected.
      if (this.now() - this.lastRenew >= LEASE_RENEW_MS && !(await this.takeSeat())) {
        this.refuse({ code: 4409, error: 'seat_limit_reached', message: MESSAGES.seatsFull });
        return null;
      }
      const tenant = `licence:${this.license.lid}`;
      if (!this.reader && this.deps.frames) this.reader = this.deps.frames({ format: this.format, gs1: 'auto' });
      const result: DecodeResult & { new?: boolean } = this.reader
        ? await this.reader.push(frame, tenant)
        : await this.deps.decode(frame, { format: this.format, gs1: 'auto' }, tenant);
      if (result.ok && result.text !== null) {
        const t = this.now();
        // a read is a symbol new in view (the FrameReader says so; else the same text within a moment is the same read)
        const isNew = result.new ?? (result.text !== this.lastText || t - this.lastTextAt > SAME_CODE_MS);
        if (isNew) this.reads++;
        this.lastText = result.text;
        this.lastTextAt = t;
      }
      return { body: { type: 'result', ...result } };
    } catch (err) {
      this.deps.log?.warn({ event: 'scanner_frame_failed', err: String(err) }, 'scanner frame failed');
      return { body: DROPPED };
    }
  }

  private onClose(): void {
    this.closed = true;
    this.frames.stop();
    this.reader?.close();
    clearTimeout(this.helloTimer);
    clearInterval(this.flushTimer);
    // The lease is kept (see the top of this file); only the last reads are written.
    void this.hello.then(() => this.flushReads()).catch(() => undefined);
    this.deps.log?.info({ event: 'scanner_closed', socket: this.socketId, device: this.deviceId || null }, 'scanner socket closed');
  }
}

export class ScannerSockets {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_IMAGE_BYTES });
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
    this.wss.handleUpgrade(req, socket, head, (ws) => new ScannerSession(ws, req, this.deps, this.now, this.leaseMs));
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
}
