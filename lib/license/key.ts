/**
 * Licence keys: format and offline verification (SDK and server). Signing is the supplier's
 * business and lives in the server (server/src/signing.ts): the shipped SDK only verifies.
 *
 * Format (docs/ARCHITECTURE.md): `DC1.` + base64url(JSON payload) + `.` + base64url(Ed25519
 * signature over the ASCII bytes of `DC1.<payload>`). The signature covers the encoded payload
 * exactly as it appears in the key, so verification never depends on how JSON is re-serialised.
 */
import { createHash, createPublicKey, KeyObject, verify } from 'node:crypto';
import { LicenseError } from '../errors';

export type LicenseFeature = 'sdk' | 'scanner';

/** The signed content of a licence key. Times are Unix seconds. */
export interface LicensePayload {
  v: 1;
  /** Licence id (the supplier's record; also part of the machine identity). */
  lid: string;
  org: string;
  plan: string;
  /** Number of machines the licence covers. */
  seats: number;
  features: LicenseFeature[];
  /** Issued at. */
  iat: number;
  /** End of term. A grace period of {@link GRACE_DAYS} days follows. */
  exp: number;
  /** Supplier key id: first 16 hex digits of SHA-256 of the supplier public key (SPKI DER). */
  kid: string;
  /** Service URL for the SDK's background calls (may be empty: no background calls possible). */
  url: string;
}

/** A supplier public key the verifier trusts. */
export interface TrustedKey {
  kid: string;
  /** SPKI PEM. */
  publicKey: string;
}

export const KEY_PREFIX = 'DC1.';
export const GRACE_DAYS = 14;
export const GRACE_SECONDS = GRACE_DAYS * 86400;
const FEATURES: readonly LicenseFeature[] = ['sdk', 'scanner'];
const B64URL = /^[A-Za-z0-9_-]+$/;

/** Key id of a supplier public key: first 16 hex digits of SHA-256 over its SPKI DER bytes. */
export function keyId(publicKey: KeyObject | string): string {
  const key = typeof publicKey === 'string' ? createPublicKey(publicKey) : publicKey;
  const der = key.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('hex').slice(0, 16);
}

function invalid(detail: string): LicenseError {
  return new LicenseError('invalid_license', `invalid license key: ${detail}`);
}

/** Strict base64url decoding: rejects characters outside the alphabet and non-canonical tails. */
function fromB64url(part: string, what: string): Buffer {
  if (!B64URL.test(part)) throw invalid(`the ${what} is not base64url (key altered or truncated?)`);
  const buf = Buffer.from(part, 'base64url');
  if (buf.toString('base64url') !== part) throw invalid(`the ${what} is not canonical base64url (key altered or truncated?)`);
  return buf;
}

function isInt(n: unknown): n is number {
  return typeof n === 'number' && Number.isSafeInteger(n);
}

/** Checks that a parsed payload has every member with the right type; returns it typed. */
export function checkPayload(p: unknown): LicensePayload {
  if (typeof p !== 'object' || p === null || Array.isArray(p)) throw invalid('payload is not a JSON object');
  const o = p as Record<string, unknown>;
  if (o.v !== 1) throw invalid(`unsupported key version ${JSON.stringify(o.v)} (this SDK reads version 1)`);
  for (const k of ['lid', 'org', 'plan', 'kid', 'url'] as const) {
    if (typeof o[k] !== 'string') throw invalid(`payload member "${k}" missing or not a string`);
  }
  if ((o.lid as string).length === 0) throw invalid('payload member "lid" is empty');
  if (!/^[0-9a-f]{16}$/.test(o.kid as string)) throw invalid('payload member "kid" is not 16 hex digits');
  if (!isInt(o.seats) || o.seats < 1) throw invalid('payload member "seats" is not a positive integer');
  if (!isInt(o.iat) || !isInt(o.exp) || o.iat < 0 || o.exp < o.iat) throw invalid('payload members "iat"/"exp" are not valid Unix times');
  const f = o.features;
  if (!Array.isArray(f) || f.length === 0 || !f.every((x) => FEATURES.includes(x as LicenseFeature)) || new Set(f).size !== f.length) {
    throw invalid('payload member "features" must be a non-empty list of "sdk" and/or "scanner"');
  }
  return {
    v: 1, lid: o.lid as string, org: o.org as string, plan: o.plan as string, seats: o.seats,
    features: [...f] as LicenseFeature[], iat: o.iat, exp: o.exp, kid: o.kid as string, url: o.url as string,
  };
}

/**
 * Reads a key's payload WITHOUT checking the signature. For display and routing only (for
 * example to pick the trusted key by `kid`); never use the result to grant anything.
 */
export function parseLicenseKey(key: unknown): { payload: LicensePayload; signed: string; signature: Buffer } {
  if (typeof key !== 'string' || key.length === 0) throw invalid('the key is empty (pass the key string, e.g. process.env.DOTCODE_LICENSE_KEY)');
  if (/\s/.test(key)) throw invalid('the key contains a space or line break (copy it again as one single line)');
  if (!key.startsWith(KEY_PREFIX)) throw invalid(`the key does not start with "${KEY_PREFIX}"`);
  const parts = key.slice(KEY_PREFIX.length).split('.');
  if (parts.length !== 2 || !parts[0] || !parts[1]) throw invalid('the key is truncated (expected DC1.<payload>.<signature>)');
  const json = fromB64url(parts[0], 'payload');
  const signature = fromB64url(parts[1], 'signature');
  if (signature.length !== 64) throw invalid('the signature has the wrong length (key truncated?)');
  let parsed: unknown;
  try {
    parsed = JSON.parse(json.toString('utf8'));
  } catch {
    throw invalid('the payload is not JSON (key altered or truncated?)');
  }
  return { payload: checkPayload(parsed), signed: KEY_PREFIX + parts[0], signature };
}

/**
 * Verifies a key offline against the trusted supplier keys and returns its payload.
 * Throws `LicenseError('invalid license key: ...')`. Does not look at the dates: use
 * {@link licenseState} for valid / grace / expired.
 */
export function verifyLicense(key: unknown, trusted: readonly TrustedKey[]): LicensePayload {
  const { payload, signed, signature } = parseLicenseKey(key);
  const match = trusted.find((t) => t.kid === payload.kid);
  if (!match) {
    throw invalid(`it was issued by another supplier (key id ${payload.kid} is not among the ${trusted.length} supplier key(s) this SDK trusts)`);
  }
  let pub: KeyObject;
  try {
    pub = createPublicKey(match.publicKey);
  } catch {
    throw invalid(`the trusted supplier key ${match.kid} is not a readable public key (re-stamp the SDK)`);
  }
  if (pub.asymmetricKeyType !== 'ed25519' || keyId(pub) !== match.kid) {
    throw invalid(`the trusted supplier key ${match.kid} does not match its key id (re-stamp the SDK)`);
  }
  if (!verify(null, Buffer.from(signed, 'ascii'), pub, signature)) throw invalid('bad signature (the key was altered)');
  Object.freeze(payload.features);
  verifiedPayloads.add(Object.freeze(payload));
  return payload;
}

/** Payloads this module verified (frozen, so none can be changed after the signature check). */
const verifiedPayloads = new WeakSet<LicensePayload>();

/**
 * True for a payload returned by {@link verifyLicense} in this process: a gate that checks the
 * same licence on every call (the Scanner's decode) need not check its signature again.
 */
export function isVerifiedPayload(p: unknown): p is LicensePayload {
  return typeof p === 'object' && p !== null && verifiedPayloads.has(p as LicensePayload);
}

export type LicenseStateName = 'valid' | 'grace' | 'expired';

export interface LicenseState {
  state: LicenseStateName;
  /** End of term (= payload.exp), Unix seconds. */
  termEnds: number;
  /** End of grace: term end plus 14 days, Unix seconds. After it the licence is expired. */
  graceEnds: number;
  /** Whole days (rounded up) until the next transition: term end when valid, grace end in grace; 0 when expired. */
  daysLeft: number;
}

/**
 * Where a licence stands at `now` (SPEC 3.1): valid until `exp`, then in grace for 14 days
 * (still usable), then expired. Boundaries: at exactly `exp` the term has ended (grace); at
 * exactly `exp + 14 days` grace has ended (expired).
 */
export function licenseState(payload: Pick<LicensePayload, 'exp'>, now: Date | number = Date.now()): LicenseState {
  const t = Math.floor((typeof now === 'number' ? now : now.getTime()) / 1000);
  const termEnds = payload.exp;
  const graceEnds = payload.exp + GRACE_SECONDS;
  const days = (s: number): number => Math.max(0, Math.ceil(s / 86400));
  if (t < termEnds) return { state: 'valid', termEnds, graceEnds, daysLeft: days(termEnds - t) };
  if (t < graceEnds) return { state: 'grace', termEnds, graceEnds, daysLeft: days(graceEnds - t) };
  return { state: 'expired', termEnds, graceEnds, daysLeft: 0 };
}
