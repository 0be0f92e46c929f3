// `dotcode serve` and `dotcode admin` (DESIGN.md 6). lib/cli dispatches to runServe/runAdmin.
// Exit codes: 0 done, 1 failed, 2 usage error.
import * as path from 'node:path';
import { createCustomer, initKeys, issueLicense, listCustomers, revokeLicense, rotateApiKey, stamp, UsageError } from '../admin';
import { openStore, redactUrl } from '../store';
import type { Store } from '../store/types';
import { startServer } from '../server';
import type { ServerConfig } from '../app';

interface Parsed { flags: Map<string, string | true>; positional: string[] }

const BOOLEAN = new Set(['json', 'force', 'help', 'trust-proxy']);

function parse(argv: string[], allowed: string[]): Parsed {
  const flags = new Map<string, string | true>();
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) { positional.push(a); continue; }
    const eq = a.indexOf('=');
    const name = a.slice(2, eq < 0 ? undefined : eq);
    if (!allowed.includes(name) && name !== 'help') throw new UsageError(`unknown option --${name}`);
    if (BOOLEAN.has(name)) { flags.set(name, true); continue; }
    const v = eq >= 0 ? a.slice(eq + 1) : argv[++i];
    if (v === undefined) throw new UsageError(`--${name} needs a value`);
    flags.set(name, v);
  }
  return { flags, positional };
}

const str = (p: Parsed, n: string): string | undefined => { const v = p.flags.get(n); return typeof v === 'string' ? v : undefined; };
const need = (p: Parsed, n: string): string => { const v = str(p, n); if (!v) throw new UsageError(`--${n} is required`); return v; };
function int(p: Parsed, n: string): number | undefined {
  const v = str(p, n);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new UsageError(`--${n} must be a whole number`);
  return Number(v);
}
const dataDir = (p: Parsed) => path.resolve(str(p, 'data') ?? process.env.DOTCODE_DATA ?? './data');
const redisUrl = (p: Parsed) => str(p, 'redis') ?? (process.env.REDIS_URL || undefined);

const SERVE_HELP = `usage: dotcode serve [--port 8080] [--host 127.0.0.1] [--data DIR] [--redis URL] [--tls-cert F --tls-key F]
                     [--public-url URL] [--trust-proxy]
  --data defaults to $DOTCODE_DATA or ./data; --redis to $REDIS_URL (else the SQLite store in the data folder)
  --public-url: the address downloaded SDKs report to (default: the listening address)
  --trust-proxy: behind a load balancer, take client addresses from X-Forwarded-For`;

export async function runServe(argv: string[]): Promise<number> {
  let p: Parsed;
  try {
    p = parse(argv, ['port', 'host', 'data', 'redis', 'tls-cert', 'tls-key', 'public-url', 'redis-prefix', 'trust-proxy']);
    if (p.flags.has('help')) { process.stdout.write(SERVE_HELP + '\n'); return 0; }
    if (p.positional.length) throw new UsageError(`unexpected argument ${p.positional[0]}`);
    if (!!str(p, 'tls-cert') !== !!str(p, 'tls-key')) throw new UsageError('--tls-cert and --tls-key go together');
  } catch (e) {
    process.stderr.write(`dotcode serve: ${(e as Error).message}\n${SERVE_HELP}\n`);
    return 2;
  }
  const port = int(p, 'port') ?? 8080;
  // DOTCODE_RATE_LIMIT="N/MS": the per-key burst limit (default 50 per 1000 ms)
  const rl = /^(\d+)\/(\d+)$/.exec(process.env.DOTCODE_RATE_LIMIT ?? '');
  const config: Partial<ServerConfig> = {};
  if (rl) config.rateLimit = { limit: Number(rl[1]), windowMs: Number(rl[2]) };
  // DOTCODE_DOWNLOAD_LIMIT="N/MS": SDK downloads per licence (default 20 per hour)
  const dl = /^(\d+)\/(\d+)$/.exec(process.env.DOTCODE_DOWNLOAD_LIMIT ?? '');
  if (dl) config.downloadRateLimit = { limit: Number(dl[1]), windowMs: Number(dl[2]) };
  if (str(p, 'public-url')) config.publicUrl = str(p, 'public-url')!;
  if (p.flags.has('trust-proxy')) config.trustProxy = true;
  let running: Awaited<ReturnType<typeof startServer>>;
  try {
    running = await startServer({
      port, host: str(p, 'host') ?? '127.0.0.1', dataDir: dataDir(p), redisUrl: redisUrl(p),
      redisPrefix: str(p, 'redis-prefix') ?? process.env.DOTCODE_REDIS_PREFIX,
      tlsCert: str(p, 'tls-cert'), tlsKey: str(p, 'tls-key'),
      config, guardProcess: true,
    });
  } catch (e) {
    process.stderr.write(`dotcode serve: cannot start: ${(e as Error).message}\n`);
    return 1;
  }
  process.stderr.write(`dotcode api listening on ${running.url} (store: ${running.deps.store.kind}${redisUrl(p) ? ' ' + redactUrl(redisUrl(p)!) : ', ' + dataDir(p)})\n`);
  await new Promise<void>((resolve) => {
    const stop = () => { process.off('SIGINT', stop); process.off('SIGTERM', stop); resolve(); };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await running.close();
  // the engine's worker threads are unref'd; nothing else keeps the process alive
  return 0;
}

const ADMIN_HELP = `usage:
  dotcode admin init [--data DIR] [--force]
  dotcode admin customer create --name N [--plan free] [--quota N] [--signup YYYY-MM-DD] [--json]
  dotcode admin customer list [--json]
  dotcode admin license issue --org O --plan P --seats N --features sdk,scanner [--issued YYYY-MM-DD] [--expires YYYY-MM-DD | --days 365] [--url URL] [--json]
  dotcode admin license revoke ID
  dotcode admin apikey rotate CUSTOMER_ID [--json]
  dotcode admin stamp [--data DIR] [--url URL] [PACKAGE_DIR]
every command takes --data DIR ($DOTCODE_DATA or ./data) and --redis URL ($REDIS_URL)`;

function print(json: boolean, obj: Record<string, unknown>, human: string): void {
  process.stdout.write(json ? JSON.stringify(obj) + '\n' : human + '\n');
}

async function withStore<T>(p: Parsed, fn: (s: Store) => Promise<T>): Promise<T> {
  const store = await openStore({ dataDir: dataDir(p), redisUrl: redisUrl(p), redisPrefix: str(p, 'redis-prefix') ?? process.env.DOTCODE_REDIS_PREFIX });
  try { return await fn(store); } finally { await store.close(); }
}

export async function runAdmin(argv: string[]): Promise<number> {
  const common = ['data', 'redis', 'redis-prefix', 'json'];
  const [a, b] = argv;
  try {
    if (a === undefined || a === '--help' || a === 'help') { process.stdout.write(ADMIN_HELP + '\n'); return a ? 0 : 2; }
    if (a === 'init') {
      const p = parse(argv.slice(1), [...common, 'force']);
      const r = initKeys(dataDir(p), p.flags.has('force'));
      print(p.flags.has('json'), { kid: r.kid, data: dataDir(p) }, `supplier key pair created in ${dataDir(p)}/supplier (key id ${r.kid})`);
      return 0;
    }
    if (a === 'customer' && b === 'create') {
      const p = parse(argv.slice(2), [...common, 'name', 'plan', 'quota', 'signup']);
      const r = await withStore(p, (s) => createCustomer(s, { name: need(p, 'name'), plan: str(p, 'plan'), quota: int(p, 'quota'), signup: str(p, 'signup') }));
      print(p.flags.has('json'), r, `customer ${r.customer_id}\napi key (shown once, store it safely): ${r.api_key}`);
      return 0;
    }
    if (a === 'customer' && b === 'list') {
      const p = parse(argv.slice(2), common);
      const rows = await withStore(p, (s) => listCustomers(s));
      if (p.flags.has('json')) {
        process.stdout.write(JSON.stringify(rows) + '\n');
      } else {
        const lines = rows.map((r) => [r.customer_id, r.plan, String(r.quota), r.signup, r.name].join('\t'));
        process.stdout.write(['id\tplan\tquota\tsignup\tname', ...lines].join('\n') + '\n');
      }
      return 0;
    }
    if (a === 'license' && b === 'issue') {
      const p = parse(argv.slice(2), [...common, 'org', 'plan', 'seats', 'features', 'issued', 'expires', 'days', 'url']);
      const seats = int(p, 'seats');
      if (seats === undefined) throw new UsageError('--seats is required');
      const r = await withStore(p, (s) => issueLicense(s, dataDir(p), {
        org: need(p, 'org'), plan: need(p, 'plan'), seats, features: need(p, 'features').split(',').map((x) => x.trim()).filter(Boolean),
        issued: str(p, 'issued'), expires: str(p, 'expires'), days: int(p, 'days'), url: str(p, 'url') ?? process.env.DOTCODE_PUBLIC_URL,
      }));
      print(p.flags.has('json'), r, `licence ${r.license_id}\n${r.license_key}`);
      return 0;
    }
    if (a === 'license' && b === 'revoke') {
      const p = parse(argv.slice(2), common);
      if (p.positional.length !== 1) throw new UsageError('license revoke needs one licence id');
      await withStore(p, (s) => revokeLicense(s, p.positional[0]));
      print(p.flags.has('json'), { license_id: p.positional[0], revoked: true }, `licence ${p.positional[0]} revoked`);
      return 0;
    }
    if (a === 'apikey' && b === 'rotate') {
      const p = parse(argv.slice(2), common);
      if (p.positional.length !== 1) throw new UsageError('apikey rotate needs one customer id');
      const r = await withStore(p, (s) => rotateApiKey(s, p.positional[0]));
      print(p.flags.has('json'), r, `new api key for ${r.customer_id} (the old one no longer works): ${r.api_key}`);
      return 0;
    }
    if (a === 'stamp') {
      const p = parse(argv.slice(1), [...common, 'url']);
      if (p.positional.length > 1) throw new UsageError('stamp takes at most one package folder');
      const r = stamp(dataDir(p), str(p, 'url') ?? process.env.DOTCODE_PUBLIC_URL ?? '', p.positional[0] ? path.resolve(p.positional[0]) : undefined);
      print(p.flags.has('json'), r, `stamped ${r.package}/supplier.json with key ${r.kid}${r.url ? ' and url ' + r.url : ''}`);
      return 0;
    }
    throw new UsageError(`unknown admin command "${argv.slice(0, 2).join(' ')}"`);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`dotcode admin: ${e.message}\n${ADMIN_HELP}\n`);
      return 2;
    }
    process.stderr.write(`dotcode admin: ${(e as Error).message}\n`);
    return 1;
  }
}
