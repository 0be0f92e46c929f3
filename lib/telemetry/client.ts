/**
 * Background registration and usage reporting (docs/ARCHITECTURE.md, "SDK background protocol").
 *
 * Rules this file keeps (SPEC 1 rule 1, 2.5 rule 4):
 * - nothing here is awaited by a decode: scans only bump a counter (`countScan`);
 * - every timer and socket is unref'd, so telemetry never keeps a process alive;
 * - failures set `cloudOk=false` and `cloudError`, and log ONE warning per outage;
 * - a retried usage report carries the same `report_id`, so the server counts it once.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import * as os from 'node:os';
import { randomBytes } from 'node:crypto';
import { machineIdentity, MachineIdentity } from './identity';
import { tlsSettings } from './tls';
import { MAX_REPORT_SCANS } from './limits';

export interface TelemetryOptions {
  /** Service base URL (from the licence, else the stamp). */
  url: string;
  licenseKey: string;
  licenseId: string;
  sdkVersion: string;
  warn: (msg: string) => void;
  /** Heartbeat and usage report period. Default 60 s. */
  heartbeatMs?: number;
  /** Per-request bound; a hanging service counts as unreachable after it. Default 2.5 s. */
  requestTimeoutMs?: number;
  /** Bound on `close()` flushing the last count. Default 1.5 s. */
  closeTimeoutMs?: number;
  /** State folder (default: DOTCODE_STATE_DIR or ~/.local/state/dotcode-sdk). */
  stateDir?: string;
  env?: NodeJS.ProcessEnv;
}

interface Reply { status: number; body: { ok?: boolean; error?: string; message?: string; [k: string]: unknown } }

export class TelemetryClient {
  /** True once the service has answered registration / the last report successfully. */
  cloudOk = false;
  /** Why the service is not reached (null while the first registration is pending, or when ok). */
  cloudError: string | null = null;
  /** The machine id used with the service, once known. */
  machineId: string | null = null;
  /** Seats and seats in use, from the last successful registration. */
  seats: { seats: number; seats_used: number } | null = null;

  private readonly o: Required<Omit<TelemetryOptions, 'stateDir' | 'env'>> & Pick<TelemetryOptions, 'stateDir' | 'env'>;
  private readonly base: URL | null;
  private registered = false;
  private attempted = false;
  private scans = 0;
  /** A report sent but not acknowledged: resent as is (same report_id). */
  private unacked: { report_id: string; scans: number } | null = null;
  private timer: NodeJS.Timeout | null = null;
  private busy: Promise<void> | null = null;
  private closed = false;
  private warnedOutage = false;
  private warnedSeats = false;
  private failures = 0;
  private readonly inflight = new Set<http.ClientRequest>();
  private identity: MachineIdentity | null = null;

  constructor(opts: TelemetryOptions) {
    // Options left undefined keep their defaults (a plain spread would overwrite them).
    const defined = Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined)) as TelemetryOptions;
    this.o = { heartbeatMs: 60_000, requestTimeoutMs: 2500, closeTimeoutMs: 1500, ...defined };
    let base: URL | null = null;
    try {
      base = opts.url ? new URL(opts.url) : null;
      if (base && base.protocol !== 'http:' && base.protocol !== 'https:') base = null;
    } catch { base = null; }
    this.base = base;
  }

  /** Starts registration on the next turn of the event loop (never inside the constructor). */
  start(): void {
    if (!this.base) {
      this.fail(this.o.url ? `service URL "${this.o.url}" is not an http(s) URL` : 'no service URL in the licence or the SDK stamp');
      return;
    }
    this.schedule(0);
  }

  /** Counts one decode attempt. O(1), no I/O. */
  countScan(n = 1): void {
    this.scans += n;
  }

  /** Scans counted and not yet acknowledged by the service. */
  get pendingScans(): number {
    return this.scans + (this.unacked?.scans ?? 0);
  }

  /** Stops the timers and flushes the last count, waiting at most `closeTimeoutMs`. Never throws. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.base) return;
    const flush = (async () => {
      if (this.busy) await this.busy;              // e.g. a registration still on its way
      // A short synchronous script (construct, decodeSync, close) closes before the first timer
      // ever ran: register now so its machine and scans are still known to the service.
      if (!this.registered && !this.attempted) await this.register();
      if (this.registered && this.pendingScans > 0) await this.report();
    })();
    let bound: NodeJS.Timeout | undefined;
    // This timer is deliberately NOT unref'd: it keeps the process alive for the short flush.
    await Promise.race([flush.catch(() => {}), new Promise<void>((r) => { bound = setTimeout(r, this.o.closeTimeoutMs); })]);
    clearTimeout(bound);
    for (const req of this.inflight) req.destroy(new Error('scanner closed'));
  }

  private schedule(ms: number): void {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.busy) return this.schedule(this.o.heartbeatMs);
      this.busy = this.tick().finally(() => { this.busy = null; });
    }, ms);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    if (!this.registered) {
      await this.register();
    } else {
      await this.report();
    }
    if (this.closed) return;
    // Back off while failing (1 s, 2 s, 4 s ... up to the heartbeat period), else heartbeat.
    const delay = this.failures > 0 ? Math.min(this.o.heartbeatMs, 1000 * 2 ** Math.min(this.failures - 1, 10)) : this.o.heartbeatMs;
    this.schedule(delay);
  }

  private async register(): Promise<void> {
    this.attempted = true;
    try {
      this.identity ??= await machineIdentity(this.o.licenseId, { dir: this.o.stateDir ?? (this.o.env?.DOTCODE_STATE_DIR || undefined) });
    } catch (e) {
      this.fail(`machine identity: ${(e as Error).message}`);
      return;
    }
    this.machineId = this.identity.machineId;
    const r = await this.post('/v1/sdk/register', {
      machine_id: this.identity.machineId, hostname: os.hostname(), platform: `${process.platform}-${process.arch}`, sdk_version: this.o.sdkVersion,
    });
    if (!r) return;
    if (r.status === 200 && r.body.ok !== false) {
      this.registered = true;
      if (typeof r.body.seats === 'number' && typeof r.body.seats_used === 'number') this.seats = { seats: r.body.seats, seats_used: r.body.seats_used };
      this.succeed();
    } else if (r.status === 409) {
      // Over the seat count: the service has answered, but this machine holds no seat. Keep
      // scanning (SPEC 3.1), say so once, and try again each heartbeat in case a seat frees up.
      this.failures = 0;
      this.cloudOk = false;
      const detail = (typeof r.body.message === 'string' ? r.body.message : 'all the machines on this licence are registered')
        .replace(/^seat limit reached:?\s*/i, '');
      this.cloudError = `seat_limit_reached: ${detail}`;
      if (!this.warnedSeats) {
        this.warnedSeats = true;
        this.o.warn(`seat limit reached: ${detail} (this machine is not registered; scanning continues)`);
      }
    } else {
      this.fail(this.describe('/v1/sdk/register', r));
    }
  }

  private async report(): Promise<void> {
    if (!this.identity) return;
    if (!this.unacked) {
      // A heartbeat is a report of 0 scans.
      // a backlog larger than one report may carry goes out over several reports
      const scans = Math.min(this.scans, MAX_REPORT_SCANS);
      this.unacked = { report_id: randomBytes(12).toString('hex'), scans };
      this.scans -= scans;
    }
    const sent = this.unacked;
    const r = await this.post('/v1/sdk/usage', { machine_id: this.identity.machineId, scans: sent.scans, report_id: sent.report_id });
    if (!r) return;
    if (r.status === 200 && r.body.ok !== false) {
      if (this.unacked === sent) this.unacked = null;
      this.succeed();
    } else if (r.status === 409 || (r.status === 404 && r.body.error === 'machine_not_registered')) {
      // The service no longer knows this machine (seat lease lost): register again next tick.
      this.registered = false;
      this.fail(this.describe('/v1/sdk/usage', r));
    } else {
      this.fail(this.describe('/v1/sdk/usage', r));
    }
  }

  private describe(path: string, r: Reply): string {
    const code = typeof r.body.error === 'string' ? r.body.error : `HTTP ${r.status}`;
    const msg = typeof r.body.message === 'string' ? `: ${r.body.message}` : '';
    return `${path} answered ${r.status} ${code}${msg}`;
  }

  private succeed(): void {
    this.failures = 0;
    this.cloudOk = true;
    this.cloudError = null;
    this.warnedOutage = false;
  }

  private fail(reason: string): void {
    this.failures += 1;
    this.cloudOk = false;
    this.cloudError = reason;
    if (!this.warnedOutage) {
      this.warnedOutage = true;
      this.o.warn(`licence service not reached (${reason}); scanning continues offline, this machine's usage is reported when the service is back`);
    }
  }

  /** One POST with a hard deadline. Resolves null on a network failure (after calling fail). */
  private post(path: string, body: unknown): Promise<Reply | null> {
    const base = this.base!;
    const url = new URL(path.replace(/^\//, ''), base.href.endsWith('/') ? base.href : base.href + '/');
    const data = Buffer.from(JSON.stringify(body));
    const tlsOpts = url.protocol === 'https:' ? tlsSettings(this.o.env ?? process.env, this.o.warn) : null;
    if (tlsOpts?.problem) {
      this.fail(tlsOpts.problem);
      return Promise.resolve(null);
    }
    return new Promise((resolve) => {
      let done = false;
      const finish = (v: Reply | null, err?: Error): void => {
        if (done) return;
        done = true;
        clearTimeout(deadline);
        this.inflight.delete(req);
        // Requests cut short by close() are not an outage worth a warning.
        if (err && !(this.closed && err.message === 'scanner closed')) this.fail(`${path}: ${err.message}`);
        resolve(v);
      };
      const options: https.RequestOptions = {
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': data.length,
          authorization: `License ${this.o.licenseKey}`,
          'user-agent': `dotcode-sdk/${this.o.sdkVersion} node/${process.versions.node}`,
        },
        ...(tlsOpts ? { ca: tlsOpts.ca, rejectUnauthorized: tlsOpts.rejectUnauthorized, checkServerIdentity: tlsOpts.checkServerIdentity } : {}),
      };
      const req = (url.protocol === 'https:' ? https : http).request(url, options, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > 65536) req.destroy(new Error('answer larger than 64 KiB'));
          else chunks.push(c);
        });
        res.on('end', () => {
          let parsed: Reply['body'] = {};
          try { parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')); } catch { /* non-JSON error page: status says enough */ }
          finish({ status: res.statusCode ?? 0, body: parsed && typeof parsed === 'object' ? parsed : {} });
        });
        res.on('error', (e) => finish(null, e));
      });
      this.inflight.add(req);
      req.on('socket', (s) => s.unref());
      req.on('error', (e) => finish(null, e));
      const deadline = setTimeout(() => req.destroy(new Error(`no answer within ${this.o.requestTimeoutMs} ms`)), this.o.requestTimeoutMs);
      deadline.unref();
      req.end(data);
    });
  }
}
