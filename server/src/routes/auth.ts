// API-key authentication and the per-key burst limiter, shared by every keyed route.
import type Koa from 'koa';
import { ApiError } from '../errors';
import type { AppDeps } from '../app';
import { hashApiKey, sameHash, wellFormedApiKey } from '../store/keys';
import type { Customer } from '../store/types';
import { keyHadStrayWhitespace } from '../rawkeys';

/**
 * The customer owning `presented`, or an ApiError 401. The key is taken exactly as sent: a key
 * with a stray space, tab or newline inside fails the shape check and is never "cleaned up".
 * HTTP parsers strip spaces around a header value; given the request's socket, the raw bytes
 * are checked too (server/src/rawkeys.ts), so `X-API-Key: KEY ` is refused as well.
 */
export async function authenticate(deps: AppDeps, presented: string | undefined, socket?: unknown): Promise<Customer> {
  if (presented === undefined || presented === '') {
    throw new ApiError(401, 'missing_api_key', 'Send your API key in the X-API-Key header.');
  }
  if (!wellFormedApiKey(presented)) {
    throw new ApiError(401, 'invalid_api_key', 'The API key is wrong (check for a stray space or line break copied with it).');
  }
  const hash = hashApiKey(presented);
  const customer = await deps.store.customerByKeyHash(hash);
  // The lookup is by hash; the final check compares the stored hash in constant time.
  if (!customer || !sameHash(customer.keyHash, hash)) {
    throw new ApiError(401, 'invalid_api_key', 'The API key is wrong or was rotated.');
  }
  // after the await above, the raw header bytes of this request have been scanned (rawkeys.ts)
  if (socket && keyHadStrayWhitespace(socket, presented)) {
    throw new ApiError(401, 'invalid_api_key', 'The API key is wrong: it was sent with a stray space or tab around it.');
  }
  return customer;
}

/** IETF RateLimit fields, draft-ietf-httpapi-ratelimit-headers-10 (named policy "burst"). */
export function rateHeaders(limit: number, windowMs: number, remaining: number, resetMs: number): Record<string, string> {
  const w = Math.max(1, Math.ceil(windowMs / 1000));
  const t = Math.max(0, Math.ceil(resetMs / 1000));
  return {
    'RateLimit-Policy': `"burst";q=${limit};w=${w}`,
    'RateLimit': `"burst";r=${remaining};t=${t}`,
  };
}

/** One hit on the customer's burst window; throws 429 with Retry-After when it is spent. */
export async function rateLimit(deps: AppDeps, customerId: string, ctx?: Koa.Context): Promise<Record<string, string>> {
  const { limit, windowMs } = deps.config.rateLimit;
  const r = await deps.store.rateHit(`key:${customerId}`, limit, windowMs, deps.now());
  const headers = rateHeaders(limit, windowMs, r.remaining, r.resetMs);
  if (ctx) for (const [k, v] of Object.entries(headers)) ctx.set(k, v);
  if (!r.allowed) {
    const retry = String(Math.max(1, Math.ceil(r.resetMs / 1000)));
    throw new ApiError(429, 'rate_limited', `Too many requests for this key (limit ${limit} per ${windowMs / 1000} s); retry after ${retry} s.`,
      {}, { ...headers, 'Retry-After': retry });
  }
  return headers;
}

/** Koa middleware: X-API-Key auth then the burst limiter; the customer lands in ctx.state. */
export function keyed(deps: AppDeps): Koa.Middleware {
  return async (ctx, next) => {
    const customer = await authenticate(deps, ctx.get('X-API-Key') || undefined, ctx.req.socket);
    ctx.state.customer = customer;
    await rateLimit(deps, customer.id, ctx);
    await next();
  };
}
