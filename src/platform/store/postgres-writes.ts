/**
 * The PostgreSQL store's writes: each one SERIALIZABLE transaction on a connection of its own (on a hot
 * standby, which takes no writes, a read-only snapshot), retried from the start on a serialization
 * failure; and turns (Store.writeInTurn), writes to one record that wait for each other under an
 * advisory lock rather than conflict and retry.
 */
import type { AsyncLocalStorage } from 'node:async_hooks';
import type pg from 'pg';
import { StoreUnavailableError } from '../errors.js';
import { channelName } from './postgres-listen.js';
import { unavailableOr } from './postgres-errors.js';
import type { Store, TurnOptions } from './store.js';

/** The write under way in an async context: its connection, and what it announces once it commits. */
export interface Transaction {
  client: pg.PoolClient;
  announced: { channel: string; key: string }[];
}

/** Serialization failure, deadlock, and a unique violation that a concurrent insert of the same key can raise instead. */
const RETRYABLE = new Set(['40001', '40P01', '23505']);
const MAX_ATTEMPTS = 30;

/** What a hot standby answers a write's `BEGIN ISOLATION LEVEL SERIALIZABLE` ("cannot use serializable mode in a hot standby"). */
const NOT_SUPPORTED = '0A000';

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

/** True when the turn (if any) is given back; a connection that could not is closed, which frees it. */
async function turnGivenBack(client: pg.PoolClient, turn: Turn | undefined): Promise<boolean> {
  if (turn === undefined) return true;
  const answer = await client.query<{ ok: boolean }>(`SELECT pg_advisory_unlock(${TURN_LOCK_KEY_SQL}) AS ok`, [turn.key]).catch(() => null);
  return answer?.rows[0]?.ok === true;
}

async function beginSerializable(client: pg.PoolClient): Promise<void> {
  await client.query('BEGIN ISOLATION LEVEL SERIALIZABLE').catch(async (error: { code?: string } & Error) => {
    // Refused (not a connection failure): the only SERIALIZABLE BEGIN a PostgreSQL does not support is a hot
    // standby's. There the write runs read-only: one that finds nothing to change (as the checks a start
    // makes) succeeds, and its first change fails as read-only (25006, a 503). With no write on the
    // database, a snapshot is as good as SERIALIZABLE.
    if (error.code !== NOT_SUPPORTED) throw error;
    await client.query('ROLLBACK');
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  });
}

/**
 * The store's `write` and `writeInTurn` on `pool`, each write's transaction kept in `transaction` for the
 * statements its action runs; `committed` is given what a write announced, once it has committed.
 */
export function serializableWrites(
  pool: pg.Pool,
  transaction: AsyncLocalStorage<Transaction>,
  committed: (announced: Transaction['announced']) => Promise<void>,
): Pick<Store, 'write' | 'writeInTurn'> {
  /**
   * `write`; with a turn, after its advisory lock on the transaction's connection, waited for until the
   * turn's deadline. A session lock, taken before BEGIN: the transaction's snapshot then sees the last
   * holder's commit (a lock taken inside would come after the snapshot, and the write would still conflict).
   */
  const write = async <T>(action: () => Promise<T>, turn?: Turn): Promise<T> => {
    if (transaction.getStore()) return action();
    for (let attempt = 1; ; attempt++) {
      // A write whose client has gone gives up its turn until its action first starts; a retry completes what was started.
      const signal = attempt === 1 ? turn?.signal : undefined;
      signal?.throwIfAborted();
      const client = await pool.connect().catch((error: unknown) => Promise.reject(unavailableOr(error)));
      if (turn !== undefined) await takeTurn(client, turn, signal);
      const current: Transaction = { client, announced: [] };
      let result: T;
      try {
        await beginSerializable(client);
        // Rolled back and the turn given back below, as any write that fails.
        signal?.throwIfAborted();
        result = await transaction.run(current, action);
        for (const { channel, key } of current.announced) await client.query('SELECT pg_notify($1, $2)', [channelName(channel), key]);
        await client.query('COMMIT');
      } catch (error) {
        const rolledBack = await client.query('ROLLBACK').then(() => true, () => false);
        // A connection that kept a transaction or a turn open is closed, which ends both.
        client.release(!(rolledBack && (await turnGivenBack(client, turn))));
        const code = (error as { code?: string }).code;
        if (code === undefined || !RETRYABLE.has(code)) throw unavailableOr(error);
        // Still conflicting after every attempt: the store is too busy, the request is not wrong.
        if (attempt === MAX_ATTEMPTS) {
          throw new StoreUnavailableError(error as Error, 'The platform store is too busy: this write kept conflicting with concurrent ones; retry later.');
        }
        // Concurrent writers of one record: spread the retries so one of them gets through.
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * attempt));
        continue;
      }
      client.release(!(await turnGivenBack(client, turn)));
      await committed(current.announced);
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

  return { write, writeInTurn };
}
