// The customer portal: GET /portal (the page) and POST /v1/portal/session (its data).
//
// Sign-in is pasting a key. The key travels in the JSON body of a POST, never in a URL (URLs
// reach logs, proxies and browser history); the page keeps it in sessionStorage for its tab.
// No server-side session is created: every call re-verifies the key, so a rotated API key or a
// revoked licence stops working in the portal at once.
//   - an API key (dck_...) answers the Cloud API usage: plan, quota, used, remaining, resets_on,
//     and scans per day over the current period;
//   - a licence key (DC1....) answers the licence (org, plan, seats, features, expiry, grace,
//     state), its machines (SDK and Live Scanner) with first/last seen, scans reported, whether
//     each holds a seat now, and a `quiet` flag for SDK machines not heard from for QUIET_AFTER_MS.
import type { Context } from 'koa';
import { ApiError } from '../errors';
import { readJsonBody } from '../body';
import type { ServerModule, AppDeps } from '../app';
import { checkEntitlement, GRACE_SECONDS, KEY_PREFIX } from 'dotcode-sdk/license';
import { hashApiKey, wellFormedApiKey } from '../store/keys';
import { currentPeriod, dayOf } from '../store/period';
import { servePage } from '../pages';

/**
 * An SDK machine heartbeats every minute while its process runs (lib/telemetry); one silent for
 * a day has stopped, lost its network, or turned telemetry off: the portal flags it as quiet.
 */
export const QUIET_AFTER_MS = 24 * 3600 * 1000;
/** Sign-in attempts per client address per minute: keys are long and random, but be polite. */
const SIGNIN_LIMIT = 30;
const MAX_BODY = 16 * 1024;
const SIGNIN_FORM = 'Send JSON: {"key": "<API key or licence key>"}.';
const JSON_ERRORS = { tooLarge: 'body_too_large', invalid: 'bad_request', invalidMessage: SIGNIN_FORM };

function eachDay(from: string, to: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`) && out.length < 62; t += 86400_000) {
    out.push(new Date(t).toISOString().slice(0, 10));
  }
  return out;
}

async function apiKeyView(deps: AppDeps, key: string) {
  const customer = wellFormedApiKey(key) ? await deps.store.customerByKeyHash(hashApiKey(key)) : null;
  if (!customer) {
    throw new ApiError(401, 'invalid_key', 'This key was not recognised. Paste the whole API key or licence key, without spaces.');
  }
  const now = deps.now();
  const period = currentPeriod(customer.signup, now);
  const today = dayOf(now);
  const used = await deps.store.usage(customer.id, period.start);
  const perDay = await deps.store.dailyUsage(customer.id, period.start, today);
  return {
    ok: true, kind: 'api_key',
    customer: { id: customer.id, name: customer.name },
    usage: {
      plan: customer.plan, quota: customer.quota, used, remaining: Math.max(0, customer.quota - used),
      resets_on: period.resetsOn, period_start: period.start,
    },
    daily: eachDay(period.start, today).map((date) => ({ date, scans: perDay[date] ?? 0 })),
  };
}

async function licenseView(deps: AppDeps, key: string) {
  const now = deps.now();
  // No feature: the portal shows a licence whatever it covers; a revoked or expired one is shown
  // with that state, not refused (checkEntitlement's order: revoked wins over expired).
  const answer = await checkEntitlement(key, { trusted: deps.supplier.trusted(), now, revoked: (lid) => deps.store.isRevoked(lid) });
  if (!answer.payload) {
    throw new ApiError(401, 'invalid_key', 'This licence key is not valid for this service. Paste the whole key, on one line.');
  }
  const payload = answer.payload;
  const revoked = !answer.ok && answer.code === 'license_revoked';
  const machines = await deps.store.listMachines(payload.lid);
  const inUse = { sdk: 0, scanner: 0 };
  const list = machines.map((m) => {
    const active = m.leaseUntil > now;
    if (active) inUse[m.kind]++;
    return {
      machine_id: m.machineId,
      kind: m.kind,
      name: m.info.hostname ?? m.info.name ?? null,
      platform: m.info.platform ?? null,
      first_seen: new Date(m.firstSeen).toISOString(),
      last_seen: new Date(m.lastSeen).toISOString(),
      scans: m.scans,
      active,
      quiet: m.kind === 'sdk' && now - m.lastSeen > QUIET_AFTER_MS,
    };
  });
  return {
    ok: true, kind: 'license',
    license: {
      lid: payload.lid, org: payload.org, plan: payload.plan, seats: payload.seats, features: payload.features,
      iat: payload.iat, exp: payload.exp, grace_ends: payload.exp + GRACE_SECONDS,
      // revoked wins over the term: a revoked licence never reads as "valid" (docs/scanner.md)
      state: revoked ? 'revoked' : answer.state!.state, revoked,
    },
    seats_in_use: inUse,
    quiet_after_hours: QUIET_AFTER_MS / 3600_000,
    machines: list,
  };
}

export const portalModule: ServerModule = {
  name: 'portal',
  register({ router, deps }) {
    router.get('/portal', servePage('portal'));
    router.post('/v1/portal/session', async (ctx: Context) => {
      const rate = await deps.store.rateHit(`portal:${ctx.ip}`, SIGNIN_LIMIT, 60_000, deps.now());
      if (!rate.allowed) {
        throw new ApiError(429, 'rate_limited', 'Too many sign-in attempts; wait a minute.', {},
          { 'Retry-After': String(Math.max(1, Math.ceil(rate.resetMs / 1000))) });
      }
      const body = await readJsonBody(ctx.req, MAX_BODY, JSON_ERRORS);
      // Compared as sent (SPEC 5 rule 1): a key with a stray space is wrong, except that the
      // page already removed the line breaks a paste from an e-mail brings.
      const key = body.key;
      if (typeof key !== 'string' || key.length === 0) {
        throw new ApiError(400, 'bad_request', SIGNIN_FORM);
      }
      ctx.body = key.startsWith(KEY_PREFIX) ? await licenseView(deps, key) : await apiKeyView(deps, key);
    });
  },
};
