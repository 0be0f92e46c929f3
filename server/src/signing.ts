// The supplier side of licence keys (DESIGN.md 4): the Ed25519 key pair in the data folder,
// signing keys, and stamping SDK packages with the public key. Only the server holds this; the
// shipped SDK (lib/license) verifies keys and reads stamps, it never signs.
//
// Key pair: `<data>/supplier/signing-key.pem` (PKCS#8, mode 0600, never leaves the data folder)
// and `<data>/supplier/public-key.pem` (SPKI).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { checkPayload, keyId, KEY_PREFIX, readStamp, STAMP_FILE, type LicensePayload, type Stamp } from 'dotcode-sdk/license';

export interface SupplierKeyPair {
  /** PKCS#8 PEM of the Ed25519 signing key. */
  privateKeyPem: string;
  /** SPKI PEM of the public key. */
  publicKeyPem: string;
  kid: string;
}

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

/** What {@link signLicense} needs; `v` and `kid` are filled in from the signing key. */
export type LicenseClaims = Omit<LicensePayload, 'v' | 'kid'>;

/**
 * Issues a licence key (supplier side). `signingKey` is the supplier's Ed25519 private key
 * (KeyObject or PKCS#8 PEM). The payload is validated first so a bad key is never issued.
 */
export function signLicense(claims: LicenseClaims, signingKey: KeyObject | string): string {
  const priv = typeof signingKey === 'string' ? createPrivateKey(signingKey) : signingKey;
  if (priv.asymmetricKeyType !== 'ed25519') throw new Error('signLicense: the supplier signing key must be Ed25519');
  const kid = keyId(createPublicKey(priv));
  const payload = checkPayload({
    v: 1, lid: claims.lid, org: claims.org, plan: claims.plan, seats: claims.seats,
    features: claims.features, iat: claims.iat, exp: claims.exp, kid, url: claims.url,
  });
  const signed = KEY_PREFIX + Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  const sig = sign(null, Buffer.from(signed, 'ascii'), priv);
  return `${signed}.${sig.toString('base64url')}`;
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
  return saveStamp(packageDir, { keys, url });
}

/**
 * Removes one supplier key from a package's stamp (the end of a key rotation; tests removing
 * their throwaway keys). Returns whether the key was there. The stamp file stays, possibly empty.
 */
export function removeStampKey(packageDir: string, kid: string): boolean {
  const old = readStamp(packageDir);
  if (!old || !old.keys.some((k) => k.kid === kid)) return false;
  saveStamp(packageDir, { keys: old.keys.filter((k) => k.kid !== kid), url: old.url });
  return true;
}

/** Writes a package's stamp through a temp file and a rename: a reader never sees half of it. */
function saveStamp(packageDir: string, stamp: Stamp): Stamp {
  const file = path.join(packageDir, STAMP_FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(stamp, null, 2) + '\n');
  fs.renameSync(tmp, file);
  return stamp;
}
