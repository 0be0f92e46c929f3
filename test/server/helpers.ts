// Shared helpers for the server tests: temp folders, a Redis probe, store factories.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as net from 'node:net';
import { randomBytes } from 'node:crypto';
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
