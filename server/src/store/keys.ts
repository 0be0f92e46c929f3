// API keys: high-entropy random strings, stored only as SHA-256 hashes.
//
// A slow password hash (scrypt, argon2) buys nothing for 256-bit random keys (no dictionary to
// guess from) and would cost milliseconds on every request; SHA-256 is enough. The hash of the
// presented key is looked up, then compared with the stored hash in constant time.
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

const KEY_PREFIX = 'dck_';
/** dck_ + 43 base64url characters (32 random bytes) */
const KEY_SHAPE = /^dck_[A-Za-z0-9_-]{43}$/;

export function newApiKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** True when `key` has our key's exact shape: any space, newline or other stray byte fails. */
export function wellFormedApiKey(key: string): boolean {
  return KEY_SHAPE.test(key);
}

export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex'), y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

export function newCustomerId(): string {
  return 'cus_' + randomUUID().replace(/-/g, '').slice(0, 20);
}
