// Metered decoding: the one way any entry point (POST /v1/decode and /v2/decode, the /v1/live
// socket, whatever comes next) turns an uploaded image into a charged scan. Each entry point
// reads its own bytes and answers in its own shape; what is checked, taken and given back is here.
//
// Order, chosen so that everything that costs nothing (SPEC 7.1, 8) happens before a scan is
// taken: query (400) -> content sniffing (400) -> pixel count (413 image_too_large) -> atomic
// reservation (402) -> decode -> give-back when the bytes were not a readable image (400) or the
// engine failed (500). A decode that finds nothing is still a scan.
import { ApiError } from './errors';
import type { AppDeps } from './app';
import { DECODE_ERROR_PREFIX, decodeErrorCode, FORMATS, GS1_MODES, isInternalError, SPEEDS, type DecodeResult, type Format, type FrameSession, type Gs1Mode, type Speed } from './engine';
import { currentPeriod, dayOf } from './store/period';
import type { ChargedScan, Customer, IdempotencyRef } from './store/types';

/** `speed` is our extension of SPEC 4.1 (docs/api.md): absent means the engine's default, balanced. */
export interface DecodeParams { format?: Format; gs1: Gs1Mode; speed?: Speed }

export function parseDecodeQuery(q: Record<string, unknown>): DecodeParams {
  const one = (name: string): string | undefined => {
    const v = q[name];
    if (Array.isArray(v)) throw new ApiError(400, 'invalid_parameter', `Query parameter "${name}" is given more than once.`);
    return v === undefined || v === '' ? undefined : String(v);
  };
  const format = one('format');
  if (format !== undefined && !(FORMATS as readonly string[]).includes(format)) {
    throw new ApiError(400, 'invalid_format', `Unknown format "${format}"; use one of ${FORMATS.join(', ')}.`);
  }
  const gs1 = one('gs1') ?? 'auto';
  if (!(GS1_MODES as readonly string[]).includes(gs1)) {
    throw new ApiError(400, 'invalid_gs1', `Unknown gs1 mode "${gs1}"; use auto, always or off.`);
  }
  const speed = one('speed');
  if (speed !== undefined && !(SPEEDS as readonly string[]).includes(speed)) {
    throw new ApiError(400, 'invalid_parameter', `Unknown speed "${speed}"; use ${SPEEDS.join(', ')}.`);
  }
  return { format: format as Format | undefined, gs1: gs1 as Gs1Mode, speed: speed as Speed | undefined };
}

/** What a quota answer says (GET /v1/usage, and the `quota` member of /v2/decode). */
export async function usageRecord(deps: AppDeps, c: Customer, used?: number) {
  const p = currentPeriod(c.signup, deps.now());
  const u = used ?? await deps.store.usage(c.id, p.start);
  return { plan: c.plan, quota: c.quota, used: u, remaining: Math.max(0, c.quota - u), resets_on: p.resetsOn };
}

/** Refuses bytes that are not PNG/JPEG, and images over the pixel cap, before any scan is taken. */
export function checkImage(deps: AppDeps, bytes: Buffer): void {
  const probe = deps.engine.probeImage(bytes);
  if (probe.type !== 'png' && probe.type !== 'jpeg') {
    throw new ApiError(400, 'unsupported_image', 'The body is not a PNG or JPEG image (checked by content, not by name or Content-Type).');
  }
  if (probe.width !== null && probe.height !== null && probe.width * probe.height > deps.config.maxPixels) {
    throw new ApiError(413, 'image_too_large', `The image is ${probe.width}x${probe.height} pixels, over the limit of about ${Math.round(deps.config.maxPixels / 1e6)} megapixels; scale it down.`);
  }
}

export interface ScanOutcome { result: DecodeResult; used: number }

/** A keyed request: the record the scan is paid through, and the scan a crashed owner already took. */
export interface PaidThrough { ref: IdempotencyRef; charged: ChargedScan | null }

/**
 * Takes one scan atomically, then decodes. 402 when none is left. A result that says the bytes
 * were not a readable image gives the scan back and answers 400 (SPEC 7.1: 400 costs nothing);
 * an engine failure gives it back and answers 500. Used by the HTTP routes and the live socket.
 */
export async function reserveAndDecode(deps: AppDeps, c: Customer, bytes: Buffer, params: DecodeParams, source: string, paid?: PaidThrough,
  frames?: FrameSession): Promise<ScanOutcome> {
  const now = deps.now();
  const p = currentPeriod(c.signup, now);
  const day = dayOf(now);
  // a retry of a keyed request whose first owner died after paying: decode against that scan
  const charged = paid?.charged ?? null;
  const r = charged
    ? { ok: true, used: await deps.store.usage(c.id, p.start) }
    : await deps.store.reserveScan(c.id, p.start, day, c.quota, paid?.ref);
  const back = () => charged ? giveBack(deps, c.id, charged.period, charged.day, paid?.ref) : giveBack(deps, c.id, p.start, day, paid?.ref);
  if (!r.ok) {
    deps.metrics.scans.inc({ source, outcome: 'quota_exhausted' });
    throw new ApiError(402, 'quota_exhausted', `The ${c.quota} scans of this period are used; the quota resets on ${p.resetsOn}.`,
      { quota: c.quota, used: r.used, remaining: 0, resets_on: p.resetsOn });
  }
  let result: DecodeResult;
  const t0 = process.hrtime.bigint();
  try {
    // a live stream's frames go through its FrameReader (fused over frames), one scan each all the same
    result = frames ? await frames.push(bytes, c.id) : await deps.engine.decode(bytes, { format: params.format, gs1: params.gs1, speed: params.speed }, c.id);
  } catch (err) {
    await back();
    throw err;
  }
  deps.metrics.decodeSeconds.observe({ source }, Number(process.hrtime.bigint() - t0) / 1e9);
  if (isInternalError(result.error)) {
    await back();
    deps.logger.error({ error: result.error }, 'engine failure');
    throw new ApiError(500, 'engine_error', 'The decoder failed on this request; retry once after about a second.', {}, { 'Retry-After': '1' });
  }
  const failure = decodeErrorCode(result.error);
  if (failure) {
    await back();
    const detail = result.error!.slice(DECODE_ERROR_PREFIX.length);
    if (failure === 'image_too_large') {
      throw new ApiError(413, 'image_too_large', `The image is over the limit of about ${Math.round(deps.config.maxPixels / 1e6)} megapixels; scale it down.`);
    }
    throw new ApiError(400, 'unreadable_image', `The image could not be read (${detail}); nothing was charged.`);
  }
  deps.metrics.scans.inc({ source, outcome: result.ok ? 'read' : 'not_found' });
  return { result, used: r.used };
}

async function giveBack(deps: AppDeps, customerId: string, period: string, day: string, paidBy?: IdempotencyRef): Promise<void> {
  try {
    await deps.store.releaseScan(customerId, period, day, paidBy);
  } catch (e) {
    // the scan stays counted: over-counting one failed request beats decoding for free
    deps.logger.warn({ err: (e as Error).message }, 'could not give back a scan');
  }
}

