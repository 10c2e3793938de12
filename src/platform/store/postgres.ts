/**
 * The PostgreSQL store, shared by several servers. Every `write` is one
 * SERIALIZABLE transaction, retried from the start when PostgreSQL reports a
 * serialization failure: a read that decides a write (revision checks, id
 * creation, ACL revisions) then behaves as if the writes ran one at a time,
 * across servers. Reads outside a write see everything committed before them,
 * whichever server committed it. Announcements travel as NOTIFY on commit;
 * one LISTEN connection per server receives them, and after it reconnects
 * listeners hear `*` (notices may have been lost meanwhile).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import { StoreUnavailableError } from '../errors.js';
import { migrate, sqlTable } from './migrations.js';
import { type AnnounceListener, type Entry, type Store, type StoreKey, type Table, type TableName, TEXT_TABLES } from './store.js';

interface Transaction {
  client: pg.PoolClient;
  announced: { channel: string; key: string }[];
}

interface Logger {
  info(message: string): void;
  warn(message: string): void;
}

/** Serialization failure, deadlock, and a unique violation that a concurrent insert of the same key can raise instead. */
const RETRYABLE = new Set(['40001', '40P01', '23505']);
const MAX_ATTEMPTS = 30;
/** A database that does not answer a connection attempt (host down, packets dropped) fails the request after this, rather than at the request timeout. */
const CONNECT_TIMEOUT_MS = 10_000;
/** Socket errors of a database that cannot be reached (ENOENT: no unix socket, the server is down). */
const NETWORK_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOENT', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'EAI_AGAIN', 'ENOTFOUND']);
/** The LISTEN connection's first reconnection delay, doubled after each failure up to the maximum. */
const RECONNECT_MS = 1000;
const MAX_RECONNECT_MS = 30_000;
const channelName = (channel: string) => `litserve_${channel}`;

/** Key tuples as text[]: integers zero-padded, so they sort as numbers. */
function keyArray(key: StoreKey): string[] {
  return (typeof key === 'string' ? [key] : key).map((element) => (typeof element === 'number' ? String(element).padStart(16, '0') : element));
}

/**
 * The condition selecting the keys under `prefix`, as bounds the primary key's index serves:
 * the prefix itself up to, not including, the prefix with a \u0001 after its last element (text
 * cannot hold \u0000, so no element sorts between the two but those extending the last one).
 */
export function keysUnder(prefix: readonly string[] | undefined): { where: string; params: string[][] } {
  if (prefix === undefined || prefix.length === 0) return { where: '', params: [] };
  const after = [...prefix.slice(0, -1), `${prefix.at(-1)!}\u0001`];
  return { where: ' WHERE key >= $1 AND key < $2', params: [keyArray(prefix), keyArray(after)] };
}

/**
 * Whether `error` says the database could not be reached or dropped the connection, rather than
 * that a statement failed: SQLSTATE class 08 (connection exception), 57P (shut down, starting up),
 * 53300 (too many connections), socket errors, and pg's own words for a connection that ended.
 */
function isConnectionFailure(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code.startsWith('08') || code.startsWith('57P') || code === '53300' || NETWORK_ERRORS.has(code);
  return error instanceof Error && /^Connection terminated|timeout exceeded when trying to connect/.test(error.message);
}

/** The URL as it may be printed. */
function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.href;
  } catch {
    return '(an unparsable URL)';
  }
}

/** `error`, or the StoreUnavailableError (503) it means. */
const unavailableOr = (error: unknown): unknown => (isConnectionFailure(error) ? new StoreUnavailableError(error as Error) : error);

export async function openPostgresStore(url: string, logger: Logger): Promise<Store> {
  const pool = new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  pool.on('error', (error) => logger.warn(`platform store: idle PostgreSQL connection failed: ${error.message}`));
  try {
    const setup = await pool.connect();
    try {
      const { from, to } = await migrate(setup);
      if (from !== to) logger.info(`platform store: PostgreSQL schema migrated from version ${from} to ${to}`);
    } finally {
      setup.release();
    }
  } catch (error) {
    await pool.end();
    // pg's own words ("connect ENOENT /run/.s.PGSQL.5432") do not say which setting led there.
    throw isConnectionFailure(error) ? new Error(`cannot reach the platform store's database (--platform-store ${withoutPassword(url)}): ${(error as Error).message}`) : error;
  }

  const transaction = new AsyncLocalStorage<Transaction>();
  const listeners = new Map<string, AnnounceListener[]>();
  const query = <R extends pg.QueryResultRow>(sql: string, params: unknown[] = []) =>
    (transaction.getStore()?.client ?? pool).query<R>(sql, params).catch((error: unknown) => Promise.reject(unavailableOr(error)));
  const inTransaction = (operation: string): Transaction => {
    const current = transaction.getStore();
    if (!current) throw new Error(`store: ${operation} outside a write`);
    return current;
  };
  const notifyLocal = (channel: string, key: string) => Promise.all((listeners.get(channel) ?? []).map((listen) => listen(key)));

  const table = <V>(name: TableName): Table<V> => {
    const sql = sqlTable(name);
    const text = TEXT_TABLES.has(name);
    const encode = (value: V): string => (text ? (value as string) : JSON.stringify(value));
    const decode = (value: string): V => (text ? value : JSON.parse(value)) as V;
    return {
      get: async (key) => {
        const { rows } = await query<{ value: string }>(`SELECT value FROM ${sql} WHERE key = $1`, [keyArray(key)]);
        return rows[0] === undefined ? undefined : decode(rows[0].value);
      },
      getMany: async (keys) => {
        if (keys.length === 0) return [];
        // The keys travel as one JSON array of text arrays, matched through the primary key's index.
        const { rows } = await query<{ key_json: string; value: string }>(
          `SELECT key_json, value FROM ${sql} WHERE key IN (SELECT ARRAY(SELECT json_array_elements_text(wanted)) COLLATE "C" FROM json_array_elements($1::json) AS wanted)`,
          [JSON.stringify(keys.map(keyArray))],
        );
        const found = new Map(rows.map((row) => [row.key_json, decode(row.value)]));
        return keys.map((key) => found.get(JSON.stringify(key)));
      },
      put: async (key, value) => {
        inTransaction('put');
        await query(
          `INSERT INTO ${sql} (key, key_json, value) VALUES ($1, $2, $3) ON CONFLICT (key) DO UPDATE SET key_json = excluded.key_json, value = excluded.value`,
          [keyArray(key), JSON.stringify(key), encode(value)],
        );
      },
      remove: async (key) => {
        inTransaction('remove');
        await query(`DELETE FROM ${sql} WHERE key = $1`, [keyArray(key)]);
      },
      range: async (prefix, page) => {
        const { where, params } = keysUnder(prefix);
        const paged = page === undefined ? '' : ` OFFSET $${params.length + 1} LIMIT $${params.length + 2}`;
        const values = page === undefined ? params : [...params, page.offset, page.limit];
        const { rows } = await query<{ key_json: string; value: string }>(`SELECT key_json, value FROM ${sql}${where} ORDER BY key${paged}`, values);
        return rows.map((row): Entry<V> => ({ key: JSON.parse(row.key_json) as StoreKey, value: decode(row.value) }));
      },
      count: async (prefix) => {
        const { where, params } = keysUnder(prefix);
        const { rows } = await query<{ count: number }>(`SELECT count(*)::integer AS count FROM ${sql}${where}`, params);
        return rows[0]!.count;
      },
    };
  };

  const write = async <T>(action: () => Promise<T>): Promise<T> => {
    if (transaction.getStore()) return action();
    for (let attempt = 1; ; attempt++) {
      const client = await pool.connect().catch((error: unknown) => Promise.reject(unavailableOr(error)));
      const current: Transaction = { client, announced: [] };
      try {
        await client.query('BEGIN ISOLATION LEVEL SERIALIZABLE');
        const result = await transaction.run(current, action);
        for (const { channel, key } of current.announced) await client.query('SELECT pg_notify($1, $2)', [channelName(channel), key]);
        await client.query('COMMIT');
        client.release();
        for (const { channel, key } of current.announced) await notifyLocal(channel, key);
        return result;
      } catch (error) {
        const rolledBack = await client.query('ROLLBACK').then(() => true, () => false);
        client.release(!rolledBack);
        const code = (error as { code?: string }).code;
        if (code === undefined || !RETRYABLE.has(code) || attempt === MAX_ATTEMPTS) throw unavailableOr(error);
        // Concurrent writers of one record: spread the retries so one of them gets through.
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * attempt));
      }
    }
  };

  let listening: pg.Client | null = null;
  let closed = false;
  /** Reconnections failed in a row: a database that stays down is retried ever less often, and logged once. */
  let failedReconnections = 0;
  const listen = async (): Promise<void> => {
    const client = new pg.Client({ connectionString: url });
    client.on('notification', (notice) => {
      const channel = notice.channel.replace(/^litserve_/, '');
      void notifyLocal(channel, notice.payload ?? '*').catch((error: Error) => logger.warn(`platform store: reloading after a notice failed: ${error.message}`));
    });
    const reconnect = (reason: string) => {
      if (closed || listening !== client) return;
      listening = null;
      if (failedReconnections === 0) logger.warn(`platform store: LISTEN connection lost (${reason}); reconnecting`);
      const delay = Math.min(MAX_RECONNECT_MS, RECONNECT_MS * 2 ** failedReconnections);
      failedReconnections++;
      setTimeout(() => void listen().catch(() => reconnect('reconnect failed')), delay).unref();
    };
    client.on('error', (error) => reconnect(error.message));
    client.on('end', () => reconnect('closed'));
    listening = client;
    await client.connect();
    for (const channel of listeners.keys()) await client.query(`LISTEN ${channelName(channel)}`);
    if (failedReconnections > 0) logger.info('platform store: LISTEN connection restored');
    failedReconnections = 0;
    // Whatever changed while no connection listened.
    for (const channel of listeners.keys()) await notifyLocal(channel, '*');
  };
  await listen();

  return {
    kind: 'postgresql',
    table,
    write,
    writeExclusive: (lock, action) =>
      write(async () => {
        const { rows } = await query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock(hashtext($1)) AS locked', [`litserve-${lock}`]);
        return rows[0]!.locked ? action() : undefined;
      }),
    announce: async (channel, key) => void inTransaction('announce').announced.push({ channel, key }),
    onAnnounce: (channel, listener) => {
      const first = !listeners.has(channel);
      listeners.set(channel, [...(listeners.get(channel) ?? []), listener]);
      // Once listening, `*`: a change committed before LISTEN took effect would otherwise be missed.
      if (first && listening) {
        void listening
          .query(`LISTEN ${channelName(channel)}`)
          .then(() => listener('*'))
          .catch((error: Error) => logger.warn(`platform store: LISTEN ${channel} failed: ${error.message}`));
      }
    },
    async close() {
      closed = true;
      await listening?.end().catch(() => undefined);
      await pool.end();
    },
  };
}
