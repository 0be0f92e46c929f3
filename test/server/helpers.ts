// Shared helpers for the server tests: temp folders, a Redis probe, store factories.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as net from 'node:net';
import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { RedisStore } from '../../server/src/store/redis';
import { SqliteStore } from '../../server/src/store/sqlite';
import { Store } from '../../server/src/store/types';

export const REDIS_URL = process.env.DOTCODE_TEST_REDIS ?? 'redis://127.0.0.1:6379';

export function tempDir(tag: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `dc-${tag}-`));
}

let redisAnswer: Promise<boolean> | undefined;
/** True when a Redis answers PING at REDIS_URL (checked once per test run). */
export function redisAvailable(): Promise<boolean> {
  redisAnswer ??= new Promise<boolean>((resolve) => {
    const u = new URL(REDIS_URL);
    const sock = net.connect(Number(u.port || 6379), u.hostname);
    const done = (v: boolean) => { sock.destroy(); resolve(v); };
    sock.setTimeout(1000, () => done(false));
    sock.on('error', () => done(false));
    sock.on('connect', () => sock.write('PING\r\n'));
    sock.on('data', (d) => done(d.toString().startsWith('+PONG')));
  });
  return redisAnswer;
}

/** A prefix no other test run uses, so parallel runs and leftovers never collide. */
export function testPrefix(): string {
  return `dctest:${process.pid}:${randomBytes(4).toString('hex')}:`;
}

export interface StoreKind {
  name: 'sqlite' | 'redis';
  make(): Promise<Store>;
  dispose(s: Store): Promise<void>;
}

export const sqliteKind: StoreKind = {
  name: 'sqlite',
  async make() { return new SqliteStore(path.join(tempDir('sqlite'), 'dotcode.sqlite')); },
  async dispose(s) { await s.close(); },
};

export const redisKind: StoreKind = {
  name: 'redis',
  async make() { return RedisStore.connect(REDIS_URL, { prefix: testPrefix() }); },
  async dispose(s) { await (s as RedisStore).dropAll(); await s.close(); },
};

/** Describes a suite once per store; the Redis one is skipped, with a notice, when none answers. */
export function forEachStore(title: string, body: (kind: StoreKind) => void): void {
  for (const kind of [sqliteKind, redisKind]) {
    describe(`${title} [${kind.name}]`, function () {
      before(async function () {
        if (kind.name === 'redis' && !(await redisAvailable())) {
          console.log(`    NOTICE: no Redis answers at ${REDIS_URL}; skipping the Redis run of "${title}"`);
          this.skip();
        }
      });
      body(kind);
    });
  }
}

// ---- running servers ----
import * as http from 'node:http';
import { startServer, RunningServer, StartOptions } from '../../server/src/server';
import { createCustomer } from '../../server/src/admin';
import { openapiDocument } from '../../server/src/openapi';

export const EXAMPLES = path.resolve(__dirname, '..', '..', '..', 'examples');
export const DOTCODE_PNG = fs.readFileSync(path.join(EXAMPLES, 'dotcode.png'));
export const GS1_PNG = fs.readFileSync(path.join(EXAMPLES, 'gs1-dotcode.png'));

export interface TestServer extends RunningServer { logFile: string; dataDir: string }

/** A real server on an ephemeral port with its log in a file (tests read it for leaked keys). */
export async function testServer(o: Partial<StartOptions> = {}): Promise<TestServer> {
  const dataDir = o.dataDir ?? tempDir('data');
  const logFile = path.join(dataDir, 'server.log');
  const s = await startServer({ port: 0, host: '127.0.0.1', dataDir, logFile, ...o });
  return Object.assign(s, { logFile, dataDir });
}

export async function customer(store: Store, quota: number, signup?: string, nowMs?: number): Promise<{ id: string; key: string }> {
  const r = await createCustomer(store, { name: 'Test Co', quota, signup }, nowMs);
  return { id: r.customer_id, key: r.api_key };
}

export interface Answer { status: number; headers: http.IncomingHttpHeaders; body: any; raw: Buffer }

/** One HTTP request; `body` is sent as is (Buffer) or as a multipart form ({field: Buffer}). */
export function request(url: string, opts: { method?: string; headers?: Record<string, string>; body?: Buffer | { form: Record<string, Buffer> } } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...opts.headers };
    let payload: Buffer | undefined;
    if (Buffer.isBuffer(opts.body)) payload = opts.body;
    else if (opts.body && 'form' in opts.body) {
      const boundary = '----dctest' + randomBytes(8).toString('hex');
      const parts: Buffer[] = [];
      for (const [name, data] of Object.entries(opts.body.form)) {
        parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${name}.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`), data, Buffer.from('\r\n'));
      }
      parts.push(Buffer.from(`--${boundary}--\r\n`));
      payload = Buffer.concat(parts);
      headers['Content-Type'] = `multipart/form-data; boundary=${boundary}`;
    }
    if (payload) headers['Content-Length'] = String(payload.length);
    let answered = false;
    const req = http.request(url, { method: opts.method ?? (payload ? 'POST' : 'GET'), headers, agent: false }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      const finish = () => {
        const raw = Buffer.concat(chunks);
        let body: any = raw.toString();
        try { body = JSON.parse(body); } catch { /* not JSON */ }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, raw });
      };
      res.on('data', (c) => chunks.push(c));
      res.on('end', finish);
      // a server that refuses an upload answers, then closes while the body is still being sent:
      // the answer counts, the EPIPE of the rest does not
      res.on('error', finish);
    });
    req.on('error', (e) => { if (!answered) reject(e); });
    req.end(payload);
  });
}

/** Asserts the answer is one the OpenAPI document describes (status, and error code for errors). */
export function documented(pathName: string, method: string, a: Answer): void {
  const doc = openapiDocument() as any;
  const op = doc.paths[pathName]?.[method.toLowerCase()];
  if (!op) throw new Error(`${method} ${pathName} is not in the OpenAPI document`);
  const resp = op.responses[String(a.status)];
  if (!resp) throw new Error(`${method} ${pathName} answered ${a.status}, which the OpenAPI document does not list`);
  if (a.status >= 400) {
    if (a.body?.ok !== false || typeof a.body.error !== 'string' || typeof a.body.message !== 'string') {
      throw new Error(`error answer is not {ok:false,error,message}: ${JSON.stringify(a.body)}`);
    }
    const codes: string[] = resp.content['application/json'].schema.allOf[1].properties.error.enum;
    if (!codes.includes(a.body.error)) throw new Error(`error code ${a.body.error} is not documented for ${a.status} on ${pathName}`);
    if ((a.status === 429 || a.status >= 500) && a.headers['retry-after'] === undefined) throw new Error(`${a.status} lacks Retry-After`);
    if ((a.status === 429 || a.status >= 500) && !resp.headers?.['Retry-After']) throw new Error(`${a.status} on ${pathName}: Retry-After not documented`);
  }
}

// ---- `dotcode serve` child processes ----
/** `dotcode serve` in its own process; resolves with its URL once it listens. */
export function serveProcess(args: string[], env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const bin = path.resolve(__dirname, '..', '..', '..', 'bin', 'dotcode.js');
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let err = '';
    const t = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`serve did not start: ${err}`)); }, 20000);
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /listening on (\S+)/.exec(err);
      if (m) { clearTimeout(t); resolve({ url: m[1], child }); }
    });
    child.on('exit', (code) => { clearTimeout(t); reject(new Error(`serve exited ${code}: ${err}`)); });
  });
}

export function stopProcess(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) { resolve(); return; }
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

