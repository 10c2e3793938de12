/**
 * The embedded transactional store (LMDB). Every service opens its own named
 * database here; writes that must be atomic go through `write`, a synchronous
 * LMDB transaction: reads inside it see the transaction's own writes, so
 * read-check-write sequences (revision checks) cannot interleave.
 */
import { mkdirSync } from 'node:fs';
import { type Database, type Key, type RootDatabase, open } from 'lmdb';

export interface Store {
  database<V, K extends Key>(name: string): Database<V, K>;
  write<T>(action: () => T): T;
  close(): Promise<void>;
}

export function openStore(directory: string): Store {
  mkdirSync(directory, { recursive: true });
  const root: RootDatabase = open({ path: directory, maxDbs: 16 });
  return {
    database: <V, K extends Key>(name: string) => root.openDB<V, K>({ name }),
    write: (action) => root.transactionSync(action),
    close: () => root.close(),
  };
}
