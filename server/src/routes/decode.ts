// POST /v1/decode and /v2/decode (SPEC 4.1, 4.2), GET /v1/usage (SPEC 4.3).
//
// Order of checks, chosen so that everything that costs nothing (SPEC 7.1, 8) happens before a
// scan is taken: key (401) -> burst limit (429) -> query (400) -> body read with the 8 MB cap
// (413) -> content sniffing (400) -> pixel count (413 image_too_large) -> Idempotency-Key replay
// (409) -> atomic reservation (402) -> decode. A decode that finds nothing is still a scan.
import type Koa from 'koa';
import { createHash } from 'node:crypto';
import { ApiError } from '../errors';
import type { AppDeps, ServerModule } from '../app';
import { readImageBody } from '../body';
import { FORMATS, GS1_MODES, SPEEDS, type DecodeResult, type Format, type Gs1Mode, type Speed } from '../engine';
import { keyed } from './auth';
import { currentPeriod, dayOf } from '../store/period';
import type { ChargedScan, Customer, IdempotencyRef } from '../store/types';
import { StoreUnavailableError } from '../store/types';
import { ownerGone, processOwner } from '../owner';

/**
 * How long a keyed request in progress holds its record without renewing it: the owner renews it
 * every third of this while it works, so only an owner that is gone (crashed, killed, cut off)
 * lets it run out; a retry then resumes the request against the scan already taken.
 */
export const IDEMPOTENCY_LEASE_MS = 15_000;
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

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
export async function reserveAndDecode(deps: AppDeps, c: Customer, bytes: Buffer, params: DecodeParams, source: string, paid?: PaidThrough): Promise<ScanOutcome> {
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
    result = await deps.engine.decode(bytes, { format: params.format, gs1: params.gs1, speed: params.speed }, c.id);
  } catch (err) {
    await back();
    throw err;
  }
  deps.metrics.decodeSeconds.observe({ source }, Number(process.hrtime.bigint() - t0) / 1e9);
  const err = result.error ?? '';
  if (err.startsWith('decode_error:internal')) {
    await back();
    deps.logger.error({ error: err }, 'engine failure');
    throw new ApiError(500, 'engine_error', 'The decoder failed on this request; retry once after about a second.', {}, { 'Retry-After': '1' });
  }
  if (err.startsWith('decode_error:')) {
    await back();
    const detail = err.slice('decode_error:'.length);
    if (detail === 'image_too_large') {
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

function decodeHandler(deps: AppDeps, withQuota: boolean): Koa.Middleware {
  return async (ctx) => {
    const c = ctx.state.customer as Customer;
    const params = parseDecodeQuery(ctx.query);
    const bytes = await readImageBody(ctx.req, deps.config.maxBodyBytes);
    checkImage(deps, bytes);

    const idemKey = ctx.get('Idempotency-Key');
    let paid: PaidThrough | undefined;
    if (idemKey) {
      if (!IDEMPOTENCY_KEY.test(idemKey)) {
        throw new ApiError(400, 'invalid_idempotency_key', 'Idempotency-Key must be 1 to 255 visible ASCII characters.');
      }
      // same key + same request = same answer; the route and the options are part of "same"
      // (speed only when given, so records made before it existed keep their fingerprints)
      const fp = createHash('sha256').update(`${ctx.path}\n${params.format ?? ''}\n${params.gs1}\n${params.speed ? `${params.speed}\n` : ''}`).update(bytes).digest('hex');
      const begin = (takeOverFrom?: string) => deps.store.idempotencyBegin(c.id, idemKey, fp, processOwner, IDEMPOTENCY_LEASE_MS,
        deps.config.idempotencyTtlMs, deps.now(), takeOverFrom);
      let st = await begin();
      // the owner died mid-request (SIGKILL, crash) and this host can tell: resume now rather
      // than answer 409 until its lease runs out
      if (st.state === 'pending' && ownerGone(st.owner)) st = await begin(st.owner);
      if (st.state === 'done') {
        ctx.status = st.status;
        ctx.set('Idempotent-Replayed', 'true');
        ctx.type = 'application/json';
        ctx.body = st.body;
        return;
      }
      if (st.state === 'mismatch') {
        throw new ApiError(409, 'idempotency_key_reused', 'This Idempotency-Key was already used with a different request; use a new key for a new image.');
      }
      if (st.state === 'pending') {
        throw new ApiError(409, 'idempotency_in_progress', 'A request with this Idempotency-Key is still being processed; retry shortly.', {}, { 'Retry-After': '1' });
      }
      paid = { ref: { scope: c.id, key: idemKey }, charged: st.state === 'resumed' ? st.charged : null };
    }

    // while this request works, its lease is renewed: only an owner that is gone lets it lapse
    const renew = paid && setInterval(() => {
      deps.store.idempotencyRenew(c.id, idemKey, processOwner, IDEMPOTENCY_LEASE_MS, deps.now()).catch(() => undefined);
    }, IDEMPOTENCY_LEASE_MS / 3);
    try {
      const { result, used } = await reserveAndDecode(deps, c, bytes, params, withQuota ? 'v2' : 'v1', paid);
      const body: Record<string, unknown> = { ...result };
      if (withQuota) {
        const u = await usageRecord(deps, c, used);
        body.quota = { used: u.used, remaining: u.remaining, limit: u.quota, resets_on: u.resets_on };
      }
      const text = JSON.stringify(body);
      if (paid) {
        try {
          await deps.store.idempotencyComplete(c.id, idemKey, 200, text, deps.config.idempotencyTtlMs, deps.now());
        } catch (e) {
          // the scan is counted and the answer is good: give it to the client anyway
          deps.logger.warn({ err: (e as Error).message }, 'could not store the idempotent answer');
        }
      }
      ctx.status = 200;
      ctx.type = 'application/json';
      ctx.body = text;
    } catch (err) {
      if (paid && !(err instanceof StoreUnavailableError)) {
        await deps.store.idempotencyAbort(c.id, idemKey, processOwner).catch(() => undefined);
      }
      throw err;
    } finally {
      if (renew) clearInterval(renew);
    }
  };
}

export const decodeModule: ServerModule = {
  name: 'decode',
  register({ router, deps }) {
    const auth = keyed(deps);
    router.post('/v1/decode', auth, decodeHandler(deps, false));
    router.post('/v2/decode', auth, decodeHandler(deps, true));
    router.get('/v1/usage', auth, async (ctx) => {
      ctx.body = await usageRecord(deps, ctx.state.customer as Customer);
    });
  },
};
