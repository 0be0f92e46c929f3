// Supplier-side operations behind `dotcode admin` (DESIGN.md 6). Kept apart from argument parsing
// so tests drive the same functions the command line does.
import { randomUUID } from 'node:crypto';
import { packageRoot, type LicenseFeature } from 'dotcode-sdk/license';
import { initSupplier, loadSupplier, signLicense, writeStamp } from './signing';
import { hashApiKey, newApiKey, newCustomerId } from './store/keys';
import { dayOf, parseDate } from './store/period';
import type { Store } from './store/types';

/** Scans per monthly period of each plan (SPEC 8: the free tier has 500). --quota overrides. */
export const PLANS: Record<string, number> = { free: 500, starter: 10_000, business: 100_000, enterprise: 1_000_000 };

export interface CreateCustomerInput { name: string; plan?: string; quota?: number; signup?: string }

export async function createCustomer(store: Store, input: CreateCustomerInput, nowMs = Date.now()): Promise<{ customer_id: string; api_key: string }> {
  // a quota of its own without a plan name is a custom plan, not "free" with another number
  const plan = input.plan ?? (input.quota !== undefined && input.quota !== PLANS.free ? 'custom' : 'free');
  const quota = input.quota ?? PLANS[plan];
  if (quota === undefined) throw new UsageError(`unknown plan "${plan}" (known: ${Object.keys(PLANS).join(', ')}); give --quota N for a custom plan`);
  if (!Number.isSafeInteger(quota) || quota < 0) throw new UsageError('--quota must be a non-negative integer');
  if (!input.name.trim()) throw new UsageError('--name must not be empty');
  const signup = input.signup ?? dayOf(nowMs);
  parseDate(signup);
  const id = newCustomerId();
  const key = newApiKey();
  await store.createCustomer({ id, name: input.name, plan, quota, signup }, hashApiKey(key), nowMs);
  return { customer_id: id, api_key: key };
}

export interface CustomerListing { customer_id: string; name: string; plan: string; quota: number; signup: string; created: string }

/** Every customer with the id `apikey rotate` needs; never a key or its hash. */
export async function listCustomers(store: Store): Promise<CustomerListing[]> {
  return (await store.listCustomers()).map((c) => ({
    customer_id: c.id, name: c.name, plan: c.plan, quota: c.quota, signup: c.signup, created: new Date(c.createdAt).toISOString(),
  }));
}

export async function rotateApiKey(store: Store, customerId: string): Promise<{ customer_id: string; api_key: string }> {
  const key = newApiKey();
  if (!(await store.setApiKeyHash(customerId, hashApiKey(key)))) throw new UsageError(`no customer ${customerId}`);
  return { customer_id: customerId, api_key: key };
}

export interface IssueLicenseInput {
  org: string; plan: string; seats: number; features: string[];
  issued?: string; expires?: string; days?: number; url?: string;
}

export async function issueLicense(store: Store, dataDir: string, input: IssueLicenseInput, nowMs = Date.now()): Promise<{ license_id: string; license_key: string }> {
  const features = [...new Set(input.features)];
  for (const f of features) if (f !== 'sdk' && f !== 'scanner') throw new UsageError(`unknown feature "${f}" (use sdk, scanner)`);
  if (features.length === 0) throw new UsageError('--features needs sdk, scanner or both');
  if (!Number.isSafeInteger(input.seats) || input.seats < 1) throw new UsageError('--seats must be a positive integer');
  if (input.expires && input.days !== undefined) throw new UsageError('give --expires or --days, not both');
  const issuedMs = input.issued ? Date.parse(`${parseDateStr(input.issued)}T00:00:00Z`) : nowMs;
  const iat = Math.floor(issuedMs / 1000);
  const exp = input.expires
    ? Math.floor(Date.parse(`${parseDateStr(input.expires)}T00:00:00Z`) / 1000)
    : iat + (input.days ?? 365) * 86400;
  if (exp <= iat) throw new UsageError('the licence would expire before it is issued');
  const { signingKey } = loadSupplier(dataDir);
  const lid = 'lic_' + randomUUID().replace(/-/g, '').slice(0, 20);
  const key = signLicense({ lid, org: input.org, plan: input.plan, seats: input.seats, features: features as LicenseFeature[], iat, exp, url: input.url ?? '' }, signingKey);
  await store.putLicense({ id: lid, org: input.org, plan: input.plan, seats: input.seats, features, iat, exp });
  return { license_id: lid, license_key: key };
}

export async function revokeLicense(store: Store, id: string, nowMs = Date.now()): Promise<void> {
  if (!(await store.getLicense(id))) throw new UsageError(`no licence ${id} was issued by this server`);
  await store.revokeLicense(id, nowMs);
}

export function initKeys(dataDir: string, force = false): { kid: string } {
  const pair = initSupplier(dataDir, { force });
  return { kid: pair.kid };
}

export function stamp(dataDir: string, url: string, pkgDir = packageRoot()): { package: string; kid: string; url: string } {
  const { publicKeyPem, kid } = loadSupplier(dataDir);
  writeStamp(pkgDir, publicKeyPem, url);
  return { package: pkgDir, kid, url };
}

function parseDateStr(s: string): string {
  try {
    parseDate(s);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  return s;
}

/** A mistake in what the operator typed: exit code 2 and the message, no stack. */
export class UsageError extends Error {
  constructor(message: string) { super(message); this.name = 'UsageError'; }
}
