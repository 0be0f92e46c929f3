// Licence keys under attack (QA, task item 3): a tampered payload, a swapped signature, another
// supplier's key, truncation, whitespace and Unicode look-alikes must all be refused with
// `invalid license key` (SPEC 7.2) by the SDK constructor, offline, and by the server's licence
// routes (SDK registration 401, Live Scanner socket 4401, download 401). Never a crash, never a
// different error, never accepted.
import * as assert from 'node:assert/strict';
import WebSocket from 'ws';
import { verifyLicense, keyId, LicenseError } from '../../lib/license';
import { generateSupplierKeyPair, signLicense } from '../../server/src/signing';
import { Scanner } from '../../lib/scanner';
import { issueLicense, initKeys } from '../../server/src/admin';
import { request, tempDir, testServer, type TestServer } from '../server/helpers';
import { makeKey, supplier, stampRepo } from '../sdk/helpers';

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64url');
const unb64 = (s: string) => Buffer.from(s, 'base64url').toString('utf8');

/** Every forgery we could think of, built from one genuine key. */
function forgeries(genuine: string, foreignSigned: string): [string, string][] {
  const [, payload, sig] = genuine.split('.');
  const p = JSON.parse(unb64(payload)) as Record<string, unknown>;
  const edit = (o: Record<string, unknown>) => `DC1.${b64(JSON.stringify({ ...p, ...o }))}.${sig}`;
  const [, fPayload, fSig] = foreignSigned.split('.');
  const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
  const all: [string, string][] = [
    ['more seats', edit({ seats: 1000 })],
    ['later expiry', edit({ exp: (p.exp as number) + 10 * 365 * 86400 })],
    ['extra feature', edit({ features: ['sdk', 'scanner'] })],
    ['other org', edit({ org: 'Mallory Inc' })],
    ['same JSON, re-encoded with a space', `DC1.${b64(JSON.stringify(p, null, 1))}.${sig}`],
    ['payload bit flipped', `DC1.${flip(payload, 10)}.${sig}`],
    ['signature bit flipped', `DC1.${payload}.${flip(sig, 5)}`],
    ['signature of another supplier', `DC1.${payload}.${fSig}`],
    ['payload of another supplier, our signature', `DC1.${fPayload}.${sig}`],
    ['another supplier, whole key', foreignSigned],
    ['another supplier, our kid in the payload', `DC1.${b64(JSON.stringify({ ...JSON.parse(unb64(fPayload)), kid: p.kid }))}.${fSig}`],
    ['signature dropped', `DC1.${payload}.`],
    ['signature missing', `DC1.${payload}`],
    ['truncated by one char', genuine.slice(0, -1)],
    ['truncated in half', genuine.slice(0, Math.floor(genuine.length / 2))],
    ['truncated to the prefix', 'DC1.'],
    ['empty', ''],
    ['trailing newline', `${genuine}\n`],
    ['trailing CRLF', `${genuine}\r\n`],
    ['leading space', ` ${genuine}`],
    ['trailing space', `${genuine} `],
    ['space inside', `${genuine.slice(0, 40)} ${genuine.slice(40)}`],
    ['no-break space', `${genuine}\u00a0`],
    ['zero-width space inside', `${genuine.slice(0, 40)}\u200b${genuine.slice(40)}`],
    ['BOM in front', `\ufeff${genuine}`],
    ['Cyrillic С in the prefix', `\u0421${genuine.slice(1)}`],
    ['fullwidth digit in the prefix', `DC\uff11${genuine.slice(3)}`],
    ['Greek omicron in the payload', genuine.replace(/o/, '\u03bf')],
    ['lower-cased prefix', `dc1.${genuine.slice(4)}`],
    ['DC2 prefix', `DC2.${genuine.slice(4)}`],
    ['base64 instead of base64url', genuine.replace(/-/g, '+').replace(/_/g, '/') + (/[-_]/.test(genuine) ? '' : '+')],
    ['padding added', `${genuine}==`],
    ['three parts', `${genuine}.${sig}`],
    ['payload not JSON, signed shape', `DC1.${b64('not json')}.${sig}`],
    ['payload JSON array', `DC1.${b64('[1,2,3]')}.${sig}`],
    ['payload __proto__ pollution', `DC1.${b64(JSON.stringify({ ...p }).replace('{', '{"__proto__":{"seats":99},'))}.${sig}`],
    ['huge key', `DC1.${'A'.repeat(100_000)}.${sig}`],
    ['features reordered', edit({ features: [...(p.features as string[])].reverse().concat(p.features as string[]).slice(0, (p.features as string[]).length + 1) })],
  ];
  // an "edit" that changes nothing (e.g. adding a feature the key already has) is the genuine key
  return all.filter(([, k]) => k !== genuine);
}

function foreignKey(): string {
  const other = generateSupplierKeyPair();
  const t = Math.floor(Date.now() / 1000);
  return signLicense({ lid: 'lic_foreign', org: 'Acme Pharma', plan: 'sdk-pro', seats: 3, features: ['sdk'], iat: t - 86400, exp: t + 365 * 86400, url: '' }, other.privateKeyPem);
}

describe('robustness: forged licence keys', function () {
  this.timeout(30_000);

  it('verifyLicense and new Scanner() refuse every forgery with LicenseError "invalid license key"', () => {
    stampRepo();
    const genuine = makeKey({ features: ['sdk'] });
    // the genuine key works: otherwise every refusal below would prove nothing
    assert.equal(verifyLicense(genuine, [{ kid: keyId(supplier.publicKeyPem), publicKey: supplier.publicKeyPem }]).org, 'Acme Pharma');
    const ok = new Scanner(genuine, { telemetry: false });
    void ok.close();
    const trusted = [{ kid: keyId(supplier.publicKeyPem), publicKey: supplier.publicKeyPem }];
    const accepted: string[] = [];
    for (const [what, k] of forgeries(genuine, foreignKey())) {
      for (const via of ['verifyLicense', 'Scanner'] as const) {
        try {
          if (via === 'verifyLicense') verifyLicense(k, trusted);
          else void new Scanner(k, { telemetry: false }).close();
          accepted.push(`${what} (${via})`);
        } catch (e) {
          assert.ok(e instanceof LicenseError, `${what} (${via}): ${(e as Error).constructor.name}: ${(e as Error).message}`);
          assert.match((e as Error).message, /^invalid license key\b/, `${what} (${via})`);
        }
      }
    }
    assert.deepEqual(accepted, [], 'forged keys accepted');
  });

  it('non-string keys are refused the same way, never a TypeError', () => {
    for (const k of [undefined, null, 42, {}, [], Buffer.from('DC1.x.y'), new String('DC1.x.y')]) {
      assert.throws(() => new Scanner(k as never, { telemetry: false }), (e: Error) => e instanceof LicenseError && /^invalid license key/.test(e.message), String(k));
    }
  });

  describe('over the server (SDK registration, download, Live Scanner socket)', () => {
    let s: TestServer;
    let genuine: string;
    before(async () => {
      const dataDir = tempDir('qa-lic');
      initKeys(dataDir);
      s = await testServer({ dataDir });
      genuine = (await issueLicense(s.deps.store, dataDir, { org: 'Acme Pharma', plan: 'sdk-pro', seats: 3, features: ['sdk', 'scanner'] })).license_key;
    });
    after(async () => { await s?.close(); });

    it('every forgery: register 401 invalid_license, download 401, scanner socket closed 4401; never 500', async () => {
      const reg = (k: string) => request(`${s.url}/v1/sdk/register`, {
        headers: { Authorization: `License ${k}`, 'Content-Type': 'application/json' },
        body: Buffer.from(JSON.stringify({ machine_id: 'qa-lic-machine-01', hostname: 'qa', platform: 'linux', sdk_version: '0.1.0' })),
      });
      assert.equal((await reg(genuine)).status, 200, 'the genuine key must register');
      // HTTP cannot carry a raw newline or a non-Latin-1 character in a header: those are tested offline above
      const headerSafe = forgeries(genuine, foreignKey()).filter(([, k]) => /^[\x20-\x7e]*$/.test(k) && k.length < 60_000);
      for (const [what, k] of headerSafe) {
        // HTTP strips spaces after a header value before any server code sees them (RFC 9110
        // OWS); the SDK never sends one (its constructor refuses such a key, tested above)
        if (k.trimEnd() !== genuine) {
          const r = await reg(k);
          assert.ok(r.status === 401, `register, ${what}: ${r.status} ${JSON.stringify(r.body)}`);
          assert.equal(r.body.error, 'invalid_license', `register, ${what}`);
        }
        const d = await request(`${s.url}/v1/sdk/download?key=${encodeURIComponent(k)}`);
        assert.equal(d.status, 401, `download, ${what}: ${d.status}`);
      }
      for (const [what, k] of forgeries(genuine, foreignKey()).slice(0, 12)) {
        const code = await new Promise<number>((resolve, reject) => {
          const ws = new WebSocket(`${s.url.replace('http', 'ws')}/v1/scanner/live`);
          ws.on('open', () => ws.send(JSON.stringify({ type: 'hello', license_key: k, device_id: 'qa-lic-device-01' })));
          ws.on('close', (c) => resolve(c));
          ws.on('error', reject);
        });
        assert.equal(code, 4401, `scanner socket, ${what}`);
      }
    });
  });
});
