/**
 * The embedded store (LMDB), for one server. Writes are serialised in the
 * process: a write's puts are kept aside while its action runs (its reads see
 * them), then committed in one synchronous LMDB transaction, so a
 * read-check-write sequence cannot interleave with another write.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { statSync } from 'node:fs';
import path from 'node:path';
import { type Database, type Key, type RootDatabase, open } from 'lmdb';
import { makeDirectories, unwritableOr } from '../../directories.js';
import { STORE_RESERVE_BYTES, assertRoomFor, diskFullOr } from '../disk-full.js';
import { StoreUnavailableError } from '../errors.js';
import { refuseForeignLmdbFile } from './lmdb-header.js';
import { TABLE_NAMES, type AnnounceListener, type Entry, type Store, type StoreKey, type Table, type TableName, compareKeys, startsWith } from './store.js';

interface Pending {
  table: TableName;
  key: StoreKey;
  /** undefined: removed. */
  value: unknown;
}

/** The writes of the running transaction, by table and key, and what it announced. */
interface Overlay {
  pending: Map<string, Pending>;
  announced: { channel: string; key: string }[];
}

/** LMDB range bounds of the keys under `prefix`: an element after a prefix is an id, a kind or a number, none sorting after '\uffff' (ids start with an ASCII scheme). */
const bounds = (prefix: readonly string[] | undefined) => (prefix === undefined ? {} : { start: prefix as Key, end: [...prefix, '\uffff'] as Key });

const overlayKey = (table: TableName, key: StoreKey) => `${table}\n${JSON.stringify(key)}`;

/**
 * What throws when the store's file is no longer the one opened: removed (or replaced) under the running server, it
 * would take every later write with it (the process writes on in the unlinked file), acknowledged 201 and lost at the
 * next start, which would then make an empty store and blame the file directory for belonging to "another store".
 */
function storeFileWatch(directory: string): () => void {
  const file = path.join(directory, 'data.mdb');
  const opened = statSync(file);
  return () => {
    const now = statSync(file, { throwIfNoEntry: false });
    if (now?.ino === opened.ino && now.dev === opened.dev) return;
    throw new StoreUnavailableError(
      new Error(`${file} was ${now === undefined ? 'removed' : 'replaced'} while the server ran: restore it from a backup (or put it back), then restart the server`),
      "The platform store's file was removed or replaced while the server ran: an operator must restore it and restart the server. Nothing was written.",
    );
  };
}

export function openLmdbStore(directory: string): Store {
  let root: RootDatabase;
  try {
    makeDirectories(directory);
    refuseForeignLmdbFile(directory);
    // A store made on a full disk dies in LMDB (SIGSEGV, SIGBUS) without a line: refused, saying so.
    if ((statSync(path.join(directory, 'data.mdb'), { throwIfNoEntry: false })?.size ?? 0) === 0) assertRoomFor(directory, 'the new platform store', STORE_RESERVE_BYTES);
    root = open({ path: directory, maxDbs: 16 });
  } catch (error) {
    throw unwritableOr(error, 'the platform store', directory);
  }
  // Every table opened here, before any write: a table first opened inside a commit that a full disk aborted
  // lost its handle with that commit, and later commits through the handle kept answered 201 and stored nothing
  // readable (every read of the store then failed, 500, for good).
  const databases = new Map<TableName, Database<unknown, Key>>(TABLE_NAMES.map((name) => [name, root.openDB<unknown, Key>({ name })]));
  const database = (name: TableName) => databases.get(name)!;
  const assertStoreFileInPlace = storeFileWatch(directory);
  const transaction = new AsyncLocalStorage<Overlay>();
  const listeners = new Map<string, AnnounceListener[]>();
  let queue: Promise<unknown> = Promise.resolve();

  const inTransaction = (operation: string): Overlay => {
    const overlay = transaction.getStore();
    if (!overlay) throw new Error(`store: ${operation} outside a write`);
    return overlay;
  };

  /** The running write's changes to `name` under `prefix`. */
  const pendingUnder = (name: TableName, prefix: readonly string[] | undefined): Pending[] =>
    [...(transaction.getStore()?.pending.values() ?? [])].filter((p) => p.table === name && (prefix === undefined || startsWith(p.key, prefix)));

  const read = <V>(name: TableName, key: StoreKey): V | undefined => {
    const pending = transaction.getStore()?.pending.get(overlayKey(name, key));
    if (pending) return pending.value as V | undefined;
    return database(name).get(key as Key) as V | undefined;
  };

  const table = <V>(name: TableName): Table<V> => ({
    get: async (key) => read<V>(name, key),
    getMany: async (keys) => keys.map((key) => read<V>(name, key)),
    put: async (key, value) => void inTransaction('put').pending.set(overlayKey(name, key), { table: name, key, value }),
    remove: async (key) => void inTransaction('remove').pending.set(overlayKey(name, key), { table: name, key, value: undefined }),
    range: async (prefix, page) => {
      const pending = pendingUnder(name, prefix);
      if (pending.length === 0) {
        return [...database(name).getRange({ ...bounds(prefix), ...page })].map(({ key, value }) => ({ key: key as StoreKey, value: value as V }));
      }
      // Inside a write that changed entries under the prefix: the committed ones and the pending ones, merged.
      const changed = new Set(pending.map((p) => JSON.stringify(p.key)));
      const merged: Entry<V>[] = [...database(name).getRange(bounds(prefix))]
        .filter(({ key }) => !changed.has(JSON.stringify(key)))
        .map(({ key, value }) => ({ key: key as StoreKey, value: value as V }));
      for (const p of pending) if (p.value !== undefined) merged.push({ key: p.key, value: p.value as V });
      merged.sort((a, b) => compareKeys(a.key, b.key));
      return page === undefined ? merged : merged.slice(page.offset, page.offset + page.limit);
    },
    count: async (prefix) => {
      if (pendingUnder(name, prefix).length > 0) return (await table(name).range(prefix)).length;
      return database(name).getKeysCount(bounds(prefix));
    },
  });

  /** With `signal`, a write still queued when it aborts rejects with its reason instead of running `action`. */
  const write = <T>(action: () => Promise<T>, signal?: AbortSignal): Promise<T> => {
    if (transaction.getStore()) return action();
    const run = () => {
      signal?.throwIfAborted();
      const overlay: Overlay = { pending: new Map(), announced: [] };
      return transaction.run(overlay, async () => {
        const result = await action();
        assertStoreFileInPlace();
        // Refused (507) before LMDB meets a full disk: concurrent writes there abort the process.
        if (overlay.pending.size > 0) assertRoomFor(directory, 'the platform store', STORE_RESERVE_BYTES);
        try {
          root.transactionSync(() => {
            for (const { table: name, key, value } of overlay.pending.values()) {
              if (value === undefined) database(name).removeSync(key as Key);
              else database(name).putSync(key as Key, value);
            }
          });
        } catch (error) {
          // The commit was aborted: the store stays as it was.
          throw await diskFullOr(error, directory, 'the platform store');
        }
        await transaction.exit(() => Promise.all(overlay.announced.flatMap(({ channel, key }) => (listeners.get(channel) ?? []).map((listen) => listen(key)))));
        return result;
      });
    };
    const result = queue.then(run);
    queue = result.catch(() => undefined);
    return result;
  };

  return {
    kind: 'lmdb',
    table,
    write,
    // Writes are serialised in the process already.
    writeInTurn: (_turn, action, options) => write(action, options?.signal),
    announce: async (channel, key) => void inTransaction('announce').announced.push({ channel, key }),
    onAnnounce: (channel, listener) => void listeners.set(channel, [...(listeners.get(channel) ?? []), listener]),
    close: () => root.close(),
  };
}
