// The SDK's background endpoints (docs/ARCHITECTURE.md "SDK background protocol") and the SDK
// download (SPEC 4.5). Licence keys arrive in `Authorization: License <key>` (background calls)
// or the `key` query parameter (download, as SPEC 4.5 fixes); neither is ever logged.
import type Koa from 'koa';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ApiError } from '../errors';
import type { AppDeps, ServerModule } from '../app';
import { licenceState, verifyLicense, type LicenseFeature, type LicensePayload } from '../../../lib/license';
import { stampedSdkTarball } from '../sdk-package';
import { MAX_REPORT_SCANS } from '../../../lib/telemetry/limits';

/**
 * Verifies a licence key against this server's supplier key and checks revocation, expiry (after
 * the 14-day grace) and the feature. Throws 401 invalid_license or 403 with the reason.
 */
export async function checkLicense(deps: AppDeps, key: string | undefined, feature: LicenseFeature): Promise<LicensePayload> {
  const trusted = deps.supplier.trusted();
  if (trusted.length === 0) {
    throw new ApiError(503, 'supplier_not_initialised', 'This server has no supplier key yet (run "dotcode admin init").', {}, { 'Retry-After': '60' });
  }
  if (!key) throw new ApiError(401, 'invalid_license', 'A licence key is required.');
  let payload: LicensePayload;
  try {
    payload = verifyLicense(key, trusted);
  } catch (e) {
    throw new ApiError(401, 'invalid_license', (e as Error).message);
  }
  if (await deps.store.isRevoked(payload.lid)) {
    throw new ApiError(403, 'license_revoked', 'This licence was revoked by the supplier.');
  }
  if (licenceState(payload, deps.now()).state === 'expired') {
    throw new ApiError(403, 'license_expired', 'This licence expired (term and 14-day grace are over); renew it to get a new key.');
  }
  if (!payload.features.includes(feature)) {
    throw new ApiError(403, 'feature_not_licensed', feature === 'sdk'
      ? 'This licence covers the Live Scanner, not the SDK.' : 'This licence does not include the Live Scanner.');
  }
  return payload;
}

function licenseFromHeader(ctx: Koa.Context): string | undefined {
  const h = ctx.get('Authorization');
  const m = /^License (.+)$/.exec(h);
  return m ? m[1] : undefined;
}

/** Reads a small JSON body (background calls are tiny; anything big is refused). */
async function readJson(ctx: Koa.Context, max = 16 * 1024): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const c of ctx.req as AsyncIterable<Buffer>) {
      size += c.length;
      if (size > max) throw new ApiError(413, 'payload_too_large', `The JSON body is over ${max} bytes.`);
      chunks.push(c);
    }
  } catch (e) {
    if (e instanceof ApiError) throw e;
    // the client went away mid-body: its request, not the service, failed (not a 500)
    throw new ApiError(400, 'invalid_json', 'The request body was cut off before it ended.');
  }
  try {
    const v = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('not an object');
    return v as Record<string, unknown>;
  } catch {
    throw new ApiError(400, 'invalid_json', 'The body must be a JSON object.');
  }
}

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
        throw new ApiError(409, 'seat_limit_reached', `seat limit reached: all ${lic.seats} machine(s) on this licence are registered; this machine keeps scanning but is not registered.`,
          { seats: lic.seats, seats_used: seat.seatsUsed });
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
        throw new ApiError(409, 'seat_limit_reached', `seat limit reached: all ${lic.seats} machine(s) on this licence are registered; this machine keeps scanning but is not registered.`,
          { seats: lic.seats, seats_used: seat.seatsUsed });
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
