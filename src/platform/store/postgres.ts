/**
 * The PostgreSQL store, shared by several servers. Every `write` is one
 * SERIALIZABLE transaction (on a hot standby, which takes no writes, a
 * read-only snapshot), retried from the start when PostgreSQL reports a
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
import { connectionConfig } from './connection-config.js';
import { migrate, sqlTable } from './migrations.js';
import { printableStoreUrl } from './printable-url.js';
import { type AnnounceListener, type Entry, type Store, type StoreKey, type Table, type TableName, type TurnOptions, TEXT_TABLES } from './store.js';

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
/**
 * How often the LISTEN connection is asked a `SELECT 1`. It only ever receives, so without this a
 * connection cut silently (a firewall or NAT forgetting an idle connection, a host gone without a
 * reset) would go unnoticed, and with it every later notice; a heartbeat still unanswered at the next
 * one counts as a lost connection. The traffic also keeps such middleboxes from forgetting it.
 */
const HEARTBEAT_MS = 30_000;
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
 * Statements the database gave up on rather than refused: canceled (57014, also a `statement_timeout`
 * the operator set), a `lock_timeout` (55P03), an `idle_in_transaction_session_timeout` (25P03), out of
 * memory (53200). The same statement may succeed later, as after a connection failure.
 */
const GAVE_UP = new Set(['57014', '55P03', '25P03', '53200']);

/**
 * A database that takes reads but refuses writes (25006 read_only_sql_transaction, also LISTEN and NOTIFY
 * during recovery): a hot standby, which after a failover the URL may lead to until it is promoted, or a
 * primary an operator made read-only for maintenance (default_transaction_read_only). Nothing is wrong
 * with the statement: it succeeds once the database takes writes again.
 */
const READ_ONLY = '25006';
/** What a hot standby answers a write's `BEGIN ISOLATION LEVEL SERIALIZABLE` ("cannot use serializable mode in a hot standby"). */
const NOT_SUPPORTED = '0A000';

/** insufficient_privilege: the role lost a privilege on a table since the start checked them (TABLE_PRIVILEGES). */
const NO_PRIVILEGE = '42501';

function roleRefused(error: Error): StoreUnavailableError {
  const cause = new Error(`the database refuses this server's role: ${error.message} (grant it ${TABLE_PRIVILEGES.join(', ')} on the litserve_ tables)`, { cause: error });
  return new StoreUnavailableError(cause, "The platform store's database refuses this server's role a privilege it needs; an operator must grant it.");
}

/**
 * What the server's role needs on each of its tables. A role that could read but not write had started and
 * answered every write 500; it is now refused at start, naming what is missing.
 */
const TABLE_PRIVILEGES = ['SELECT', 'INSERT', 'UPDATE', 'DELETE'];

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

function readOnlyDatabase(error: Error): StoreUnavailableError {
  const cause = new Error(`the database is read-only (a hot standby, or default_transaction_read_only is on): ${error.message}`, { cause: error });
  return new StoreUnavailableError(cause, "The platform store's database takes no writes at the moment (read-only or a standby); retry later.");
}

/**
 * Whether `error` says the database could not be reached, dropped the connection or gave up on the
 * statement, rather than that the statement is wrong: SQLSTATE class 08 (connection exception), 57P
 * (57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now: shutting down, starting up,
 * in recovery), 53300 (too many connections), GAVE_UP, socket errors, and pg's own words for a
 * connection that ended, broke, or did not answer within a `query_timeout` (set in the URL).
 */
function isConnectionFailure(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code.startsWith('08') || code.startsWith('57P') || code === '53300' || GAVE_UP.has(code) || NETWORK_ERRORS.has(code);
  return (
    error instanceof Error &&
    /^(Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error)/.test(error.message)
  );
}

/** PostgreSQL's disk_full (53100): as a full disk under LMDB, an ENOSPC error (507 InsufficientStorage); the transaction was rolled back. */
const DISK_FULL = '53100';

/**
 * Every connection of the pool keeps this 'error' listener. pg-pool listens only while a connection is
 * idle, and an 'error' event nobody listens to ends the process: a connection lost between two statements
 * of a write, or a FATAL (PostgreSQL shutting down) read in the same chunk as a new connection's
 * ReadyForQuery, which pg parses before the code that asked for the connection runs. The loss also fails
 * the connection's next statement, which is where it is handled; an idle one is reported by the pool.
 */
const ignoreLostConnection = () => undefined;

/**
 * A turn of writes (Store.writeInTurn): its advisory lock's key, when a write stops waiting for it,
 * and the signal on which it stops waiting (its client has gone).
 */
interface Turn {
  key: string;
  deadline: number;
  signal?: AbortSignal;
}

/**
 * The advisory lock of a turn named `$1`. Advisory locks belong to the database, so the key names the
 * store's schema too: deployments in two schemas of one database (or tests run side by side) would
 * otherwise take turns with each other, and one's long turn would make the other's writes "too busy".
 */
export const TURN_LOCK_KEY_SQL = "hashtext(current_schema() || ' ' || $1)";

/** Longest a write waits for its turn by default, in this server's queue and for the database's lock together. */
const TURN_WAIT_MS = 10_000;
const TURN_POLL_MAX_MS = 50;

function turnBusy(): StoreUnavailableError {
  return new StoreUnavailableError(new Error('turn not free before its deadline'), 'The platform store is too busy: this write waited its turn too long; retry later.');
}

/**
 * Takes the turn's lock on `client`, trying until the deadline (pg_try_advisory_lock: a blocking
 * pg_advisory_lock would wait without bound, or fail under the recommended lock_timeout as if the
 * database were unreachable). Gives the connection back and throws when the turn stays taken, or when
 * `signal` aborts first.
 */
async function takeTurn(client: pg.PoolClient, turn: Turn, signal: AbortSignal | undefined): Promise<void> {
  for (let pause = 2; ; pause = Math.min(TURN_POLL_MAX_MS, pause * 2)) {
    if (signal?.aborted) {
      client.release();
      throw signal.reason;
    }
    let taken: boolean;
    try {
      taken = (await client.query<{ taken: boolean }>(`SELECT pg_try_advisory_lock(${TURN_LOCK_KEY_SQL}) AS taken`, [turn.key])).rows[0]!.taken;
    } catch (error) {
      client.release(true);
      throw unavailableOr(error);
    }
    if (taken) return;
    if (Date.now() + pause > turn.deadline) {
      client.release();
      throw turnBusy();
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

/** `error`, or what it means to the client: a StoreUnavailableError (503), or an ENOSPC error (507). */
function unavailableOr(error: unknown): unknown {
  // A statement the database gave up on (a lock or statement timeout) is no outage: "cannot be reached" had sent operators to the network.
  if (GAVE_UP.has(String((error as { code?: unknown } | null)?.code))) {
    return new StoreUnavailableError(error as Error, 'The platform store gave up on this request (a lock or statement timeout, or out of memory); retry later.');
  }
  if (isConnectionFailure(error)) return new StoreUnavailableError(error as Error);
  if ((error as { code?: unknown } | null)?.code === READ_ONLY) return readOnlyDatabase(error as Error);
  if ((error as { code?: unknown } | null)?.code === NO_PRIVILEGE) return roleRefused(error as Error);
  if ((error as { code?: unknown } | null)?.code === DISK_FULL) {
    return Object.assign(new Error(`ENOSPC: the platform store's database has no space left: ${(error as Error).message}`), { code: 'ENOSPC', cause: error });
  }
  return error;
}

export interface PostgresStoreOptions {
  /** The LISTEN connection's heartbeat period (HEARTBEAT_MS); tests shorten it. */
  heartbeatMs?: number;
}

export async function openPostgresStore(url: string, logger: Logger, options: PostgresStoreOptions = {}): Promise<Store> {
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  const pool = new pg.Pool({ ...connectionConfig(url), max: 10, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  pool.on('error', (error) => logger.warn(`platform store: idle PostgreSQL connection failed: ${error.message}`));
  pool.on('connect', (client) => client.on('error', ignoreLostConnection));
  try {
    const setup = await pool.connect();
    try {
      const { from, to } = await migrate(setup);
      if (from !== to) logger.info(`platform store: PostgreSQL schema migrated from version ${from} to ${to}`);
      const missing = await missingPrivileges(setup);
      if (missing.length > 0) {
        const shown = missing.length > 4 ? `${missing.slice(0, 4).join(', ')} and ${missing.length - 4} more` : missing.join(', ');
        throw new Error(`its role lacks ${shown}: grant it ${TABLE_PRIVILEGES.join(', ')} on the litserve_ tables of its schema`);
      }
    } finally {
      setup.release();
    }
  } catch (error) {
    await pool.end();
    // pg's own words ("connect ENOENT /run/.s.PGSQL.5432", 'role "x" does not exist') do not say which setting led there.
    const setting = `--platform-store ${printableStoreUrl(url)}`;
    if (isConnectionFailure(error)) throw new Error(`cannot reach the platform store's database (${setting}): ${(error as Error).message}`, { cause: error });
    if ((error as { code?: unknown }).code === READ_ONLY) {
      throw new Error(`cannot use the platform store's database (${setting}): it is read-only (a hot standby, or default_transaction_read_only is on), and a start writes its schema: ${(error as Error).message}`, { cause: error });
    }
    throw new Error(`cannot use the platform store's database (${setting}): ${(error as Error).message}`, { cause: error });
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
  // A listener that throws rejects the promise rather than throwing out of a notice's event handler.
  const notifyLocal = (channel: string, key: string) => Promise.all((listeners.get(channel) ?? []).map(async (listen) => listen(key)));

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

  /**
   * After a commit: this server's listeners. A failure is logged, not thrown: the write took effect,
   * and this server's LISTEN connection hears the same notice and calls them again.
   */
  const announceCommitted = async (announced: Transaction['announced']) => {
    for (const { channel, key } of announced) {
      await notifyLocal(channel, key).catch((error: Error) => logger.warn(`platform store: after a write, reloading ${channel} ${key} failed: ${error.message}`));
    }
  };

  /**
   * `write`; with a turn, after its advisory lock on the transaction's connection, waited for until the
   * turn's deadline. A session lock, taken before BEGIN: the transaction's snapshot then sees the last
   * holder's commit (a lock taken inside would come after the snapshot, and the write would still conflict).
   */
  const write = async <T>(action: () => Promise<T>, turn?: Turn): Promise<T> => {
    if (transaction.getStore()) return action();
    // True when the turn (if any) is given back; a connection that could not is closed, which frees it.
    const unlocked = async (client: pg.PoolClient) => {
      if (turn === undefined) return true;
      const answer = await client.query<{ ok: boolean }>(`SELECT pg_advisory_unlock(${TURN_LOCK_KEY_SQL}) AS ok`, [turn.key]).catch(() => null);
      return answer?.rows[0]?.ok === true;
    };
    for (let attempt = 1; ; attempt++) {
      // A write whose client has gone gives up its turn until its action first starts; a retry completes what was started.
      const signal = attempt === 1 ? turn?.signal : undefined;
      signal?.throwIfAborted();
      const client = await pool.connect().catch((error: unknown) => Promise.reject(unavailableOr(error)));
      if (turn !== undefined) await takeTurn(client, turn, signal);
      const current: Transaction = { client, announced: [] };
      let result: T;
      try {
        await client.query('BEGIN ISOLATION LEVEL SERIALIZABLE').catch(async (error: { code?: string } & Error) => {
          // Refused (not a connection failure): the only SERIALIZABLE BEGIN a PostgreSQL does not support is a hot
          // standby's. There the write runs read-only: one that finds nothing to change (as the checks a start
          // makes) succeeds, and its first change fails as read-only (25006, a 503). With no write on the
          // database, a snapshot is as good as SERIALIZABLE.
          if (error.code !== NOT_SUPPORTED) throw error;
          await client.query('ROLLBACK');
          await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        });
        // Rolled back and the turn given back below, as any write that fails.
        signal?.throwIfAborted();
        result = await transaction.run(current, action);
        for (const { channel, key } of current.announced) await client.query('SELECT pg_notify($1, $2)', [channelName(channel), key]);
        await client.query('COMMIT');
      } catch (error) {
        const rolledBack = await client.query('ROLLBACK').then(() => true, () => false);
        // A connection that kept a transaction or a turn open is closed, which ends both.
        client.release(!(rolledBack && (await unlocked(client))));
        const code = (error as { code?: string }).code;
        if (code === undefined || !RETRYABLE.has(code)) throw unavailableOr(error);
        // Still conflicting after every attempt: the store is too busy, the request is not wrong.
        if (attempt === MAX_ATTEMPTS) throw new StoreUnavailableError(error as Error, 'The platform store is too busy: this write kept conflicting with concurrent ones; retry later.');
        // Concurrent writers of one record: spread the retries so one of them gets through.
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * attempt));
        continue;
      }
      client.release(!(await unlocked(client)));
      await announceCommitted(current.announced);
      return result;
    }
  };

  /**
   * Each turn's writes of this server, chained: one waits in the database at a time, holding one
   * connection. A write waits TURN_WAIT_MS at most, in the chain and for the lock together: a turn held
   * longer (another server stuck in it, a refill of a large ledger) is a busy store, answered 503.
   * Listeners of a write in turn run while it holds its place: one must not write in the same turn.
   */
  const turns = new Map<string, Promise<unknown>>();
  const writeInTurn = <T>(name: string, action: () => Promise<T>, { waitMs = TURN_WAIT_MS, signal }: TurnOptions = {}): Promise<T> => {
    if (transaction.getStore()) return action();
    const turn: Turn = { key: `litserve-turn-${name}`, deadline: Date.now() + waitMs, signal };
    const result = (turns.get(name) ?? Promise.resolve()).then(() => write(action, turn));
    const settled = result.catch(() => undefined);
    turns.set(name, settled);
    void settled.then(() => turns.get(name) === settled && turns.delete(name));
    return result;
  };

  let listening: pg.Client | null = null;
  let closed = false;
  /** Reconnections failed in a row: a database that stays down is retried ever less often, and logged once. */
  let failedReconnections = 0;
  /** Drops the current LISTEN connection and connects again after the back-off. */
  let reconnectListening: (reason: string) => void = () => undefined;
  const listen = async (): Promise<void> => {
    const client = new pg.Client({ ...connectionConfig(url), connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    client.on('notification', (notice) => {
      const channel = notice.channel.replace(/^litserve_/, '');
      void notifyLocal(channel, notice.payload ?? '*').catch((error: Error) => logger.warn(`platform store: reloading after a notice failed: ${error.message}`));
    });
    let heartbeat: NodeJS.Timeout | undefined;
    const reconnect = (reason: string) => {
      if (closed || listening !== client) return;
      listening = null;
      clearInterval(heartbeat);
      // Ends the connection even when it is the one that stopped answering (pg destroys the socket under a pending query).
      void client.end().catch(() => undefined);
      if (failedReconnections === 0) logger.warn(`platform store: LISTEN connection lost (${reason}); reconnecting`);
      const delay = Math.min(MAX_RECONNECT_MS, RECONNECT_MS * 2 ** failedReconnections);
      failedReconnections++;
      setTimeout(() => void listen().catch(() => reconnect('reconnect failed')), delay).unref();
    };
    client.on('error', (error) => reconnect(error.message));
    client.on('end', () => reconnect('closed'));
    listening = client;
    reconnectListening = reconnect;
    await client.connect();
    try {
      for (const channel of listeners.keys()) await client.query(`LISTEN ${channelName(channel)}`);
    } catch (error) {
      // A hot standby refuses LISTEN (during recovery) on a connection it accepted: asked again after the
      // back-off, until it is promoted, as a database that is away.
      return reconnect((error as Error).message);
    }
    let unanswered = false;
    heartbeat = setInterval(() => {
      if (closed) return clearInterval(heartbeat);
      if (unanswered) return reconnect('no answer to a heartbeat');
      unanswered = true;
      client.query('SELECT 1').then(
        () => void (unanswered = false),
        (error: Error) => reconnect(error.message),
      );
    }, heartbeatMs);
    heartbeat.unref();
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
    writeInTurn,
    announce: async (channel, key) => void inTransaction('announce').announced.push({ channel, key }),
    onAnnounce: (channel, listener) => {
      const first = !listeners.has(channel);
      listeners.set(channel, [...(listeners.get(channel) ?? []), listener]);
      // Once listening, `*`: a change committed before LISTEN took effect would otherwise be missed.
      // Refused (a hot standby) or lost: the reconnection listens to every channel, this one too.
      if (first && listening) {
        const refused = reconnectListening;
        void listening
          .query(`LISTEN ${channelName(channel)}`)
          .then(
            () => listener('*'),
            (error: Error) => refused(error.message),
          )
          .catch((error: Error) => logger.warn(`platform store: reloading after LISTEN ${channel} failed: ${error.message}`));
      }
    },
    async close() {
      closed = true;
      await listening?.end().catch(() => undefined);
      await pool.end();
    },
  };
}
