// The one store interface of the Cloud API. Two implementations (SQLite, Redis) pass the same
// contract suite (test/server/store-contract.test.ts). Every method that decides money or seats
// (reserveScan, rateHit, acquireSeat, recordMachineUsage, idempotencyBegin) is atomic in the
// store itself, so several server processes sharing one Redis can never overrun a quota.

export interface Customer {
  id: string;
  name: string;
  plan: string;
  /** scans allowed per monthly period */
  quota: number;
  /** signup date YYYY-MM-DD: anchors the monthly period */
  signup: string;
  createdAt: number;
  /** SHA-256 (hex) of the current API key; the key itself is never stored */
  keyHash: string;
}

export interface NewCustomer {
  id: string;
  name: string;
  plan: string;
  quota: number;
  signup: string;
}

export interface LicenseRecord {
  id: string;
  org: string;
  plan: string;
  seats: number;
  features: string[];
  /** Unix seconds */
  iat: number;
  /** Unix seconds: end of term */
  exp: number;
}

export type MachineKind = 'sdk' | 'scanner';

export interface MachineRecord {
  licenseId: string;
  machineId: string;
  kind: MachineKind;
  info: Record<string, string>;
  firstSeen: number;
  lastSeen: number;
  /** lease end (ms); the seat is free after it */
  leaseUntil: number;
  scans: number;
}

export interface ReserveResult {
  /** true: one scan was taken; false: the quota was already spent (nothing taken) */
  ok: boolean;
  /** scans used in the period after this call */
  used: number;
}

export interface RateResult {
  allowed: boolean;
  /** requests left in the current window after this one */
  remaining: number;
  /** ms until the window resets */
  resetMs: number;
}

export interface SeatResult {
  ok: boolean;
  /** seats held on this licence (this kind) after the call */
  seatsUsed: number;
}

/** The scan an idempotent request took (the period and day counters it went into). */
export interface ChargedScan { period: string; day: string }

/** An idempotency record a reserveScan marks as paid (and a releaseScan unmarks). */
export interface IdempotencyRef { scope: string; key: string }

export type IdempotencyState =
  | { state: 'new' }
  /** another owner holds the record and its lease runs: `owner` says who (see server/src/owner.ts) */
  | { state: 'pending'; owner: string }
  | { state: 'mismatch' }
  | { state: 'done'; status: number; body: string }
  /**
   * the record was pending but its owner is gone (lease ran out, or the caller named it as dead):
   * the caller now owns it. `charged` is the scan the first owner already took (null: none), so
   * the retry decodes against it instead of taking a second one.
   */
  | { state: 'resumed'; charged: ChargedScan | null };

export interface Store {
  readonly kind: 'sqlite' | 'redis';
  /** throws when the store cannot be reached (used by /healthz and for fail-closed answers) */
  ping(): Promise<void>;
  /**
   * Waits up to `timeoutMs` for the store's first connection; true when it is ready. A server
   * calls it before listening so its first requests do not meet a connection still being made.
   */
  whenReady(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;

  createCustomer(c: NewCustomer, apiKeyHash: string, nowMs: number): Promise<void>;
  getCustomer(id: string): Promise<Customer | null>;
  /** every customer, oldest first (`admin customer list`) */
  listCustomers(): Promise<Customer[]>;
  /** the customer whose current API key hashes to `hash`, or null */
  customerByKeyHash(hash: string): Promise<Customer | null>;
  /** replaces the customer's key (the old one stops working at once); false if no such customer */
  setApiKeyHash(customerId: string, hash: string): Promise<boolean>;

  /**
   * atomically: if used < quota then used += 1 (period and day counters); with `paidBy`, the same
   * atomic step marks that idempotency record as charged, so a crash can never leave a scan taken
   * without the record knowing it (which would bill the retry a second time)
   */
  reserveScan(customerId: string, periodStart: string, day: string, quota: number, paidBy?: IdempotencyRef): Promise<ReserveResult>;
  /** gives back one reserved scan (only when the service itself failed before answering); unmarks `paidBy` */
  releaseScan(customerId: string, periodStart: string, day: string, paidBy?: IdempotencyRef): Promise<void>;
  usage(customerId: string, periodStart: string): Promise<number>;
  /** scans per day for days in [fromDay, toDay] (only days with scans) */
  dailyUsage(customerId: string, fromDay: string, toDay: string): Promise<Record<string, number>>;

  /** fixed-window counter: one hit on `key`, allowed while hits <= limit in the window */
  rateHit(key: string, limit: number, windowMs: number, nowMs: number): Promise<RateResult>;

  putLicense(l: LicenseRecord): Promise<void>;
  getLicense(id: string): Promise<LicenseRecord | null>;
  revokeLicense(id: string, nowMs: number): Promise<void>;
  isRevoked(id: string): Promise<boolean>;

  /**
   * Takes (or renews) a seat for a machine: a machine that holds an unexpired lease always
   * renews; a new machine gets a seat only while fewer than `seats` unexpired leases of this
   * kind exist on the licence.
   */
  acquireSeat(licenseId: string, machineId: string, kind: MachineKind, seats: number,
    info: Record<string, string>, leaseMs: number, nowMs: number): Promise<SeatResult>;
  releaseSeat(licenseId: string, machineId: string, kind: MachineKind): Promise<void>;
  listMachines(licenseId: string): Promise<MachineRecord[]>;
  /**
   * adds a usage report once per report_id; returns false if that report was already counted.
   * SDK machines report over HTTP; Live Scanner devices' reads are recorded the same way (kind 'scanner').
   */
  recordMachineUsage(licenseId: string, machineId: string, reportId: string, scans: number,
    nowMs: number, kind?: MachineKind): Promise<boolean>;

  /**
   * Starts an idempotent request for `owner` (one server process), holding a lease until
   * nowMs + leaseMs: `new` (the caller must complete or abort it), `pending` (another owner is
   * processing it and its lease runs), `mismatch` (the key was used with another request body),
   * `done` with the stored answer, or `resumed` (the record was pending, but its lease ran out or
   * its owner is `takeOverFrom`, which the caller found dead: the caller owns it now). The record
   * lives `ttlMs`.
   */
  idempotencyBegin(scope: string, key: string, fingerprint: string, owner: string, leaseMs: number, ttlMs: number,
    nowMs: number, takeOverFrom?: string): Promise<IdempotencyState>;
  /** extends the owner's lease while it still works on the request (no-op once done or taken over) */
  idempotencyRenew(scope: string, key: string, owner: string, leaseMs: number, nowMs: number): Promise<void>;
  idempotencyComplete(scope: string, key: string, status: number, body: string, ttlMs: number, nowMs: number): Promise<void>;
  /** forgets the record, if `owner` still owns it */
  idempotencyAbort(scope: string, key: string, owner: string): Promise<void>;
}

/** The error a store throws when it cannot answer; the API maps it to 503. */
export class StoreUnavailableError extends Error {
  constructor(message: string, readonly cause?: unknown) {
    super(message);
    this.name = 'StoreUnavailableError';
  }
}
