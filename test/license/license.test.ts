import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkStamp, GRACE_SECONDS, keyId, licenseState, LicenseError, packageRoot, parseLicenseKey, readStamp, verifyLicense } from '../../lib/license';
import { generateSupplierKeyPair, initSupplier, LicenseClaims, loadSupplier, removeStampKey, signLicense, writeStamp } from '../../server/src/signing';

const DAY = 86400;
const supplier = generateSupplierKeyPair();
const other = generateSupplierKeyPair();
const trusted = [{ kid: supplier.kid, publicKey: supplier.publicKeyPem }];
const claims: LicenseClaims = {
  lid: 'lic_test1', org: 'Acme Pharma', plan: 'sdk-pro', seats: 3, features: ['sdk'],
  iat: 1_760_000_000, exp: 1_760_000_000 + 365 * DAY, url: 'https://dotcode.example.com',
};

function expectInvalid(fn: () => unknown, detail?: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof LicenseError, `expected LicenseError, got ${String(e)}`);
    assert.equal(e.code, 'invalid_license');
    assert.match(e.message, /^invalid license key/);
    if (detail) assert.match(e.message, detail);
    return true;
  });
}

describe('licence keys', () => {
  it('round-trips: the issued key verifies and carries every claim', () => {
    const key = signLicense(claims, supplier.privateKeyPem);
    assert.match(key, /^DC1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    const p = verifyLicense(key, trusted);
    assert.deepEqual(p, { v: 1, ...claims, kid: supplier.kid });
  });

  it('kid is the first 16 hex digits of SHA-256 of the SPKI DER', () => {
    const crypto = require('node:crypto') as typeof import('node:crypto');
    const der = crypto.createPublicKey(supplier.publicKeyPem).export({ type: 'spki', format: 'der' });
    assert.equal(supplier.kid, crypto.createHash('sha256').update(der).digest('hex').slice(0, 16));
    assert.equal(keyId(supplier.publicKeyPem), supplier.kid);
    assert.notEqual(other.kid, supplier.kid);
  });

  it('refuses empty, non-string and whitespace-polluted keys', () => {
    expectInvalid(() => verifyLicense('', trusted), /empty/);
    expectInvalid(() => verifyLicense(undefined, trusted), /empty/);
    const key = signLicense(claims, supplier.privateKeyPem);
    expectInvalid(() => verifyLicense(key + '\n', trusted), /line break/);
    expectInvalid(() => verifyLicense(' ' + key, trusted), /space/);
  });

  it('refuses every truncation of a good key', () => {
    const key = signLicense(claims, supplier.privateKeyPem);
    for (let n = 0; n < key.length; n += 1) expectInvalid(() => verifyLicense(key.slice(0, n), trusted));
  });

  it('refuses a key with any single character altered', () => {
    const key = signLicense(claims, supplier.privateKeyPem);
    // Every position, swapped for a different base64url character: either the encoding, the
    // JSON, the payload check or the signature must catch it.
    for (let i = 0; i < key.length; i += 1) {
      const c = key[i];
      const alt = c === 'A' ? 'B' : c === '.' ? 'x' : 'A';
      expectInvalid(() => verifyLicense(key.slice(0, i) + alt + key.slice(i + 1), trusted));
    }
  });

  it('refuses a payload edited to raise the seats (bad signature)', () => {
    const key = signLicense(claims, supplier.privateKeyPem);
    const [, payload, sig] = key.split('.');
    const edited = JSON.parse(Buffer.from(payload, 'base64url').toString());
    edited.seats = 1000;
    const forged = `DC1.${Buffer.from(JSON.stringify(edited)).toString('base64url')}.${sig}`;
    expectInvalid(() => verifyLicense(forged, trusted), /bad signature/);
  });

  it("refuses another supplier's key, and a key claiming our kid but signed by another", () => {
    const foreign = signLicense(claims, other.privateKeyPem);
    expectInvalid(() => verifyLicense(foreign, trusted), /another supplier/);
    const [, payload, sig] = foreign.split('.');
    const p = JSON.parse(Buffer.from(payload, 'base64url').toString());
    p.kid = supplier.kid;
    const claimed = `DC1.${Buffer.from(JSON.stringify(p)).toString('base64url')}.${sig}`;
    expectInvalid(() => verifyLicense(claimed, trusted), /bad signature/);
    // With no trusted key at all nothing verifies.
    expectInvalid(() => verifyLicense(signLicense(claims, supplier.privateKeyPem), []), /another supplier/);
  });

  it('refuses to sign nonsense claims', () => {
    assert.throws(() => signLicense({ ...claims, seats: 0 }, supplier.privateKeyPem), /seats/);
    assert.throws(() => signLicense({ ...claims, features: [] }, supplier.privateKeyPem), /features/);
    assert.throws(() => signLicense({ ...claims, features: ['sdk', 'x' as 'sdk'] }, supplier.privateKeyPem), /features/);
    assert.throws(() => signLicense({ ...claims, exp: claims.iat - 1 }, supplier.privateKeyPem), /exp/);
  });

  it('parseLicenseKey reads the payload without a trusted key', () => {
    const key = signLicense(claims, other.privateKeyPem);
    assert.equal(parseLicenseKey(key).payload.org, 'Acme Pharma');
  });
});

describe('licence state (SPEC 3.1)', () => {
  const exp = claims.exp;
  const at = (s: number): number => s * 1000;
  it('is valid before the term ends, with the days left to term end', () => {
    assert.deepEqual(licenseState({ exp }, at(exp - 10 * DAY)), { state: 'valid', termEnds: exp, graceEnds: exp + GRACE_SECONDS, daysLeft: 10 });
    assert.equal(licenseState({ exp }, at(exp - 1)).state, 'valid');
  });
  it('is in grace from the term end for 14 days, with the days of grace left', () => {
    const s = licenseState({ exp }, at(exp));
    assert.equal(s.state, 'grace');
    assert.equal(s.daysLeft, 14);
    assert.equal(licenseState({ exp }, at(exp + 13 * DAY + 1)).daysLeft, 1);
    assert.equal(licenseState({ exp }, new Date(at(exp + 14 * DAY - 1))).state, 'grace');
  });
  it('is expired once term plus 14 days has passed', () => {
    assert.deepEqual(licenseState({ exp }, at(exp + 14 * DAY)), { state: 'expired', termEnds: exp, graceEnds: exp + 14 * DAY, daysLeft: 0 });
  });
});

describe('supplier key pair and stamp', () => {
  let tmp: string;
  beforeEach(() => { tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dc-lic-')); });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('init writes a 0600 signing key, refuses to overwrite, and load gives a working signer', () => {
    const pair = initSupplier(tmp);
    const st = fs.statSync(path.join(tmp, 'supplier', 'signing-key.pem'));
    assert.equal(st.mode & 0o777, 0o600);
    assert.throws(() => initSupplier(tmp), /already exists/);
    const loaded = loadSupplier(tmp);
    assert.equal(loaded.kid, pair.kid);
    assert.equal(fs.readFileSync(path.join(tmp, 'supplier', 'public-key.pem'), 'utf8'), loaded.publicKeyPem);
    const key = signLicense(claims, loaded.signingKey);
    assert.equal(verifyLicense(key, [{ kid: pair.kid, publicKey: pair.publicKeyPem }]).lid, 'lic_test1');
    assert.throws(() => loadSupplier(path.join(tmp, 'nope')), /dotcode admin init/);
  });

  it('stamp round-trips, merges a second key, and readStamp is null when unstamped', () => {
    assert.equal(readStamp(tmp), null);
    writeStamp(tmp, supplier.publicKeyPem, 'https://a.example');
    const s2 = writeStamp(tmp, other.publicKeyPem, 'https://b.example');
    assert.deepEqual(s2.keys.map((k) => k.kid), [supplier.kid, other.kid]);
    const read = readStamp(tmp)!;
    assert.equal(read.url, 'https://b.example');
    assert.equal(verifyLicense(signLicense(claims, other.privateKeyPem), read.keys).org, 'Acme Pharma');
    const s3 = writeStamp(tmp, supplier.publicKeyPem, 'https://a.example', { replace: true });
    assert.deepEqual(s3.keys.map((k) => k.kid), [supplier.kid]);
  });

  it('a stamp whose kid does not match its public key is refused', () => {
    assert.throws(() => checkStamp({ keys: [{ kid: other.kid, publicKey: supplier.publicKeyPem }], url: '' }), /does not match/);
    fs.writeFileSync(path.join(tmp, 'supplier.json'), '{not json');
    assert.throws(() => readStamp(tmp), /not valid JSON/);
  });

  it('packageRoot finds the dotcode-sdk package', () => {
    const root = packageRoot();
    assert.equal(JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).name, 'dotcode-sdk');
  });
});

describe('stamp key removal', () => {
  it('removeStampKey takes one key out and leaves the others', () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dc-lic-'));
    try {
      writeStamp(tmp, supplier.publicKeyPem, 'u');
      writeStamp(tmp, other.publicKeyPem, 'u');
      assert.equal(removeStampKey(tmp, supplier.kid), true);
      assert.equal(removeStampKey(tmp, supplier.kid), false);
      assert.deepEqual(readStamp(tmp)!.keys.map((k) => k.kid), [other.kid]);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});
