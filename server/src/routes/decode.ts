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
import { checkImage, parseDecodeQuery, reserveAndDecode, usageRecord, type PaidThrough } from '../metering';
import { keyed } from './auth';
import type { Customer } from '../store/types';
import { StoreUnavailableError } from '../store/types';
import { ownerGone, processOwner } from '../owner';

/**
 * How long a keyed request in progress holds its record without renewing it: the owner renews it
 * every third of this while it works, so only an owner that is gone (crashed, killed, cut off)
 * lets it run out; a retry then resumes the request against the scan already taken.
 */
export const IDEMPOTENCY_LEASE_MS = 15_000;
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

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
