// The SDK's background endpoints (docs/ARCHITECTURE.md "SDK background protocol") and the SDK
// download (SPEC 4.5). Licence keys arrive in `Authorization: License <key>` (background calls)
// or the `key` query parameter (download, as SPEC 4.5 fixes); neither is ever logged.
import type Koa from 'koa';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ApiError } from '../errors';
import { readJsonBody } from '../body';
import type { AppDeps, ServerModule } from '../app';
import { checkEntitlement, type EntitlementCode, type LicenseFeature, type LicensePayload } from 'dotcode-sdk/license';
import { stampedSdkTarball } from '../sdk-package';
import { MAX_REPORT_SCANS } from 'dotcode-sdk/telemetry';

/** How each refusal of the licence policy (lib/license checkEntitlement) is answered over HTTP. */
const REFUSAL_STATUS: Record<EntitlementCode, number> = {
  invalid_license: 401, license_revoked: 403, license_expired: 403, feature_not_licensed: 403,
};

/**
 * The licence gate of the SDK endpoints: this server's supplier key, revocation, expiry (after
 * the 14-day grace) and the feature, in the order of checkEntitlement. Throws 401/403 with its code.
 */
export async function checkLicense(deps: AppDeps, key: string | undefined, feature: LicenseFeature): Promise<LicensePayload> {
  const trusted = deps.supplier.trusted();
  if (trusted.length === 0) {
    throw new ApiError(503, 'supplier_not_initialised', 'This server has no supplier key yet (run "dotcode admin init").', {}, { 'Retry-After': '60' });
  }
  const answer = await checkEntitlement(key, { trusted, feature, now: deps.now(), revoked: (lid) => deps.store.isRevoked(lid) });
  if (!answer.ok) throw new ApiError(REFUSAL_STATUS[answer.code], answer.code, answer.message);
  return answer.payload;
}

/** 409 for a machine beyond the licence's seat count (it keeps scanning, SPEC 3.1). */
function seatLimitReached(seats: number, seatsUsed: number): ApiError {
  return new ApiError(409, 'seat_limit_reached', `seat limit reached: all ${seats} machine(s) on this licence are registered; this machine keeps scanning but is not registered.`,
    { seats, seats_used: seatsUsed });
}

function licenseFromHeader(ctx: Koa.Context): string | undefined {
  const h = ctx.get('Authorization');
  const m = /^License (.+)$/.exec(h);
  return m ? m[1] : undefined;
}

/** Background calls are tiny; anything big is refused. */
const MAX_JSON_BYTES = 16 * 1024;
const JSON_ERRORS = { tooLarge: 'payload_too_large', invalid: 'invalid_json', invalidMessage: 'The body must be a JSON object.' };
const readJson = (ctx: Koa.Context) => readJsonBody(ctx.req, MAX_JSON_BYTES, JSON_ERRORS);

function str(body: Record<string, unknown>, name: string, required: boolean, max = 200): string {
  const v = body[name];
  if (v === undefined || v === null || v === '') {
    if (required) throw new ApiError(400, 'invalid_parameter', `"${name}" is required.`);
    return '';
  }
  if (typeof v !== 'string' || v.length > max) throw new ApiError(400, 'invalid_parameter', `"${name}" must be a string of at most ${max} characters.`);
  return v;
}

export const sdkModule: ServerModule = {
  name: 'sdk',
  register({ router, deps }) {
    router.post('/v1/sdk/register', async (ctx) => {
      const lic = await checkLicense(deps, licenseFromHeader(ctx), 'sdk');
      const body = await readJson(ctx);
      const machineId = str(body, 'machine_id', true, 128);
      const info = { hostname: str(body, 'hostname', false), platform: str(body, 'platform', false), sdk_version: str(body, 'sdk_version', false, 40) };
      const seat = await deps.store.acquireSeat(lic.lid, machineId, 'sdk', lic.seats, info, deps.config.sdkLeaseMs, deps.now());
      if (!seat.ok) {
        throw seatLimitReached(lic.seats, seat.seatsUsed);
      }
      ctx.body = { ok: true, machine_id: machineId, seats: lic.seats, seats_used: seat.seatsUsed };
    });

    router.post('/v1/sdk/usage', async (ctx) => {
      const lic = await checkLicense(deps, licenseFromHeader(ctx), 'sdk');
      const body = await readJson(ctx);
      const machineId = str(body, 'machine_id', true, 128);
      const reportId = str(body, 'report_id', true, 128);
      const scans = body.scans;
      // bounded: two reports of 2^53-1 made every sum in the portal wrong (issue 16)
      if (typeof scans !== 'number' || !Number.isSafeInteger(scans) || scans < 0 || scans > MAX_REPORT_SCANS) {
        throw new ApiError(400, 'invalid_parameter', `"scans" must be an integer from 0 to ${MAX_REPORT_SCANS}.`);
      }
      const now = deps.now();
      // A report is also the heartbeat: it renews the machine's seat lease, or takes a seat for
      // a machine whose lease ran out (or that never registered) while one is free. The scans
      // are recorded first, so a refused seat never loses a report (report_id dedups a retry).
      const m = (await deps.store.listMachines(lic.lid)).find((x) => x.kind === 'sdk' && x.machineId === machineId);
      const seat = await deps.store.acquireSeat(lic.lid, machineId, 'sdk', lic.seats, m?.info ?? {}, deps.config.sdkLeaseMs, now);
      await deps.store.recordMachineUsage(lic.lid, machineId, reportId, scans, now);
      if (!seat.ok) {
        throw seatLimitReached(lic.seats, seat.seatsUsed);
      }
      ctx.body = { ok: true };
    });

    router.get('/v1/sdk/download', async (ctx) => {
      if (Array.isArray(ctx.query.key)) {
        throw new ApiError(400, 'invalid_parameter', 'Query parameter "key" is given more than once; give the licence key once.');
      }
      const key = typeof ctx.query.key === 'string' ? ctx.query.key : undefined;
      const lic = await checkLicense(deps, key, 'sdk');
      // a download may cost a tarball build (about 0.6 s of CPU): a budget per licence
      const { limit, windowMs } = deps.config.downloadRateLimit;
      const rate = await deps.store.rateHit(`download:${lic.lid}`, limit, windowMs, deps.now());
      if (!rate.allowed) {
        const retry = String(Math.max(1, Math.ceil(rate.resetMs / 1000)));
        throw new ApiError(429, 'rate_limited', `Too many downloads for this licence (limit ${limit} per ${Math.round(windowMs / 60_000)} min); retry after ${retry} s.`,
          {}, { 'Retry-After': retry });
      }
      const pem = deps.supplier.publicKeyPem();
      if (!pem) throw new ApiError(503, 'supplier_not_initialised', 'This server has no supplier key yet.', {}, { 'Retry-After': '60' });
      // the URL is the one fixed at start (server.ts), never this request's Host header
      const t = await stampedSdkTarball(deps.config.sdkPackageDir, path.join(deps.config.dataDir, 'sdk-cache'), pem, deps.config.publicUrl,
        deps.config.sdkCacheMax);
      ctx.type = 'application/gzip';
      ctx.set('Content-Disposition', `attachment; filename="${t.filename}"`);
      ctx.length = fs.statSync(t.file).size;
      ctx.body = fs.createReadStream(t.file);
    });
  },
};
