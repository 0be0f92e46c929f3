/**
 * The SDK's front door: `new Scanner(licenseKey, options)` (SPEC 2.5, DESIGN.md section 4).
 *
 * The licence is verified offline, synchronously, in the constructor; after that the network is
 * never on the scan path. Decoding is delegated to the one engine (lib/engine); this class adds
 * the licence gate, the `fields`/`field(ai)` members and the scan counter of the telemetry.
 */
import * as engine from './engine';
import type { DecodeAllResult, DecodeOptions, DecodeResult, Format, Gs1Mode, ImageInput, Speed, SymbolResult } from './engine';
import { LicenseError } from './errors';
import { checkEntitlement, LicenseFeature, LicensePayload, licenseState, readStamp, packageRoot, Stamp, type TrustedKey } from './license';
import { TelemetryClient } from './telemetry/client';
import { version } from './version';

/** What `scanner.license` tells about the verified licence. */
export interface ScannerLicense {
  /** Licence id (as shown in the supplier's portal). */
  id: string;
  org: string;
  plan: string;
  /** Number of machines the licence covers. */
  seats: number;
  /** End of term, Unix seconds. A grace period of 14 days follows. */
  exp: number;
  features: LicenseFeature[];
}

export interface ScannerOptions {
  /** Parse GS1 payloads into `gs1` / `fields` (default true). false = `gs1` always null. */
  parseGs1?: boolean;
  /**
   * Background registration and usage reporting (default true). false makes no network
   * connection at all (air-gapped mode); decoding is unaffected.
   */
  telemetry?: boolean;
  /** Where warnings go (grace period, service not reached, seat limit). Default: console.warn. */
  logger?: { warn(message: string): void };
  /** Tuning of the background calls; the defaults suit production. */
  cloud?: {
    /** Heartbeat / usage report period in ms (default 60000). */
    heartbeatMs?: number;
    /** Bound on each background request in ms (default 2500). */
    requestTimeoutMs?: number;
    /** Bound on the final flush in `close()` in ms (default 1500). */
    closeTimeoutMs?: number;
    /** State folder shared by the processes of this machine (default `DOTCODE_STATE_DIR` or ~/.local/state/dotcode-sdk). */
    stateDir?: string;
  };
}

/** Per-call options. */
export interface ScanOptions {
  /** Read only this symbology (faster); default: DotCode first, then the others. */
  format?: Format;
  /** Override the scanner's GS1 mode for this call: `auto`, `always` or `off`. */
  gs1?: Gs1Mode;
  /** `balanced` (default), `video` for live camera frames, or `thorough` (docs/engine.md, "Speed"). */
  speed?: Speed;
}

/** The SDK result members: the Cloud API JSON members plus `fields` and `field(ai)`. */
export interface ScanResult extends DecodeResult {
  /** Map from GS1 AI to raw value (`{}` when the payload is not GS1 or parsing is off). */
  fields: Record<string, string>;
  /** The raw value of one AI (`'17'` or `'(17)'`), or null when absent. Not serialised by JSON.stringify. */
  field(ai: string): string | null;
}

export type ScanSymbol = SymbolResult & Pick<ScanResult, 'fields' | 'field'>;

export interface ScanAllResult extends Omit<DecodeAllResult, 'symbols'> {
  symbols: ScanSymbol[];
}

/** Options of {@link Scanner.frameReader}: the engine FrameReader's. */
export type ScannerFrameReaderOptions = engine.FrameReaderOptions;

/** A frame's answer: the scan result plus `frames_used` and `new` (engine FrameResult). */
export type ScanFrameResult = ScanResult & Pick<engine.FrameResult, 'frames_used' | 'new'>;

/** Frames in, results out; one per camera stream (its tracks are that stream's). */
export interface ScannerFrameReader {
  push(frame: ImageInput): Promise<ScanFrameResult>;
  /** Forgets every symbol and track (a new scene). */
  reset(): void;
  close(): void;
}

function withFields<T extends DecodeResult>(r: T): T & Pick<ScanResult, 'fields' | 'field'> {
  const fields: Record<string, string> = r.gs1?.fields ? { ...r.gs1.fields } : {};
  const out = r as T & Pick<ScanResult, 'fields' | 'field'>;
  out.fields = fields;
  // Non-enumerable: JSON.stringify(result) gives the same members as the Cloud API answer.
  Object.defineProperty(out, 'field', {
    enumerable: false,
    value: (ai: string): string | null => {
      const key = String(ai).replace(/^\((\d+)\)$/, '$1');
      return Object.hasOwn(fields, key) ? fields[key] : null;
    },
  });
  return out;
}

function refusal(error: string): ScanResult {
  return withFields<DecodeResult>({ ok: false, text: null, format: null, via: 'none', elapsed_ms: 0, error, gs1: null });
}

/**
 * Two tiny symbols (a QR Code "warm" and a DotCode "Warm 123", rendered with bwip-js) decoded a
 * few times in parallel when the first Scanner is built (the DotCode in the caller's thread, the
 * QR Code through each zxing worker). Starting the threads alone leaves the
 * first real decode at 100-500 ms (sharp's first image, the DotCode reader's first run, and
 * zxing-wasm still in its baseline tier); reading real symbols once or twice warms those paths.
 */
const WARM_IMAGES = [
  'iVBORw0KGgoAAAANSUhEUgAAAGQAAABkCAYAAABw4pVUAAAAHnRFWHRTb2Z0d2FyZQBid2lwLWpzLm1ldGFmbG9vci5jb21Tnbi0AAACRklEQVR4nO2YwaojQQwD5/9/evc8aYgRUncrjxLMaWxLdgVC8vxDVXpuB0BvAaRMACkTQMoEkDIBpEwAKdMI5Hmeo4+axz5A234/FxggZYEBUhYYINkDqPPd966/K4CE/V0BJOzvCiBhf1fHgbhfarsPMqltP4CU7QeQsv0AUrbfzwFR/Vx/gIh5AHI7MEDKAgOkK7Cbt30/gJTtB5Cy/QBStt/P/bm4u/70fkt9eqAqgHzUpweqAshHfXqgKoB81KsDdz/qQun3p/cDSNl+ACnbDyBl+8lAbssFqB7ktuoTAqRMACkTQNIGm78EJz83327/pV/uUA0AovXLHaoBQLR+uUM1AIjWnzaY6k8fLJ0nnW+Zpxq69QAZ5qmGbj1AhnmqoVsPkGGeG8DtVw+W7k8LIAABiLKf3H/cECDf+10D9WBq4N0HTwOz86gGagCAAAQgAAnmUQ3cejXwbSC7P1BLfXwgQKT8S318IECk/Et9fCBApPxL/VhxWe7B0h8At36cZ0/YLICUCSBlAshg2H4gt3/3PqP/6YAAGfxPBwTI4H86IEAG//RCcgATyO33aQEEINr89vdpAeSvAXG/5Nz57rzdUv0AslkAAQhAvunPAVHzyQcI19t5dgcACEAAApBgnt0BdgNJ570tgABEmy8vBBCAJFX/5+Lp/tMfoGW+GjgeACDv+WrgeACAvOergeMBAPKe7wZOP2oe+wBmvjRAgAAEIF/zpAMDxMt7/5cQegkgZQJImQBSJoCUCSBlAkiZAFKm/2L5Ek1HDRj5AAAAAElFTkSuQmCC',
  'iVBORw0KGgoAAAANSUhEUgAAAGUAAABJCAYAAAAkEuiCAAAAHnRFWHRTb2Z0d2FyZQBid2lwLWpzLm1ldGFmbG9vci5jb21Tnbi0AAACLklEQVR4nO2YyW7EMAxD8/8/7d4GRZZqoWgpUxLoIbBEyXleMj2WNE5HdwPSVYIyUIIyUIIyUIIyUIIyUIIyUC4ox3F8/jLjqNj12flRfzPqt+GdsTWOil2fnZ/xFxRBiUtQHIUzz5Zfdb3oC0bj0fle4l1RDwUyK6N7HBXbfwlKXIIiKLnGKp4tf3QcfYGoXzg+1eVDwY6Vi/Y3MV9QBuYLysB8yp1ixUf9UaH9Vueb/SITZKz8bn/2uKvH6kmh6vYXlIH+r4RyLrwjnn3HoOPV/dI/hdCVw945qBj9CQooQREUXyOMeCu/+k5Ax9vvlO6V2/31hI675hhOEBRBidafPu6aoyuo+My0/KP1o/1Vj1e/HzOLvTMmrExm/ynPjqIRf0HZVDTiLyiOwnfPcBPkOyIaX+0X1bivr27/7p23BEVQXuH/Sihrw++C7juLPT+z39QsHwpmVt70ndExP0ERFEHZAuVcuOI5Wq+7P3T8Eu+KCoi9M9j57J3r6rHcUFBgCcq3QkHP4Oo7IhqP9lMt+tdXd/4bdsZZgiIo+/P/JZS14YxH86N+0fmifpf8VNZfhuSV273yd9QXlM3zc9Uo7NfVVPd49/xcNaKNZOLRMx59rha7HzMKJc/OZ++Mjv4EBZSgCMq98d1zND58xoL1UL/q/kw/V9RDgczKYK/s6f15JCiCIigepSruPrO/rT9L/f8SlS4SlIESlIESlIESlIESlIESlIESlIH6AR9U6z63TfuYAAAAAElFTkSuQmCC',
];
let warming: Promise<void> | null = null;
/** Set by the first real decode: the warm-up then stops, so it never queues ahead of real work. */
let realWorkStarted = false;

function warmEngine(): Promise<void> {
  warming ??= (async () => {
    await engine.warmUp();
    const lanes = Math.max(1, engine.engineInfo().workers);
    const images = WARM_IMAGES.map((b) => Buffer.from(b, 'base64'));
    for (let round = 0; round < 2; round += 1) {
      for (const img of images) {
        if (realWorkStarted) return;
        await Promise.all(Array.from({ length: lanes }, () => engine.decode(img)));
      }
    }
  })().catch(() => { /* a broken engine shows itself on the first real decode */ });
  return warming;
}

const isoDay = (unix: number): string => new Date(unix * 1000).toISOString().slice(0, 10);

/**
 * Reads the stamp of this package; an unstamped or damaged package refuses every key, with a
 * message that says how to fix it (the customer cannot: the supplier stamps the SDK).
 */
function trustedStamp(): Stamp {
  let root = '(unknown)';
  let stamp: Stamp | null;
  try {
    root = packageRoot();
    stamp = readStamp(root);
  } catch (e) {
    throw new LicenseError('sdk_not_stamped', `invalid license key: cannot read this SDK's supplier stamp (${(e as Error).message}); reinstall the SDK from your supplier's download link`);
  }
  if (!stamp || stamp.keys.length === 0) {
    throw new LicenseError('sdk_not_stamped', `invalid license key: this SDK package is not stamped with a supplier public key (no usable supplier.json in ${root}), so it cannot trust any key. Install the SDK from your supplier's download (/v1/sdk/download, stamped), or, as the supplier, run "dotcode admin stamp --data <data dir> ${root}"`);
  }
  return stamp;
}

export class Scanner {
  /** The verified licence. */
  readonly license: Readonly<ScannerLicense>;

  private readonly trusted: readonly TrustedKey[];
  private readonly gs1Mode: Gs1Mode;
  private readonly telemetry: TelemetryClient | null;
  private closed = false;
  private readonly warn: (m: string) => void;
  private readonly payload: LicensePayload;
  private graceWarned = false;

  /**
   * Verifies `licenseKey` offline and starts warming the decoder and (unless `telemetry:false`)
   * the background registration. Throws {@link LicenseError}: `invalid license key ...` or
   * `license expired ...`.
   */
  constructor(licenseKey: string, options: ScannerOptions = {}) {
    const sink = options.logger ? (m: string) => options.logger!.warn(m) : (m: string) => console.warn(`dotcode-sdk: ${m}`);
    // Warnings are also logged from timers: a throwing logger must not take the process down.
    const warn = (m: string): void => { try { sink(m); } catch { /* the logger's problem, not the scan's */ } };
    this.warn = warn;
    const stamp = trustedStamp();
    // The SDK checks offline: no revocation list, and no feature here (a Live-Scanner-only key
    // constructs; each decode then answers feature_not_licensed, SPEC 1 rule 3).
    const answer = checkEntitlement(licenseKey, { trusted: stamp.keys });
    if (!answer.ok) throw new LicenseError(answer.code === 'license_expired' ? 'license_expired' : 'invalid_license', answer.message);
    const p = answer.payload;
    this.payload = p;
    if (answer.state.state === 'grace') this.warnGrace();
    this.license = Object.freeze({ id: p.lid, org: p.org, plan: p.plan, seats: p.seats, exp: p.exp, features: Object.freeze([...p.features]) as LicenseFeature[] });
    this.trusted = stamp.keys;
    this.gs1Mode = options.parseGs1 === false ? 'off' : 'auto';

    // Warm the engine now (once per process) so the first decode is not the slow one.
    if (p.features.includes('sdk')) void warmEngine();

    if (options.telemetry === false) {
      this.telemetry = null;
    } else {
      this.telemetry = new TelemetryClient({
        url: p.url || stamp.url,
        licenseKey,
        licenseId: p.lid,
        sdkVersion: version,
        warn,
        heartbeatMs: options.cloud?.heartbeatMs,
        requestTimeoutMs: options.cloud?.requestTimeoutMs,
        closeTimeoutMs: options.cloud?.closeTimeoutMs,
        stateDir: options.cloud?.stateDir,
      });
      this.telemetry.start();
    }
  }

  /** Whether background registration and reporting reach the service (false with telemetry off). */
  get cloudOk(): boolean {
    return this.telemetry?.cloudOk ?? false;
  }

  /** Why the service is not reached; null when it is, or while the first registration is pending. */
  get cloudError(): string | null {
    if (!this.telemetry) return 'telemetry disabled';
    return this.telemetry.cloudError;
  }

  /** Logs the grace-period warning, once per Scanner (at construction, or when the term ends while it runs). */
  private warnGrace(): void {
    if (this.graceWarned) return;
    this.graceWarned = true;
    const p = this.payload;
    const st = licenseState(p);
    this.warn(`the licence of ${p.org} (${p.lid}) ended on ${isoDay(st.termEnds)}; scanning continues during the grace period, ${st.daysLeft} day(s) left (until ${isoDay(st.graceEnds)}): renew it before then`);
  }

  /** The licence gate of every decode: null when decoding may run, else the SPEC 7.2 error. */
  private gate(): string | null {
    if (this.closed) throw new Error('this Scanner is closed; create a new one');
    realWorkStarted = true;
    // the payload verified by the constructor: the policy without a second signature check
    const answer = checkEntitlement(this.payload, { trusted: this.trusted, feature: 'sdk' });
    if (!answer.ok) return answer.code === 'license_expired' ? 'license_expired:renew_required' : answer.code;
    if (answer.state.state === 'grace') this.warnGrace();
    return null;
  }

  private opts(o?: ScanOptions): DecodeOptions {
    return { format: o?.format, gs1: o?.gs1 ?? this.gs1Mode, speed: o?.speed };
  }

  /**
   * Decodes one image off the main thread. `input`: a file path, PNG/JPEG bytes, a raw frame
   * `{data, width, height, channels}` or an OpenCV Mat. Never rejects for bad input: answers
   * `ok:false` with `error` `no_dotcode_found` or `decode_error:<detail>`.
   */
  async decode(input: ImageInput, options?: ScanOptions): Promise<ScanResult> {
    const refused = this.gate();
    if (refused) return refusal(refused);
    this.telemetry?.countScan();
    return withFields(await engine.decode(input, this.opts(options)));
  }

  /** Like {@link decode}, synchronously (blocks the calling thread for the decode time). */
  decodeSync(input: ImageInput, options?: ScanOptions): ScanResult {
    const refused = this.gate();
    if (refused) return refusal(refused);
    this.telemetry?.countScan();
    return withFields(engine.decodeSync(input, this.opts(options)));
  }

  /** Every symbol in the image, each with `fields` and `field(ai)`. */
  async decodeAll(input: ImageInput, options?: ScanOptions): Promise<ScanAllResult> {
    const refused = this.gate();
    if (refused) return { ok: false, symbols: [], elapsed_ms: 0, error: refused };
    this.telemetry?.countScan();
    const r = await engine.decodeAll(input, this.opts(options));
    return { ...r, symbols: r.symbols.map((s) => withFields(s)) };
  }

  /**
   * A reader of camera frames under this scanner's licence (docs/engine.md, "Video:
   * FrameReader"): DotCode is tracked and fused over frames, each push answers the result plus
   * `frames_used` and `new`. Every push passes the licence gate and counts as one scan, as a
   * decode does. Options: `format`, `gs1` (default the scanner's), `speed`, `maxFrames`, `leaveAfter`.
   */
  frameReader(options: ScannerFrameReaderOptions = {}): ScannerFrameReader {
    const reader = new engine.FrameReader({ ...options, gs1: options.gs1 ?? this.gs1Mode });
    const push = async (frame: ImageInput): Promise<ScanFrameResult> => {
      const refused = this.gate();
      if (refused) return { ...refusal(refused), frames_used: 0, new: false };
      this.telemetry?.countScan();
      return withFields(await reader.push(frame));
    };
    return { push, reset: () => reader.reset(), close: () => reader.close() };
  }

  /** Releases the scanner and flushes the last usage count (bounded: about 1.5 s at most). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.telemetry?.close();
  }
}
