// SQLite store: the embedded default (one file in the data folder, WAL journal).
//
// better-sqlite3 is synchronous, so each method runs to completion on the event loop and no two
// requests of this process interleave inside it. Check-and-consume statements still run in
// IMMEDIATE transactions, which take the database write lock up front: a second process sharing
// the file (e.g. an admin command while the server runs) can never read-then-write a stale count.
import Database from 'better-sqlite3';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  Customer, IdempotencyRef, IdempotencyState, LicenseRecord, MachineKind, MachineRecord, NewCustomer,
  RateResult, ReserveResult, SeatResult, Store, StoreUnavailableError,
} from './types';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS customers (
  id TEXT PRIMARY KEY, name TEXT NOT NULL, plan TEXT NOT NULL, quota INTEGER NOT NULL,
  signup TEXT NOT NULL, created_at INTEGER NOT NULL, key_hash TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS usage_period (
  customer_id TEXT NOT NULL, period TEXT NOT NULL, used INTEGER NOT NULL,
  PRIMARY KEY (customer_id, period));
CREATE TABLE IF NOT EXISTS usage_day (
  customer_id TEXT NOT NULL, day TEXT NOT NULL, used INTEGER NOT NULL,
  PRIMARY KEY (customer_id, day));
CREATE TABLE IF NOT EXISTS rate (
  key TEXT PRIMARY KEY, window_start INTEGER NOT NULL, hits INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS licenses (
  id TEXT PRIMARY KEY, org TEXT NOT NULL, plan TEXT NOT NULL, seats INTEGER NOT NULL,
  features TEXT NOT NULL, iat INTEGER NOT NULL, exp INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS revocations (license_id TEXT PRIMARY KEY, revoked_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS machines (
  license_id TEXT NOT NULL, machine_id TEXT NOT NULL, kind TEXT NOT NULL, info TEXT NOT NULL,
  first_seen INTEGER NOT NULL, last_seen INTEGER NOT NULL, lease_until INTEGER NOT NULL,
  scans INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (license_id, kind, machine_id));
CREATE TABLE IF NOT EXISTS usage_reports (
  license_id TEXT NOT NULL, report_id TEXT NOT NULL, at INTEGER NOT NULL,
  PRIMARY KEY (license_id, report_id));
CREATE TABLE IF NOT EXISTS idempotency (
  scope TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL, status INTEGER,
  body TEXT, expires INTEGER NOT NULL, PRIMARY KEY (scope, key));
`;

/** Columns added after the first release; a database made before gets them on open. */
const ADDED_COLUMNS: [table: string, column: string, type: string][] = [
  ['idempotency', 'owner', "TEXT NOT NULL DEFAULT ''"],
  ['idempotency', 'lease', 'INTEGER NOT NULL DEFAULT 0'],
  ['idempotency', 'charged_period', 'TEXT'],
  ['idempotency', 'charged_day', 'TEXT'],
];

/**
 * Before issue 15 a Live Scanner device kept its read count as a string in its machine record's
 * info (`info.scans`); it is now counted in the `scans` column like an SDK machine's reports.
 * Moves an old count over once (the member is removed, so running it again changes nothing).
 */
const SCANNER_SCANS_TO_COLUMN = `
UPDATE machines
SET scans = scans + COALESCE(CAST(json_extract(info, '$.scans') AS INTEGER), 0), info = json_remove(info, '$.scans')
WHERE kind = 'scanner' AND json_valid(info) AND json_type(info, '$.scans') IS NOT NULL;`;

interface CustomerRow { id: string; name: string; plan: string; quota: number; signup: string; created_at: number; key_hash: string }

function toCustomer(r: CustomerRow | undefined): Customer | null {
  if (!r) return null;
  return { id: r.id, name: r.name, plan: r.plan, quota: r.quota, signup: r.signup, createdAt: r.created_at, keyHash: r.key_hash };
}

export class SqliteStore implements Store {
  readonly kind = 'sqlite' as const;
  private db: Database.Database;

  /** `file`: the database path (its folder is created); ':memory:' for a private in-memory db */
  constructor(readonly file: string) {
    if (file !== ':memory:') {
      // Customers, key hashes and licences live here: private to the server's user, as
      // `admin init` makes the data folder, whichever command runs first (issue 16). An existing
      // folder or file keeps the mode its owner gave it.
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      fs.closeSync(fs.openSync(file, 'a', 0o600)); // SQLite gives its -wal and -shm files this mode too
    }
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    // NORMAL is durable across process crashes in WAL mode (only an OS crash can lose the last
    // commits); a SIGKILLed server never loses a committed reservation.
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(SCHEMA);
    for (const [table, column, type] of ADDED_COLUMNS) {
      const cols = this.db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[];
      if (!cols.some((c) => c.name === column)) this.db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${type}`);
    }
    this.db.exec(SCANNER_SCANS_TO_COLUMN);
  }

  private statements = new Map<string, Database.Statement>();

  /**
   * The prepared statement of `sql`, prepared once per store: parsing the SQL again on every call
   * took about a tenth of a millisecond of the event loop per decode request (six statements).
   */
  private stmt(sql: string): Database.Statement {
    let st = this.statements.get(sql);
    if (!st) {
      st = this.db.prepare(sql);
      this.statements.set(sql, st);
    }
    return st;
  }

  /** Runs `fn` and turns SQLite's own failures (busy, disk, closed) into StoreUnavailableError. */
  private run<T>(fn: () => T): Promise<T> {
    try {
      return Promise.resolve(fn());
    } catch (err) {
      const code = (err as { code?: string }).code ?? '';
      if (code.startsWith('SQLITE_') && !code.startsWith('SQLITE_CONSTRAINT') || !this.db.open) {
        return Promise.reject(new StoreUnavailableError(`sqlite: ${(err as Error).message}`, err));
      }
      return Promise.reject(err);
    }
  }

  ping(): Promise<void> {
    return this.run(() => { this.stmt('SELECT 1').get(); });
  }

  /** An embedded file is ready as soon as it is open. */
  async whenReady(): Promise<boolean> {
    return this.db.open;
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  createCustomer(c: NewCustomer, apiKeyHash: string, nowMs: number): Promise<void> {
    return this.run(() => {
      this.stmt('INSERT INTO customers (id,name,plan,quota,signup,created_at,key_hash) VALUES (?,?,?,?,?,?,?)')
        .run(c.id, c.name, c.plan, c.quota, c.signup, nowMs, apiKeyHash);
    });
  }

  getCustomer(id: string): Promise<Customer | null> {
    return this.run(() => toCustomer(this.stmt('SELECT * FROM customers WHERE id = ?').get(id) as CustomerRow | undefined));
  }

  listCustomers(): Promise<Customer[]> {
    return this.run(() => (this.stmt('SELECT * FROM customers ORDER BY created_at, id').all() as CustomerRow[]).map((r) => toCustomer(r)!));
  }

  customerByKeyHash(hash: string): Promise<Customer | null> {
    return this.run(() => toCustomer(this.stmt('SELECT * FROM customers WHERE key_hash = ?').get(hash) as CustomerRow | undefined));
  }

  setApiKeyHash(customerId: string, hash: string): Promise<boolean> {
    return this.run(() => this.stmt('UPDATE customers SET key_hash = ? WHERE id = ?').run(hash, customerId).changes === 1);
  }

  reserveScan(customerId: string, periodStart: string, day: string, quota: number, paidBy?: IdempotencyRef): Promise<ReserveResult> {
    const tx = this.db.transaction((): ReserveResult => {
      const row = this.stmt('SELECT used FROM usage_period WHERE customer_id = ? AND period = ?')
        .get(customerId, periodStart) as { used: number } | undefined;
      const used = row?.used ?? 0;
      if (used >= quota) return { ok: false, used };
      this.stmt(`INSERT INTO usage_period (customer_id, period, used) VALUES (?, ?, 1)
        ON CONFLICT (customer_id, period) DO UPDATE SET used = used + 1`).run(customerId, periodStart);
      this.stmt(`INSERT INTO usage_day (customer_id, day, used) VALUES (?, ?, 1)
        ON CONFLICT (customer_id, day) DO UPDATE SET used = used + 1`).run(customerId, day);
      if (paidBy) {
        this.stmt('UPDATE idempotency SET charged_period = ?, charged_day = ? WHERE scope = ? AND key = ?')
          .run(periodStart, day, paidBy.scope, paidBy.key);
      }
      return { ok: true, used: used + 1 };
    });
    return this.run(() => tx.immediate());
  }

  releaseScan(customerId: string, periodStart: string, day: string, paidBy?: IdempotencyRef): Promise<void> {
    const tx = this.db.transaction(() => {
      if (paidBy) {
        this.stmt('UPDATE idempotency SET charged_period = NULL, charged_day = NULL WHERE scope = ? AND key = ?')
          .run(paidBy.scope, paidBy.key);
      }
      this.stmt('UPDATE usage_period SET used = used - 1 WHERE customer_id = ? AND period = ? AND used > 0')
        .run(customerId, periodStart);
      this.stmt('UPDATE usage_day SET used = used - 1 WHERE customer_id = ? AND day = ? AND used > 0')
        .run(customerId, day);
    });
    return this.run(() => { tx.immediate(); });
  }

  usage(customerId: string, periodStart: string): Promise<number> {
    return this.run(() => {
      const row = this.stmt('SELECT used FROM usage_period WHERE customer_id = ? AND period = ?')
        .get(customerId, periodStart) as { used: number } | undefined;
      return row?.used ?? 0;
    });
  }

  dailyUsage(customerId: string, fromDay: string, toDay: string): Promise<Record<string, number>> {
    return this.run(() => {
      const rows = this.stmt('SELECT day, used FROM usage_day WHERE customer_id = ? AND day >= ? AND day <= ? ORDER BY day')
        .all(customerId, fromDay, toDay) as { day: string; used: number }[];
      const out: Record<string, number> = {};
      for (const r of rows) if (r.used > 0) out[r.day] = r.used;
      return out;
    });
  }

  rateHit(key: string, limit: number, windowMs: number, nowMs: number): Promise<RateResult> {
    const tx = this.db.transaction((): RateResult => {
      const row = this.stmt('SELECT window_start, hits FROM rate WHERE key = ?').get(key) as
        { window_start: number; hits: number } | undefined;
      let start = row?.window_start ?? nowMs;
      let hits = row?.hits ?? 0;
      if (nowMs - start >= windowMs) { start = nowMs; hits = 0; }
      const resetMs = start + windowMs - nowMs;
      if (hits >= limit) return { allowed: false, remaining: 0, resetMs };
      hits += 1;
      this.stmt(`INSERT INTO rate (key, window_start, hits) VALUES (?, ?, ?)
        ON CONFLICT (key) DO UPDATE SET window_start = excluded.window_start, hits = excluded.hits`).run(key, start, hits);
      return { allowed: true, remaining: limit - hits, resetMs };
    });
    return this.run(() => tx.immediate());
  }

  putLicense(l: LicenseRecord): Promise<void> {
    return this.run(() => {
      this.stmt(`INSERT INTO licenses (id, org, plan, seats, features, iat, exp) VALUES (?,?,?,?,?,?,?)
        ON CONFLICT (id) DO UPDATE SET org=excluded.org, plan=excluded.plan, seats=excluded.seats,
        features=excluded.features, iat=excluded.iat, exp=excluded.exp`)
        .run(l.id, l.org, l.plan, l.seats, JSON.stringify(l.features), l.iat, l.exp);
    });
  }

  getLicense(id: string): Promise<LicenseRecord | null> {
    return this.run(() => {
      const r = this.stmt('SELECT * FROM licenses WHERE id = ?').get(id) as
        { id: string; org: string; plan: string; seats: number; features: string; iat: number; exp: number } | undefined;
      return r ? { ...r, features: JSON.parse(r.features) as string[] } : null;
    });
  }

  revokeLicense(id: string, nowMs: number): Promise<void> {
    return this.run(() => {
      this.stmt('INSERT OR IGNORE INTO revocations (license_id, revoked_at) VALUES (?, ?)').run(id, nowMs);
    });
  }

  isRevoked(id: string): Promise<boolean> {
    return this.run(() => this.stmt('SELECT 1 FROM revocations WHERE license_id = ?').get(id) !== undefined);
  }

  acquireSeat(licenseId: string, machineId: string, kind: MachineKind, seats: number,
    info: Record<string, string>, leaseMs: number, nowMs: number): Promise<SeatResult> {
    const tx = this.db.transaction((): SeatResult => {
      const countLive = () => (this.stmt(
        'SELECT COUNT(*) AS n FROM machines WHERE license_id = ? AND kind = ? AND lease_until > ?')
        .get(licenseId, kind, nowMs) as { n: number }).n;
      const mine = this.stmt('SELECT lease_until FROM machines WHERE license_id = ? AND kind = ? AND machine_id = ?')
        .get(licenseId, kind, machineId) as { lease_until: number } | undefined;
      const holds = mine !== undefined && mine.lease_until > nowMs;
      if (!holds && countLive() >= seats) return { ok: false, seatsUsed: countLive() };
      this.stmt(`INSERT INTO machines (license_id, machine_id, kind, info, first_seen, last_seen, lease_until)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (license_id, kind, machine_id) DO UPDATE SET info = excluded.info,
        last_seen = excluded.last_seen, lease_until = excluded.lease_until`)
        .run(licenseId, machineId, kind, JSON.stringify(info), nowMs, nowMs, nowMs + leaseMs);
      return { ok: true, seatsUsed: countLive() };
    });
    return this.run(() => tx.immediate());
  }

  releaseSeat(licenseId: string, machineId: string, kind: MachineKind): Promise<void> {
    return this.run(() => {
      this.stmt('UPDATE machines SET lease_until = 0 WHERE license_id = ? AND kind = ? AND machine_id = ?')
        .run(licenseId, kind, machineId);
    });
  }

  listMachines(licenseId: string): Promise<MachineRecord[]> {
    return this.run(() => {
      const rows = this.stmt('SELECT * FROM machines WHERE license_id = ? ORDER BY first_seen, machine_id').all(licenseId) as
        { license_id: string; machine_id: string; kind: MachineKind; info: string; first_seen: number; last_seen: number; lease_until: number; scans: number }[];
      return rows.map((r) => ({
        licenseId: r.license_id, machineId: r.machine_id, kind: r.kind, info: JSON.parse(r.info) as Record<string, string>,
        firstSeen: r.first_seen, lastSeen: r.last_seen, leaseUntil: r.lease_until, scans: r.scans,
      }));
    });
  }

  recordMachineUsage(licenseId: string, machineId: string, reportId: string, scans: number, nowMs: number, kind: MachineKind = 'sdk'): Promise<boolean> {
    const tx = this.db.transaction((): boolean => {
      const ins = this.stmt('INSERT OR IGNORE INTO usage_reports (license_id, report_id, at) VALUES (?, ?, ?)')
        .run(licenseId, reportId, nowMs);
      if (ins.changes === 0) return false;
      this.stmt('UPDATE machines SET scans = scans + ?, last_seen = ? WHERE license_id = ? AND kind = ? AND machine_id = ?')
        .run(scans, nowMs, licenseId, kind, machineId);
      return true;
    });
    return this.run(() => tx.immediate());
  }

  idempotencyBegin(scope: string, key: string, fingerprint: string, owner: string, leaseMs: number, ttlMs: number,
    nowMs: number, takeOverFrom?: string): Promise<IdempotencyState> {
    const tx = this.db.transaction((): IdempotencyState => {
      const r = this.stmt(`SELECT fingerprint, status, body, expires, owner, lease, charged_period, charged_day
        FROM idempotency WHERE scope = ? AND key = ?`).get(scope, key) as
        { fingerprint: string; status: number | null; body: string | null; expires: number; owner: string; lease: number;
          charged_period: string | null; charged_day: string | null } | undefined;
      if (r && r.expires > nowMs) {
        if (r.fingerprint !== fingerprint) return { state: 'mismatch' };
        if (r.status !== null && r.body !== null) return { state: 'done', status: r.status, body: r.body };
        if (r.lease > nowMs && (takeOverFrom === undefined || r.owner !== takeOverFrom)) return { state: 'pending', owner: r.owner };
        this.stmt('UPDATE idempotency SET owner = ?, lease = ? WHERE scope = ? AND key = ?').run(owner, nowMs + leaseMs, scope, key);
        const charged = r.charged_period !== null && r.charged_day !== null ? { period: r.charged_period, day: r.charged_day } : null;
        return { state: 'resumed', charged };
      }
      this.stmt(`INSERT INTO idempotency (scope, key, fingerprint, status, body, expires, owner, lease, charged_period, charged_day)
        VALUES (?, ?, ?, NULL, NULL, ?, ?, ?, NULL, NULL)
        ON CONFLICT (scope, key) DO UPDATE SET fingerprint = excluded.fingerprint, status = NULL, body = NULL,
        expires = excluded.expires, owner = excluded.owner, lease = excluded.lease, charged_period = NULL, charged_day = NULL`)
        .run(scope, key, fingerprint, nowMs + ttlMs, owner, nowMs + leaseMs);
      return { state: 'new' };
    });
    return this.run(() => tx.immediate());
  }

  idempotencyRenew(scope: string, key: string, owner: string, leaseMs: number, nowMs: number): Promise<void> {
    return this.run(() => {
      this.stmt('UPDATE idempotency SET lease = ? WHERE scope = ? AND key = ? AND owner = ? AND status IS NULL')
        .run(nowMs + leaseMs, scope, key, owner);
    });
  }

  idempotencyComplete(scope: string, key: string, status: number, body: string, ttlMs: number, nowMs: number): Promise<void> {
    return this.run(() => {
      // the first answer stays: a slow first owner finishing after a takeover changes nothing
      this.stmt('UPDATE idempotency SET status = ?, body = ?, expires = ? WHERE scope = ? AND key = ? AND status IS NULL')
        .run(status, body, nowMs + ttlMs, scope, key);
    });
  }

  idempotencyAbort(scope: string, key: string, owner: string): Promise<void> {
    return this.run(() => { this.stmt('DELETE FROM idempotency WHERE scope = ? AND key = ? AND owner = ?').run(scope, key, owner); });
  }
}
