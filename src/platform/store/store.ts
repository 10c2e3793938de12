/**
 * The platform's transactional store, as both backends implement it: the
 * embedded LMDB (default, one machine) and PostgreSQL (several servers).
 * Every read-check-write sequence runs inside `write`: reads there see the
 * transaction's own writes and no other write can interleave (LMDB: writes
 * are serialised in the process; PostgreSQL: SERIALIZABLE, retried on a
 * serialization failure). A `write` inside a `write` joins the outer one.
 */

/** A key: one string, or a tuple of strings and non-negative integers, ordered element by element. */
export type StoreKey = string | readonly (string | number)[];

export const TABLE_NAMES = [
  'orgs',
  'projects',
  'literature-project',
  'acls',
  'heads',
  'revisions',
  'archives',
  'payloads',
  'listings',
  'org-revisions',
  'project-revisions',
  'archive-holds',
  'archive-totals',
  'store-id',
] as const;
export type TableName = (typeof TABLE_NAMES)[number];

/** Tables whose values are texts (payloads: JSON already), which PostgreSQL stores as they are rather than as JSON strings. */
export const TEXT_TABLES: ReadonlySet<TableName> = new Set(['payloads']);

export interface Entry<V> {
  key: StoreKey;
  value: V;
}

export interface Table<V> {
  get(key: StoreKey): Promise<V | undefined>;
  /** The values of `keys`, in their order (undefined where none): one read of the backend for them all. */
  getMany(keys: readonly StoreKey[]): Promise<(V | undefined)[]>;
  /** Only inside `Store.write`. */
  put(key: StoreKey, value: V): Promise<void>;
  /** Only inside `Store.write`. */
  remove(key: StoreKey): Promise<void>;
  /**
   * The entries whose key tuple starts with `prefix` (every entry without one), in key order;
   * with `page`, the `limit` entries after the first `offset`, skipped by the backend's index.
   */
  range(prefix?: readonly string[], page?: Page): Promise<Entry<V>[]>;
  /** How many entries' key tuple starts with `prefix` (every entry without one), counted without reading them. */
  count(prefix?: readonly string[]): Promise<number>;
}

export interface TurnOptions {
  waitMs?: number;
  signal?: AbortSignal;
}

export interface Page {
  offset: number;
  limit: number;
}

export type AnnounceListener = (key: string) => Promise<void> | void;

/** Where a store reports what an operator should know: the server's log. */
export interface StoreLogger {
  info(message: string): void;
  warn(message: string): void;
}

export interface Store {
  /** `lmdb` or `postgresql`, for logs. */
  readonly kind: string;
  table<V>(name: TableName): Table<V>;
  write<T>(action: () => Promise<T>): Promise<T>;
  /**
   * Runs `action` as one write once every write begun before it under the same `turn`, on any server
   * sharing the store, has ended: for writes that all update one record (a running total), which
   * SERIALIZABLE would abort and retry under a burst until some gave up. Waiting holds no connection
   * in this server's pool (the turns are queued in memory), and one per server in the database. A write
   * waits `waitMs` at most (default 10 s), then fails as a busy store (503). Once `signal` aborts (its
   * client has gone), a write still waiting gives up its place: `action` never runs and the write rejects
   * with the signal's reason; an action already started completes.
   */
  writeInTurn<T>(turn: string, action: () => Promise<T>, options?: TurnOptions): Promise<T>;
  /** Inside `write`: tells every server sharing the store, once the write commits, that `key` of `channel` changed. */
  announce(channel: string, key: string): Promise<void>;
  /**
   * Called with each key announced on `channel`: for this server's writes after they commit and
   * before `write` resolves (awaited), for other servers' as their notices arrive. `*` means
   * anything may have changed (notices may have been lost): reload everything.
   */
  onAnnounce(channel: string, listener: AnnounceListener): void;
  close(): Promise<void>;
}

/** Orders keys as both backends do: element by element, numbers before strings, a prefix before its extensions. */
export function compareKeys(a: StoreKey, b: StoreKey): number {
  const left = typeof a === 'string' ? [a] : a;
  const right = typeof b === 'string' ? [b] : b;
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const x = left[i]!;
    const y = right[i]!;
    if (x === y) continue;
    if (typeof x !== typeof y) return typeof x === 'number' ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return left.length - right.length;
}

export function startsWith(key: StoreKey, prefix: readonly string[]): boolean {
  const tuple = typeof key === 'string' ? [key] : key;
  return prefix.every((element, i) => tuple[i] === element);
}
