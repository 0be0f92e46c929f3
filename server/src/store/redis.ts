// Redis store: for several server processes (or machines) sharing one quota ledger.
//
// Every decision that must not race (check-and-consume of a scan, the burst limiter, seat leases,
// once-only usage reports, idempotency records) is one Lua script, which Redis runs atomically:
// no other client's command can interleave between its read and its write.
//
// Keys live under a configurable prefix (default "dotcode:") so tests and several deployments can
// share one Redis. The client never queues commands while disconnected (enableOfflineQueue off):
// a request made while Redis is down fails at once with StoreUnavailableError, and the API answers
// 503 instead of decoding for free. ioredis keeps reconnecting in the background, so the service
// recovers by itself when Redis returns.
import Redis from 'ioredis';
import {
  Customer, IdempotencyRef, IdempotencyState, LicenseRecord, MachineKind, MachineRecord, NewCustomer,
  RateResult, ReserveResult, SeatResult, Store, StoreUnavailableError,
} from './types';

const DAY_S = 86400;
/** usage counters outlive their period comfortably (portal history), then Redis drops them */
const USAGE_TTL_S = 400 * DAY_S;
const REPORT_TTL_S = 90 * DAY_S;

// Takes one scan of the quota (KEYS[1] the period's counter, KEYS[2] the day's; ARGV[1] quota,
// ARGV[2] ttl) and gives it back. The paid variants do the same and, in the same atomic step,
// mark or unmark the idempotency record KEYS[3] as paid (period ARGV[3], day ARGV[4]), so a retry
// after a crash resumes against this scan instead of taking a second one.
function reserveScript(andThen: string): string {
  return `
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
if used >= tonumber(ARGV[1]) then return {0, used} end
used = redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
redis.call('INCR', KEYS[2])
redis.call('EXPIRE', KEYS[2], ARGV[2])
${andThen}
return {1, used}`;
}
function releaseScript(andThen: string): string {
  return `
if tonumber(redis.call('GET', KEYS[1]) or '0') > 0 then redis.call('DECR', KEYS[1]) end
if tonumber(redis.call('GET', KEYS[2]) or '0') > 0 then redis.call('DECR', KEYS[2]) end
${andThen}
return 1`;
}
const RESERVE = reserveScript('');
const RESERVE_PAID = reserveScript(`if redis.call('EXISTS', KEYS[3]) == 1 then redis.call('HSET', KEYS[3], 'cp', ARGV[3], 'cd', ARGV[4]) end`);
const RELEASE = releaseScript('');
const RELEASE_PAID = releaseScript(`redis.call('HDEL', KEYS[3], 'cp', 'cd')`);

// Fixed window: the counter key expires with the window.
const RATE = `
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('SET', KEYS[1], 0, 'PX', ARGV[2])
  ttl = tonumber(ARGV[2])
end
local hits = tonumber(redis.call('GET', KEYS[1]))
if hits >= tonumber(ARGV[1]) then return {0, 0, ttl} end
hits = redis.call('INCR', KEYS[1])
return {1, tonumber(ARGV[1]) - hits, ttl}`;

// KEYS: lease zset (member machine -> lease end ms), machine hash, machine index set
// ARGV: machine id, seats, now ms, lease end ms, info json, kind
const SEAT = `
local now = tonumber(ARGV[3])
local mine = redis.call('ZSCORE', KEYS[1], ARGV[1])
local live = redis.call('ZCOUNT', KEYS[1], '(' .. ARGV[3], '+inf')
if ((not mine) or tonumber(mine) <= now) and live >= tonumber(ARGV[2]) then return {0, live} end
redis.call('ZADD', KEYS[1], ARGV[4], ARGV[1])
if redis.call('HEXISTS', KEYS[2], 'first_seen') == 0 then
  redis.call('HSET', KEYS[2], 'first_seen', ARGV[3], 'scans', 0)
end
-- before issue 15 a Live Scanner device kept its count in info.scans: fold it into scans once,
-- before the new info (without it) replaces the old
local old = redis.call('HGET', KEYS[2], 'info')
if old then
  local ok, decoded = pcall(cjson.decode, old)
  if ok and type(decoded) == 'table' and decoded.scans ~= nil and tonumber(decoded.scans) then
    redis.call('HINCRBY', KEYS[2], 'scans', math.floor(tonumber(decoded.scans)))
  end
end
redis.call('HSET', KEYS[2], 'last_seen', ARGV[3], 'info', ARGV[5], 'kind', ARGV[6], 'machine_id', ARGV[1])
redis.call('SADD', KEYS[3], ARGV[6] .. ':' .. ARGV[1])
return {1, redis.call('ZCOUNT', KEYS[1], '(' .. ARGV[3], '+inf')}`;

// KEYS: report marker, machine hash. ARGV: scans, now, marker ttl s
const REPORT = `
if not redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[3]) then return 0 end
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('HINCRBY', KEYS[2], 'scans', ARGV[1])
  redis.call('HSET', KEYS[2], 'last_seen', ARGV[2])
end
return 1`;

// ARGV: fingerprint, owner, lease end ms, record ttl ms, now ms, owner to take over from ('' none)
const IDEM_BEGIN = `
local r = redis.call('HMGET', KEYS[1], 'fp', 'status', 'body', 'owner', 'lease', 'cp', 'cd')
if r[1] then
  if r[1] ~= ARGV[1] then return {'mismatch'} end
  if r[2] then return {'done', r[2], r[3]} end
  if tonumber(r[5] or '0') > tonumber(ARGV[5]) and (ARGV[6] == '' or r[4] ~= ARGV[6]) then return {'pending', r[4] or ''} end
  redis.call('HSET', KEYS[1], 'owner', ARGV[2], 'lease', ARGV[3])
  return {'resumed', r[6] or '', r[7] or ''}
end
redis.call('HSET', KEYS[1], 'fp', ARGV[1], 'owner', ARGV[2], 'lease', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return {'new'}`;

// ARGV: owner, lease end ms
const IDEM_RENEW = `
if redis.call('HGET', KEYS[1], 'owner') == ARGV[1] and redis.call('HEXISTS', KEYS[1], 'status') == 0 then
  redis.call('HSET', KEYS[1], 'lease', ARGV[2])
end
return 1`;

const IDEM_ABORT = `
if redis.call('HGET', KEYS[1], 'owner') == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1`;

const IDEM_COMPLETE = `
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HEXISTS', KEYS[1], 'status') == 1 then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'body', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`;

type Scripted = Redis & {
  dcReserve(k1: string, k2: string, quota: number, ttl: number): Promise<[number, number]>;
  dcRelease(k1: string, k2: string): Promise<number>;
  dcRate(k: string, limit: number, windowMs: number): Promise<[number, number, number]>;
  dcSeat(k1: string, k2: string, k3: string, mid: string, seats: number, now: number, until: number, info: string, kind: string): Promise<[number, number]>;
  dcReport(k1: string, k2: string, scans: number, now: number, ttl: number): Promise<number>;
  dcReservePaid(k1: string, k2: string, k3: string, quota: number, ttl: number, period: string, day: string): Promise<[number, number]>;
  dcReleasePaid(k1: string, k2: string, k3: string): Promise<number>;
  dcIdemBegin(k: string, fp: string, owner: string, leaseUntil: number, ttl: number, now: number, takeOverFrom: string): Promise<string[]>;
  dcIdemRenew(k: string, owner: string, leaseUntil: number): Promise<number>;
  dcIdemAbort(k: string, owner: string): Promise<number>;
  dcIdemComplete(k: string, status: number, body: string, ttl: number): Promise<number>;
};

export interface RedisStoreOptions {
  /** key prefix; default "dotcode:" */
  prefix?: string;
  /** how long a command may take before the store counts as down (ms) */
  commandTimeoutMs?: number;
  /** how long connect() waits for the first connection (ms) */
  connectTimeoutMs?: number;
  /**
   * false: return at once even if Redis does not answer yet (the server starts and answers 503
   * until it does, e.g. when containers start in any order). Default true: fail fast (admin).
   */
  waitForReady?: boolean;
}

export class RedisStore implements Store {
  readonly kind = 'redis' as const;
  readonly prefix: string;
  private constructor(private readonly r: Scripted, prefix: string) {
    this.prefix = prefix;
  }

  /** Connects and waits until Redis answers; throws StoreUnavailableError if it does not in time. */
  static async connect(url: string, opts: RedisStoreOptions = {}): Promise<RedisStore> {
    const client = new Redis(url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: opts.commandTimeoutMs ?? 2000,
      connectTimeout: opts.connectTimeoutMs ?? 3000,
      // keep trying forever, at most once a second: the API recovers when Redis returns
      retryStrategy: (times) => Math.min(times * 100, 1000),
      lazyConnect: true,
    });
    // ioredis emits 'error' on every failed reconnect; without a listener Node would crash.
    client.on('error', () => { /* surfaced per command as StoreUnavailableError */ });
    const s = client as Scripted;
    s.defineCommand('dcReserve', { numberOfKeys: 2, lua: RESERVE });
    s.defineCommand('dcRelease', { numberOfKeys: 2, lua: RELEASE });
    s.defineCommand('dcRate', { numberOfKeys: 1, lua: RATE });
    s.defineCommand('dcSeat', { numberOfKeys: 3, lua: SEAT });
    s.defineCommand('dcReport', { numberOfKeys: 2, lua: REPORT });
    s.defineCommand('dcReservePaid', { numberOfKeys: 3, lua: RESERVE_PAID });
    s.defineCommand('dcReleasePaid', { numberOfKeys: 3, lua: RELEASE_PAID });
    s.defineCommand('dcIdemBegin', { numberOfKeys: 1, lua: IDEM_BEGIN });
    s.defineCommand('dcIdemRenew', { numberOfKeys: 1, lua: IDEM_RENEW });
    s.defineCommand('dcIdemAbort', { numberOfKeys: 1, lua: IDEM_ABORT });
    s.defineCommand('dcIdemComplete', { numberOfKeys: 1, lua: IDEM_COMPLETE });
    if (opts.waitForReady === false) {
      // the first attempt may fail; ioredis keeps retrying with retryStrategy
      client.connect().catch(() => undefined);
      return new RedisStore(s, opts.prefix ?? 'dotcode:');
    }
    try {
      await client.connect();
      await client.ping();
    } catch (err) {
      client.disconnect();
      throw new StoreUnavailableError(`redis at ${redactUrl(url)} does not answer: ${(err as Error).message}`, err);
    }
    return new RedisStore(s, opts.prefix ?? 'dotcode:');
  }

  private k(...parts: string[]): string {
    return this.prefix + parts.join(':');
  }

  private async run<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw new StoreUnavailableError(`redis: ${(err as Error).message}`, err);
    }
  }

  ping(): Promise<void> {
    return this.run(async () => { await this.r.ping(); });
  }

  whenReady(timeoutMs: number): Promise<boolean> {
    if (this.r.status === 'ready') return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (ok: boolean) => { clearTimeout(timer); this.r.off('ready', onReady); resolve(ok); };
      const onReady = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      timer.unref();
      this.r.once('ready', onReady);
    });
  }

  async close(): Promise<void> {
    try { await this.r.quit(); } catch { this.r.disconnect(); }
  }

  /** Deletes every key under this store's prefix (tests use a unique prefix per run). */
  async dropAll(): Promise<void> {
    let cursor = '0';
    do {
      const [next, keys] = await this.r.scan(cursor, 'MATCH', `${this.prefix}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length) await this.r.del(...keys);
    } while (cursor !== '0');
  }

  createCustomer(c: NewCustomer, apiKeyHash: string, nowMs: number): Promise<void> {
    return this.run(async () => {
      const ok = await this.r.set(this.k('key', apiKeyHash), c.id, 'NX');
      if (ok !== 'OK') throw new Error('api key hash already in use');
      await this.r.hset(this.k('cust', c.id), {
        id: c.id, name: c.name, plan: c.plan, quota: String(c.quota), signup: c.signup,
        created_at: String(nowMs), key_hash: apiKeyHash,
      });
    });
  }

  getCustomer(id: string): Promise<Customer | null> {
    return this.run(async () => {
      const h = await this.r.hgetall(this.k('cust', id));
      if (!h.id) return null;
      return { id: h.id, name: h.name, plan: h.plan, quota: Number(h.quota), signup: h.signup, createdAt: Number(h.created_at), keyHash: h.key_hash };
    });
  }

  listCustomers(): Promise<Customer[]> {
    return this.run(async () => {
      // customers are few (one per company) and this is an operator's command: a SCAN is fine
      const out: Customer[] = [];
      let cursor = '0';
      do {
        const [next, keys] = await this.r.scan(cursor, 'MATCH', this.k('cust', '*'), 'COUNT', 500);
        cursor = next;
        for (const k of keys) {
          const c = await this.getCustomer(k.slice(this.k('cust', '').length));
          if (c) out.push(c);
        }
      } while (cursor !== '0');
      return out.sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
    });
  }

  customerByKeyHash(hash: string): Promise<Customer | null> {
    return this.run(async () => {
      const id = await this.r.get(this.k('key', hash));
      if (!id) return null;
      const c = await this.getCustomer(id);
      // the key index may outlive a rotation for an instant: trust only the customer's own hash
      return c && c.keyHash === hash ? c : null;
    });
  }

  setApiKeyHash(customerId: string, hash: string): Promise<boolean> {
    return this.run(async () => {
      const old = await this.r.hget(this.k('cust', customerId), 'key_hash');
      if (!old) return false;
      await this.r.multi()
        .set(this.k('key', hash), customerId)
        .hset(this.k('cust', customerId), 'key_hash', hash)
        .del(this.k('key', old))
        .exec();
      return true;
    });
  }

  reserveScan(customerId: string, periodStart: string, day: string, quota: number, paidBy?: IdempotencyRef): Promise<ReserveResult> {
    return this.run(async () => {
      const [ok, used] = paidBy
        ? await this.r.dcReservePaid(this.k('use', customerId, periodStart), this.k('day', customerId, day), this.k('idem', paidBy.scope, paidBy.key),
          quota, USAGE_TTL_S, periodStart, day)
        : await this.r.dcReserve(this.k('use', customerId, periodStart), this.k('day', customerId, day), quota, USAGE_TTL_S);
      return { ok: ok === 1, used: Number(used) };
    });
  }

  releaseScan(customerId: string, periodStart: string, day: string, paidBy?: IdempotencyRef): Promise<void> {
    return this.run(async () => {
      if (paidBy) await this.r.dcReleasePaid(this.k('use', customerId, periodStart), this.k('day', customerId, day), this.k('idem', paidBy.scope, paidBy.key));
      else await this.r.dcRelease(this.k('use', customerId, periodStart), this.k('day', customerId, day));
    });
  }

  usage(customerId: string, periodStart: string): Promise<number> {
    return this.run(async () => Number((await this.r.get(this.k('use', customerId, periodStart))) ?? 0));
  }

  dailyUsage(customerId: string, fromDay: string, toDay: string): Promise<Record<string, number>> {
    return this.run(async () => {
      const days: string[] = [];
      for (let t = Date.parse(`${fromDay}T00:00:00Z`); t <= Date.parse(`${toDay}T00:00:00Z`) && days.length < 400; t += DAY_S * 1000) {
        days.push(new Date(t).toISOString().slice(0, 10));
      }
      if (days.length === 0) return {};
      const vals = await this.r.mget(days.map((d) => this.k('day', customerId, d)));
      const out: Record<string, number> = {};
      days.forEach((d, i) => { const v = Number(vals[i] ?? 0); if (v > 0) out[d] = v; });
      return out;
    });
  }

  rateHit(key: string, limit: number, windowMs: number, _nowMs: number): Promise<RateResult> {
    // Redis keeps the window with its own clock (PEXPIRE), so every server process agrees on it.
    return this.run(async () => {
      const [allowed, remaining, ttl] = await this.r.dcRate(this.k('rate', key), limit, windowMs);
      return { allowed: allowed === 1, remaining: Number(remaining), resetMs: Number(ttl) };
    });
  }

  putLicense(l: LicenseRecord): Promise<void> {
    return this.run(async () => {
      await this.r.hset(this.k('lic', l.id), {
        id: l.id, org: l.org, plan: l.plan, seats: String(l.seats), features: JSON.stringify(l.features),
        iat: String(l.iat), exp: String(l.exp),
      });
    });
  }

  getLicense(id: string): Promise<LicenseRecord | null> {
    return this.run(async () => {
      const h = await this.r.hgetall(this.k('lic', id));
      if (!h.id) return null;
      return { id: h.id, org: h.org, plan: h.plan, seats: Number(h.seats), features: JSON.parse(h.features) as string[], iat: Number(h.iat), exp: Number(h.exp) };
    });
  }

  revokeLicense(id: string, nowMs: number): Promise<void> {
    return this.run(async () => { await this.r.set(this.k('rev', id), String(nowMs), 'NX'); });
  }

  isRevoked(id: string): Promise<boolean> {
    return this.run(async () => (await this.r.exists(this.k('rev', id))) === 1);
  }

  acquireSeat(licenseId: string, machineId: string, kind: MachineKind, seats: number,
    info: Record<string, string>, leaseMs: number, nowMs: number): Promise<SeatResult> {
    return this.run(async () => {
      const [ok, used] = await this.r.dcSeat(this.k('lease', licenseId, kind), this.k('mach', licenseId, kind, machineId),
        this.k('machines', licenseId), machineId, seats, nowMs, nowMs + leaseMs, JSON.stringify(info), kind);
      return { ok: ok === 1, seatsUsed: Number(used) };
    });
  }

  releaseSeat(licenseId: string, machineId: string, kind: MachineKind): Promise<void> {
    return this.run(async () => {
      // keep the machine in the list (last seen), give its seat back
      await this.r.zadd(this.k('lease', licenseId, kind), 'XX', 0, machineId);
    });
  }

  listMachines(licenseId: string): Promise<MachineRecord[]> {
    return this.run(async () => {
      const members = await this.r.smembers(this.k('machines', licenseId));
      const out: MachineRecord[] = [];
      for (const m of members) {
        const i = m.indexOf(':');
        const kind = m.slice(0, i) as MachineKind, mid = m.slice(i + 1);
        const [h, lease] = await Promise.all([
          this.r.hgetall(this.k('mach', licenseId, kind, mid)),
          this.r.zscore(this.k('lease', licenseId, kind), mid),
        ]);
        if (!h.machine_id) continue;
        const info = JSON.parse(h.info ?? '{}') as Record<string, string>;
        // a device not seen since before issue 15 still has its count in info.scans (see SEAT)
        const legacyScans = Number(info.scans ?? 0) || 0;
        delete info.scans;
        out.push({
          licenseId, machineId: mid, kind, info,
          firstSeen: Number(h.first_seen), lastSeen: Number(h.last_seen), leaseUntil: Number(lease ?? 0), scans: Number(h.scans ?? 0) + legacyScans,
        });
      }
      return out.sort((a, b) => a.firstSeen - b.firstSeen || a.machineId.localeCompare(b.machineId));
    });
  }

  recordMachineUsage(licenseId: string, machineId: string, reportId: string, scans: number, nowMs: number, kind: MachineKind = 'sdk'): Promise<boolean> {
    return this.run(async () => (await this.r.dcReport(this.k('report', licenseId, reportId),
      this.k('mach', licenseId, kind, machineId), scans, nowMs, REPORT_TTL_S)) === 1);
  }

  idempotencyBegin(scope: string, key: string, fingerprint: string, owner: string, leaseMs: number, ttlMs: number,
    nowMs: number, takeOverFrom?: string): Promise<IdempotencyState> {
    return this.run(async () => {
      const r = await this.r.dcIdemBegin(this.k('idem', scope, key), fingerprint, owner, nowMs + leaseMs, ttlMs, nowMs, takeOverFrom ?? '');
      if (r[0] === 'done') return { state: 'done', status: Number(r[1]), body: String(r[2]) };
      if (r[0] === 'pending') return { state: 'pending', owner: String(r[1]) };
      if (r[0] === 'resumed') return { state: 'resumed', charged: r[1] && r[2] ? { period: String(r[1]), day: String(r[2]) } : null };
      return { state: r[0] as 'new' | 'mismatch' };
    });
  }

  idempotencyRenew(scope: string, key: string, owner: string, leaseMs: number, nowMs: number): Promise<void> {
    return this.run(async () => { await this.r.dcIdemRenew(this.k('idem', scope, key), owner, nowMs + leaseMs); });
  }

  idempotencyComplete(scope: string, key: string, status: number, body: string, ttlMs: number, _nowMs: number): Promise<void> {
    return this.run(async () => { await this.r.dcIdemComplete(this.k('idem', scope, key), status, body, ttlMs); });
  }

  idempotencyAbort(scope: string, key: string, owner: string): Promise<void> {
    return this.run(async () => { await this.r.dcIdemAbort(this.k('idem', scope, key), owner); });
  }
}

/** A Redis URL without its password, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'redis://(unparsable url)';
  }
}
