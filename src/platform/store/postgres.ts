/**
 * The PostgreSQL store, shared by several servers. Every `write` is one
 * SERIALIZABLE transaction (on a hot standby, which takes no writes, a
 * read-only snapshot), retried from the start when PostgreSQL reports a
 * serialization failure: a read that decides a write (revision checks, id
 * creation, ACL revisions) then behaves as if the writes ran one at a time,
 * across servers (postgres-writes.ts). Reads outside a write see everything
 * committed before them, whichever server committed it. Announcements travel
 * as NOTIFY on commit; one LISTEN connection per server receives them, and
 * after it reconnects listeners hear `*` (notices may have been lost
 * meanwhile; postgres-listen.ts).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import { CONNECT_TIMEOUT_MS, connectionConfig } from './connection-config.js';
import { migrate } from './migrations.js';
import { isConnectionFailure, READ_ONLY, TABLE_PRIVILEGES, unavailableOr } from './postgres-errors.js';
import { ListenConnection } from './postgres-listen.js';
import { postgresTable, type Query } from './postgres-table.js';
import { serializableWrites, type Transaction } from './postgres-writes.js';
import { printableStoreUrl } from './printable-url.js';
import type { AnnounceListener, Store, StoreLogger, TableName } from './store.js';

/**
 * Every connection of the pool keeps this 'error' listener. pg-pool listens only while a connection is
 * idle, and an 'error' event nobody listens to ends the process: a connection lost between two statements
 * of a write, or a FATAL (PostgreSQL shutting down) read in the same chunk as a new connection's
 * ReadyForQuery, which pg parses before the code that asked for the connection runs. The loss also fails
 * the connection's next statement, which is where it is handled; an idle one is reported by the pool.
 */
const ignoreLostConnection = () => undefined;

/** "INSERT on litserve_payloads" for each privilege the role lacks on the tables of its schema (the version table needs SELECT alone). */
async function missingPrivileges(client: pg.PoolClient): Promise<string[]> {
  const { rows } = await client.query<{ missing: string }>(
    `SELECT privilege || ' on ' || c.relname AS missing
       FROM pg_class c CROSS JOIN unnest($1::text[]) WITH ORDINALITY AS p(privilege, position)
      WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' AND c.relname LIKE 'litserve\\_%'
        AND (c.relname <> 'litserve_schema_version' OR privilege = 'SELECT')
        AND NOT has_table_privilege(c.oid, privilege)
      ORDER BY c.relname, position`,
    [TABLE_PRIVILEGES],
  );
  return rows.map((row) => row.missing);
}

/** Brings the schema up to date, then checks that the server's role may do all a server does. */
async function migrateAndCheckRole(setup: pg.PoolClient, logger: StoreLogger): Promise<void> {
  const { from, to } = await migrate(setup);
  if (from !== to) logger.info(`platform store: PostgreSQL schema migrated from version ${from} to ${to}`);
  const missing = await missingPrivileges(setup);
  if (missing.length > 0) {
    const shown = missing.length > 4 ? `${missing.slice(0, 4).join(', ')} and ${missing.length - 4} more` : missing.join(', ');
    throw new Error(`its role lacks ${shown}: grant it ${TABLE_PRIVILEGES.join(', ')} on the litserve_ tables of its schema`);
  }
}

/** Why a start could not use the database at `url`, naming the setting that led there. */
function refusedStart(error: unknown, url: string): Error {
  // pg's own words ("connect ENOENT /run/.s.PGSQL.5432", 'role "x" does not exist') do not say which setting led there.
  const setting = `--platform-store ${printableStoreUrl(url)}`;
  if (isConnectionFailure(error)) return new Error(`cannot reach the platform store's database (${setting}): ${(error as Error).message}`, { cause: error });
  if ((error as { code?: unknown }).code === READ_ONLY) {
    return new Error(`cannot use the platform store's database (${setting}): it is read-only (a hot standby, or default_transaction_read_only is on), and a start writes its schema: ${(error as Error).message}`, { cause: error });
  }
  return new Error(`cannot use the platform store's database (${setting}): ${(error as Error).message}`, { cause: error });
}

/** The connection pool of the database at `url`, its schema migrated and its role checked; closed again when either fails. */
async function connectAndMigrate(url: string, logger: StoreLogger): Promise<pg.Pool> {
  const pool = new pg.Pool({ ...connectionConfig(url), max: 10, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  pool.on('error', (error) => logger.warn(`platform store: idle PostgreSQL connection failed: ${error.message}`));
  pool.on('connect', (client) => client.on('error', ignoreLostConnection));
  try {
    const setup = await pool.connect();
    try {
      await migrateAndCheckRole(setup, logger);
    } finally {
      setup.release();
    }
  } catch (error) {
    await pool.end();
    throw refusedStart(error, url);
  }
  return pool;
}

interface PostgresStoreOptions {
  /** The LISTEN connection's heartbeat period (HEARTBEAT_MS); tests shorten it. */
  heartbeatMs?: number;
}

export async function openPostgresStore(url: string, logger: StoreLogger, options: PostgresStoreOptions = {}): Promise<Store> {
  const pool = await connectAndMigrate(url, logger);
  const transaction = new AsyncLocalStorage<Transaction>();
  const query: Query = (sql, params = []) => (transaction.getStore()?.client ?? pool).query(sql, params).catch((error: unknown) => Promise.reject(unavailableOr(error)));
  const inTransaction = (operation: string): Transaction => {
    const current = transaction.getStore();
    if (!current) throw new Error(`store: ${operation} outside a write`);
    return current;
  };

  const listeners = new Map<string, AnnounceListener[]>();
  // A listener that throws rejects the promise rather than throwing out of a notice's event handler.
  const notifyLocal = (channel: string, key: string) => Promise.all((listeners.get(channel) ?? []).map(async (listen) => listen(key)));
  /**
   * After a commit: this server's listeners. A failure is logged, not thrown: the write took effect,
   * and this server's LISTEN connection hears the same notice and calls them again.
   */
  const announceCommitted = async (announced: Transaction['announced']) => {
    for (const { channel, key } of announced) {
      await notifyLocal(channel, key).catch((error: Error) => logger.warn(`platform store: after a write, reloading ${channel} ${key} failed: ${error.message}`));
    }
  };

  const { write, writeInTurn } = serializableWrites(pool, transaction, announceCommitted);
  const listening = new ListenConnection(url, { channels: () => listeners.keys(), notify: notifyLocal }, logger, options.heartbeatMs);
  try {
    await listening.connect();
  } catch (error) {
    // The database went away since the migration: the start is refused, and nothing of this store stays open.
    await listening.close();
    await pool.end();
    throw refusedStart(error, url);
  }

  return {
    kind: 'postgresql',
    table: <V>(name: TableName) => postgresTable<V>(name, query, inTransaction),
    write,
    writeInTurn,
    announce: async (channel, key) => void inTransaction('announce').announced.push({ channel, key }),
    onAnnounce: (channel, listener) => {
      const first = !listeners.has(channel);
      listeners.set(channel, [...(listeners.get(channel) ?? []), listener]);
      if (first) listening.listenTo(channel, listener);
    },
    async close() {
      await listening.close();
      await pool.end();
    },
  };
}
