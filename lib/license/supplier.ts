/**
 * The stamp that tells an SDK package which suppliers it trusts: `supplier.json` at the SDK
 * package root, `{ "keys": [{ "kid", "publicKey" }], "url" }` (docs/ARCHITECTURE.md). The SDK
 * trusts only the keys in its own stamp; no environment variable can add one, so a customer
 * cannot mint keys. The SDK only reads stamps; writing them (`dotcode admin stamp`) and the
 * supplier key pair are the server's (server/src/signing.ts).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { keyId, TrustedKey } from './key';
import { packageRoot } from '../package-root';

export { packageRoot };

export interface Stamp {
  keys: TrustedKey[];
  /** Default service URL for background calls (the key's own `url` wins when set). */
  url: string;
}

export const STAMP_FILE = 'supplier.json';

/** Validates a parsed stamp; every entry's kid must be the real id of its public key. */
export function checkStamp(s: unknown, where = STAMP_FILE): Stamp {
  const bad = (why: string): Error => new Error(`${where} is not a valid supplier stamp: ${why}`);
  if (typeof s !== 'object' || s === null) throw bad('not a JSON object');
  const o = s as { keys?: unknown; url?: unknown };
  if (!Array.isArray(o.keys)) throw bad('"keys" is not a list');
  const keys: TrustedKey[] = o.keys.map((k: unknown, i) => {
    const e = k as { kid?: unknown; publicKey?: unknown };
    if (typeof e?.kid !== 'string' || typeof e.publicKey !== 'string') throw bad(`keys[${i}] needs "kid" and "publicKey" strings`);
    let real: string;
    try {
      real = keyId(e.publicKey);
    } catch {
      throw bad(`keys[${i}].publicKey is not a readable public key`);
    }
    if (real !== e.kid) throw bad(`keys[${i}].kid ${e.kid} does not match its public key (${real})`);
    return { kid: e.kid, publicKey: e.publicKey };
  });
  const url = o.url === undefined || o.url === null ? '' : o.url;
  if (typeof url !== 'string') throw bad('"url" is not a string');
  return { keys, url };
}

/** Reads `supplier.json` from a package folder; null when the package is unstamped. */
export function readStamp(packageDir: string = packageRoot()): Stamp | null {
  const file = path.join(packageDir, STAMP_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${file} is not valid JSON`);
  }
  return checkStamp(parsed, file);
}

