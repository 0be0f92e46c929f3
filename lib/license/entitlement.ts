/**
 * The one licence policy: may this key be used, for this feature, now?
 *
 * Every gate (the SDK's Scanner, the SDK background endpoints and download, the Live Scanner
 * socket, the customer portal) asks this function and only maps its answer to what it speaks:
 * an exception, an HTTP status, a web-socket close code, a portal state. The checks run in one
 * order, the first failure wins:
 *
 *   1. signature (invalid_license): the key is well formed and signed by a trusted supplier;
 *   2. revocation (license_revoked): only where the caller can know it (the server's store);
 *   3. expiry (license_expired): past the end of term plus the 14-day grace period;
 *   4. feature (feature_not_licensed): the licence covers the product asking.
 *
 * A licence can be revoked and expired at once; revocation is reported because it is the
 * supplier's explicit decision, and a revoked key must never read as merely "renew it".
 */
import { LicenseError } from '../errors';
import { isVerifiedPayload, licenseState, verifyLicense, type LicenseFeature, type LicensePayload, type LicenseState, type TrustedKey } from './key';

export type EntitlementCode = 'invalid_license' | 'license_revoked' | 'license_expired' | 'feature_not_licensed';

export type Entitlement =
  | { ok: true; payload: LicensePayload; state: LicenseState }
  /** `payload` is there once the signature was good (the portal still shows a revoked licence). */
  | { ok: false; code: EntitlementCode; message: string; payload?: LicensePayload; state?: LicenseState };

export interface EntitlementQuery {
  /** Supplier public keys the key must be signed with. */
  trusted: readonly TrustedKey[];
  /** The product asking; omitted: any feature will do (the SDK constructor, the portal). */
  feature?: LicenseFeature;
  /** The clock (Unix ms or a Date); default now. */
  now?: Date | number;
}

/** The SPEC 7.2 messages, one per refusal (the feature one names the product refused). */
export const ENTITLEMENT_MESSAGES = {
  revoked: 'This licence was revoked by the supplier; contact your supplier.',
  notLicensed: {
    sdk: 'This licence covers the Live Scanner, not the SDK.',
    scanner: 'This licence does not include the Live Scanner',
  },
} as const;

const isoDay = (unixSeconds: number): string => new Date(unixSeconds * 1000).toISOString().slice(0, 10);

/** The expiry message: starts "license expired" (SPEC 7.2, the SDK's LicenseError) and says when and what to do. */
export function expiredMessage(payload: Pick<LicensePayload, 'org' | 'lid'>, state: Pick<LicenseState, 'termEnds' | 'graceEnds'>): string {
  return `license expired: this licence has expired (${payload.org}, ${payload.lid}): its term ended on ${isoDay(state.termEnds)} and its 14-day grace period on ${isoDay(state.graceEnds)}; ask your supplier for a renewed key`;
}

function afterSignature(payload: LicensePayload, q: EntitlementQuery, revoked: boolean): Entitlement {
  const state = licenseState(payload, q.now ?? Date.now());
  if (revoked) return { ok: false, code: 'license_revoked', message: ENTITLEMENT_MESSAGES.revoked, payload, state };
  if (state.state === 'expired') return { ok: false, code: 'license_expired', message: expiredMessage(payload, state), payload, state };
  if (q.feature && !payload.features.includes(q.feature)) {
    return { ok: false, code: 'feature_not_licensed', message: ENTITLEMENT_MESSAGES.notLicensed[q.feature], payload, state };
  }
  return { ok: true, payload, state };
}

/**
 * Checks `key` against the licence policy (order above). `key` is the key string, or a payload
 * that verifyLicense already returned in this process (its signature is then not checked again). `revoked` answers whether a licence id
 * was revoked: synchronous (or absent, offline) gives a synchronous answer, a promise (the
 * server's store) may give a promise (await it). Never throws for a bad key: the refusal is the answer.
 */
export function checkEntitlement(key: unknown, q: EntitlementQuery & { revoked?: (licenseId: string) => boolean }): Entitlement;
export function checkEntitlement(key: unknown, q: EntitlementQuery & { revoked: (licenseId: string) => Promise<boolean> }): Entitlement | Promise<Entitlement>;
export function checkEntitlement(key: unknown, q: EntitlementQuery & { revoked?: (licenseId: string) => boolean | Promise<boolean> }): Entitlement | Promise<Entitlement> {
  let payload: LicensePayload;
  try {
    payload = isVerifiedPayload(key) ? key : verifyLicense(key, q.trusted);
  } catch (e) {
    if (!(e instanceof LicenseError)) throw e;
    return { ok: false, code: 'invalid_license', message: e.message };
  }
  const revoked = q.revoked ? q.revoked(payload.lid) : false;
  return typeof revoked === 'boolean' ? afterSignature(payload, q, revoked) : revoked.then((r) => afterSignature(payload, q, r));
}
