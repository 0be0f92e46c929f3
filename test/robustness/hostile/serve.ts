// `dotcode serve` as a child process for the hostile-client suite (issue 16): a crash of the
// server must show as a dead child, not take the test runner down, and a SIGKILL must be real.
// stdout (the JSON log) and stderr are both kept: some checks are about what lands where.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { RedisStore } from '../../../server/src/store/redis';
import { SqliteStore } from '../../../server/src/store/sqlite';
import type { Store } from '../../../server/src/store/types';
import { createCustomer, initKeys } from '../../../server/src/admin';
import { REDIS_URL, redisAvailable, tempDir, testPrefix } from '../../server/helpers';

export const BIN = path.resolve(__dirname, '..', '..', '..', '..', 'bin', 'dotcode.js');

export type StoreName = 'sqlite' | 'redis';

/** Where one test's server keeps its state: a data folder, plus a Redis prefix on Redis. */
export interface Place { store: StoreName; dataDir: string; prefix: string }

export function place(store: StoreName, dataDir = tempDir(`hostile-${store}`)): Place {
  return { store, dataDir, prefix: testPrefix() };
}

export interface Served {
  url: string;
  port: number;
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  alive(): boolean;
  /** SIGTERM, then wait for the exit */
  stop(): Promise<void>;
  /** SIGKILL, then wait for the exit */
  kill(): Promise<void>;
}

/** Starts `dotcode serve` on an ephemeral port; resolves once it listens. */
export function serve(p: Place, args: string[] = [], env: Record<string, string> = {}): Promise<Served> {
  const storeArgs = p.store === 'redis' ? ['--redis', REDIS_URL, '--redis-prefix', p.prefix] : [];
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data', p.dataDir, ...storeArgs, ...args],
    { env: { ...process.env, REDIS_URL: '', DOTCODE_LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
  // a test that fails before its `after` hook stops the server must not leave it running
  const reap = () => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); };
  process.once('exit', reap);
  const exited = new Promise<void>((resolve) => child.once('exit', () => { process.off('exit', reap); resolve(); }));
  const served = (url: string): Served => ({
    url, port: Number(new URL(url).port), child,
    stdout: () => out, stderr: () => err,
    alive: () => child.exitCode === null && child.signalCode === null,
    async stop() { if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM'); await exited; },
    async kill() { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); await exited; },
  });
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`serve did not start: ${err}`)); }, 30_000);
    let started = false;
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /listening on (\S+)/.exec(err);
      if (m && !started) { started = true; clearTimeout(t); resolve(served(m[1])); }
    });
    child.once('exit', (code) => { if (!started) { clearTimeout(t); reject(new Error(`serve exited ${code}: ${err}`)); } });
  });
}

/** The same store the server uses, opened from the test (SQLite in WAL mode takes two processes). */
export async function openPlace(p: Place): Promise<Store> {
  if (p.store === 'redis') return RedisStore.connect(REDIS_URL, { prefix: p.prefix });
  fs.mkdirSync(p.dataDir, { recursive: true, mode: 0o700 });
  return new SqliteStore(path.join(p.dataDir, 'dotcode.sqlite'));
}

export async function dropPlace(p: Place, s: Store): Promise<void> {
  if (p.store === 'redis') await (s as RedisStore).dropAll();
  await s.close();
}

/** A running server on a fresh place of `storeName` with its signing keys, and the test's own
 *  handle on the same store: the setup most hostile suites share. */
export async function openServed(storeName: StoreName, args: string[] = [], env: Record<string, string> = {}):
  Promise<{ p: Place; store: Store; s: Served }> {
  const p = place(storeName);
  initKeys(p.dataDir);
  const store = await openPlace(p);
  return { p, store, s: await serve(p, args, env) };
}

/** Stops what openServed started (any part may be missing when its before hook failed). */
export async function closeServed(p: Place | undefined, store: Store | undefined, s: Served | undefined): Promise<void> {
  await s?.stop();
  if (p && store) await dropPlace(p, store);
}

export async function newCustomer(s: Store, quota = 100, plan?: string): Promise<{ id: string; key: string }> {
  const r = await createCustomer(s, { name: 'Hostile Test Co', quota, plan });
  return { id: r.customer_id, key: r.api_key };
}

/** Runs `body` once per store; the Redis run is skipped (with a notice) when no Redis answers. */
export function eachStore(title: string, body: (store: StoreName) => void, stores: StoreName[] = ['sqlite', 'redis']): void {
  for (const store of stores) {
    describe(`${title} [${store}]`, function () {
      before(async function () {
        if (store === 'redis' && !(await redisAvailable())) {
          console.log(`    NOTICE: no Redis answers at ${REDIS_URL}; skipping the Redis run of "${title}"`);
          this.skip();
        }
      });
      body(store);
    });
  }
}

export interface RawAnswer { status: number; head: string; body: string }

/**
 * Sends `bytes` exactly as written and reads until the server closes or answers. With
 * `hangUp`, the client closes its side right after writing (a client that goes away).
 */
export function raw(port: number, bytes: Buffer | string, o: { hangUp?: boolean; timeoutMs?: number } = {}): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const finish = () => {
      clearTimeout(t);
      const all = Buffer.concat(chunks).toString('latin1');
      const i = all.indexOf('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(all)?.[1] ?? 0), head: i < 0 ? all : all.slice(0, i), body: i < 0 ? '' : all.slice(i + 4) });
    };
    const t = setTimeout(() => { s.destroy(); }, o.timeoutMs ?? 10_000);
    s.on('data', (c) => chunks.push(c));
    s.on('error', () => undefined);
    s.on('close', finish);
    s.write(bytes, () => { if (o.hangUp) s.destroy(); });
  });
}

/** Waits until `check` is true, polling; the mocha timeout bounds it (no timing assertion). */
export async function until(check: () => boolean | Promise<boolean>, everyMs = 50): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, everyMs));
}
