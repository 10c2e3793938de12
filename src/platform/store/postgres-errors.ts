/**
 * What a PostgreSQL error means to the store's callers: a database that cannot be reached or gave up
 * (503), one that takes no writes or refuses the server's role a privilege (503, saying so), a full
 * disk (507), or a statement that is wrong (the error as it is).
 */
import { StoreUnavailableError } from '../errors.js';

/** Socket errors of a database that cannot be reached (ENOENT: no unix socket, the server is down). */
const NETWORK_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOENT', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'EAI_AGAIN', 'ENOTFOUND']);

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
export const READ_ONLY = '25006';

/** insufficient_privilege: the role lost a privilege on a table since the start checked them (TABLE_PRIVILEGES). */
const NO_PRIVILEGE = '42501';

function roleRefused(error: Error): StoreUnavailableError {
  const cause = new Error(`the database refuses this server's role: ${error.message} (grant it ${TABLE_PRIVILEGES.join(', ')} on the litserve_ tables)`, { cause: error });
  return new StoreUnavailableError(cause, "The platform store's database refuses this server's role a privilege it needs; an operator must grant it.");
}

/**
 * What the server's role needs on each of its tables. A role that can read but not write is refused at start,
 * naming what is missing, rather than answering every write 500.
 */
export const TABLE_PRIVILEGES = ['SELECT', 'INSERT', 'UPDATE', 'DELETE'];

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
export function isConnectionFailure(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code.startsWith('08') || code.startsWith('57P') || code === '53300' || GAVE_UP.has(code) || NETWORK_ERRORS.has(code);
  return (
    error instanceof Error &&
    /^(Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error)/.test(error.message)
  );
}

/** PostgreSQL's disk_full (53100): as a full disk under LMDB, an ENOSPC error (507 InsufficientStorage); the transaction was rolled back. */
const DISK_FULL = '53100';

/** `error`, or what it means to the client: a StoreUnavailableError (503), or an ENOSPC error (507). */
export function unavailableOr(error: unknown): unknown {
  // A statement the database gave up on (a lock or statement timeout) is no outage: "cannot be reached" would send operators to the network.
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
