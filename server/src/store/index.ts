// Opens the configured store: Redis when a URL is given, else SQLite in the data folder.
import * as path from 'node:path';
import { RedisStore } from './redis';
import { SqliteStore } from './sqlite';
import { Store } from './types';

export * from './types';
export { SqliteStore } from './sqlite';
export { RedisStore, redactUrl } from './redis';
export { currentPeriod, dayOf, parseDate } from './period';

export interface OpenStoreOptions {
  dataDir: string;
  redisUrl?: string;
  redisPrefix?: string;
  /** start even if Redis does not answer yet (the server answers 503 until it does) */
  tolerateDown?: boolean;
}

export async function openStore(o: OpenStoreOptions): Promise<Store> {
  if (o.redisUrl) return RedisStore.connect(o.redisUrl, { prefix: o.redisPrefix, waitForReady: !o.tolerateDown });
  return new SqliteStore(path.join(o.dataDir, 'dotcode.sqlite'));
}
