/**
 * The platform store's identity: a random id made the first time a server of this version opens it, kept in
 * the store itself. Replicas of one PostgreSQL store read the same id; two embedded stores never share one.
 * The file contents' directory records it (blob-owner.ts), so that servers of two stores pointed at one
 * directory are told so instead of collecting each other's contents as unreferenced.
 */
import { randomUUID } from 'node:crypto';
import type { Store } from './store/store.js';

interface StoreIdRecord {
  id: string;
}

const KEY = 'id';

/** The store's id, and whether this call made it (the store had none: it is new, or of a version before ids). */
export async function storeIdOf(store: Store): Promise<{ id: string; made: boolean }> {
  const table = store.table<StoreIdRecord>('store-id');
  const found = await table.get(KEY);
  if (found) return { id: found.id, made: false };
  // Read again inside the write: replicas opening a store together make one id (PostgreSQL retries the loser).
  return store.write(async () => {
    const recorded = await table.get(KEY);
    if (recorded) return { id: recorded.id, made: false };
    const id = randomUUID();
    await table.put(KEY, { id });
    return { id, made: true };
  });
}
