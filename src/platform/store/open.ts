/** Opens the platform store named by `--platform-store`: `lmdb` (under `lmdbDirectory`) or a PostgreSQL URL. */
import { openLmdbStore } from './lmdb.js';
import { openPostgresStore } from './postgres.js';
import type { Store } from './store.js';

function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//.test(value);
}

export async function openPlatformStore(spec: string, lmdbDirectory: string, logger: { info(m: string): void; warn(m: string): void }): Promise<Store> {
  if (spec === 'lmdb') return openLmdbStore(lmdbDirectory);
  if (isPostgresUrl(spec)) return openPostgresStore(spec, logger);
  throw new Error(`--platform-store must be 'lmdb' or a postgresql:// URL, got '${spec}'`);
}
