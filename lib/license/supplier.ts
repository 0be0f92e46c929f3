/**
 * The supplier's key pair and the stamp that tells an SDK package which suppliers it trusts.
 *
 * Key pair: `<data>/supplier/signing-key.pem` (PKCS#8, mode 0600, never leaves the data folder)
 * and `<data>/supplier/public-key.pem` (SPKI). Stamp: `supplier.json` at the SDK package root,
 * `{ "keys": [{ "kid", "publicKey" }], "url" }` (docs/ARCHITECTURE.md). The SDK trusts only the
 * keys in its own stamp; no environment variable can add one, so a customer cannot mint keys.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createPrivateKey, createPublicKey, generateKeyPairSync, KeyObject } from 'node:crypto';
import { keyId, TrustedKey } from './key';
import { packageRoot } from '../package-root';

export { packageRoot };

export interface SupplierKeyPair {
  /** PKCS#8 PEM of the Ed25519 signing key. */
  privateKeyPem: string;
  /** SPKI PEM of the public key. */
  publicKeyPem: string;
  kid: string;
}

export interface Stamp {
  keys: TrustedKey[];
  /** Default service URL for background calls (the key's own `url` wins when set). */
  url: string;
}

export const STAMP_FILE = 'supplier.json';

/** Makes a fresh Ed25519 supplier key pair. */
export function generateSupplierKeyPair(): SupplierKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    kid: keyId(publicKey),
  };
}

export function supplierDir(dataDir: string): string {
  return path.join(dataDir, 'supplier');
}

/**
 * `dotcode admin init`: creates the key pair in `<data>/supplier/`. Refuses to overwrite an
 * existing signing key unless `force` (overwriting would orphan every key already issued).
 */
export function initSupplier(dataDir: string, opts: { force?: boolean } = {}): SupplierKeyPair {
  const dir = supplierDir(dataDir);
  const privPath = path.join(dir, 'signing-key.pem');
  if (fs.existsSync(privPath) && !opts.force) {
    throw new Error(`a supplier signing key already exists at ${privPath}; keys issued with it would stop verifying if it were replaced (use --force to replace it anyway)`);
  }
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const pair = generateSupplierKeyPair();
  // Write to a temp file created 0600 and rename, so the private key is never readable by others
  // even for an instant and a crash never leaves half a key.
  const tmp = `${privPath}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, pair.privateKeyPem, { mode: 0o600 });
  fs.chmodSync(tmp, 0o600);
  fs.renameSync(tmp, privPath);
  fs.writeFileSync(path.join(dir, 'public-key.pem'), pair.publicKeyPem, { mode: 0o644 });
  return pair;
}

/** Loads the supplier key pair made by {@link initSupplier}. */
export function loadSupplier(dataDir: string): { signingKey: KeyObject; publicKeyPem: string; kid: string } {
  const privPath = path.join(supplierDir(dataDir), 'signing-key.pem');
  let pem: string;
  try {
    pem = fs.readFileSync(privPath, 'utf8');
  } catch {
    throw new Error(`no supplier signing key at ${privPath}: run "dotcode admin init --data ${dataDir}" first`);
  }
  const signingKey = createPrivateKey(pem);
  if (signingKey.asymmetricKeyType !== 'ed25519') throw new Error(`${privPath} is not an Ed25519 key`);
  const pub = createPublicKey(signingKey);
  return { signingKey, publicKeyPem: pub.export({ type: 'spki', format: 'pem' }).toString(), kid: keyId(pub) };
}

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

/**
 * `dotcode admin stamp`: writes (or adds to) `supplier.json` in a package folder. An existing
 * stamp keeps its other keys, so a package can trust an old and a new supplier key during a
 * key rotation; `replace` starts from an empty list instead.
 */
export function writeStamp(packageDir: string, publicKeyPem: string, url: string, opts: { replace?: boolean } = {}): Stamp {
  const kid = keyId(publicKeyPem);
  const old = opts.replace ? null : readStamp(packageDir);
  const keys = (old?.keys ?? []).filter((k) => k.kid !== kid);
  keys.push({ kid, publicKey: createPublicKey(publicKeyPem).export({ type: 'spki', format: 'pem' }).toString() });
  const stamp: Stamp = { keys, url };
  const file = path.join(packageDir, STAMP_FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(stamp, null, 2) + '\n');
  fs.renameSync(tmp, file);
  return stamp;
}

/**
 * Removes one supplier key from a package's stamp (the end of a key rotation; tests removing
 * their throwaway keys). Returns whether the key was there. The stamp file stays, possibly empty.
 */
export function removeStampKey(packageDir: string, kid: string): boolean {
  const old = readStamp(packageDir);
  if (!old || !old.keys.some((k) => k.kid === kid)) return false;
  const stamp: Stamp = { keys: old.keys.filter((k) => k.kid !== kid), url: old.url };
  const file = path.join(packageDir, STAMP_FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(stamp, null, 2) + '\n');
  fs.renameSync(tmp, file);
  return true;
}
