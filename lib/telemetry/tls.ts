/**
 * TLS settings of the background calls, from the environment.
 *
 * - `DOTCODE_CA_BUNDLE=<file>`: PEM certificate(s) trusted in addition to the system roots, for a
 *   supplier on a private address.
 * - A server certificate must name the host in its subjectAltName. Node would still fall back to
 *   the Common Name for a certificate with no subjectAltName at all; SPEC 2.5 says a CN alone is
 *   refused, so we check that first.
 * - `DOTCODE_INSECURE_TLS=1`: no verification at all; warned once per process.
 */
import * as fs from 'node:fs';
import * as tls from 'node:tls';
import type { PeerCertificate } from 'node:tls';

export interface TlsSettings {
  ca?: string[];
  rejectUnauthorized: boolean;
  checkServerIdentity: (host: string, cert: PeerCertificate) => Error | undefined;
  /** Set when the environment is unusable (e.g. an unreadable bundle): report it as the cloud error. */
  problem?: string;
}

let insecureWarned = false;

/** Requires a subjectAltName, then applies Node's own host matching (which then ignores the CN). */
export function checkServerIdentitySanOnly(host: string, cert: PeerCertificate): Error | undefined {
  if (!cert || !cert.subjectaltname) {
    const cn = cert?.subject?.CN ? ` (its Common Name is "${cert.subject.CN}")` : '';
    return Object.assign(new Error(`server certificate has no subjectAltName${cn}; a Common Name alone is not accepted: reissue the certificate with subjectAltName=DNS:${host} or IP:${host}`), { code: 'ERR_TLS_CERT_NO_SAN' });
  }
  return tls.checkServerIdentity(host, cert);
}

export function tlsSettings(env: NodeJS.ProcessEnv = process.env, warn: (msg: string) => void = () => {}): TlsSettings {
  if (env.DOTCODE_INSECURE_TLS === '1') {
    if (!insecureWarned) {
      insecureWarned = true;
      warn('DOTCODE_INSECURE_TLS=1: certificate checking of the background calls is OFF; anyone on the network path can impersonate the licence service');
    }
    return { rejectUnauthorized: false, checkServerIdentity: () => undefined };
  }
  const s: TlsSettings = { rejectUnauthorized: true, checkServerIdentity: checkServerIdentitySanOnly };
  const bundle = env.DOTCODE_CA_BUNDLE;
  if (bundle) {
    try {
      const pem = fs.readFileSync(bundle, 'utf8');
      if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new Error('no PEM certificate in it');
      s.ca = [...tls.rootCertificates, pem];
    } catch (e) {
      s.problem = `DOTCODE_CA_BUNDLE=${bundle} is unusable: ${(e as Error).message}`;
    }
  }
  return s;
}

/** For tests: lets the once-per-process insecure warning fire again. */
export function resetInsecureWarning(): void {
  insecureWarned = false;
}
