/**
 * Bounds on what archive creation may store: live archives per caller, and
 * the total size of stored definitions. Creating an archive needs only
 * `resources/read`, and a definition may be 1 MiB kept for hours, so without
 * these a read-only token could fill the disk.
 *
 * The counts are a ledger in the platform store, read and written inside the
 * creation's own write: every server sharing a PostgreSQL store counts against
 * the same bounds (counting in memory, each would count only what it saw, and
 * N replicas would allow N times the bounds), and a write that is retried or
 * does not take counts exactly what it stored.
 */
import { PlatformError, RetryLaterError } from '../platform/errors.js';
import type { Store, Table } from '../platform/store/store.js';

/** One stored archive as the ledger counts it; keyed [caller, project, id], so one range reads a caller's. */
export interface ArchiveHold {
  bytes: number;
  expiresAt: number;
}

export interface HoldKey {
  /** Whom the archive counts against: its creator's principal key, an anonymous creator's with its client address. */
  caller: string;
  project: string;
  id: string;
}

/** The one row of `archive-totals`: the bytes of every stored definition, expired ones until purged. */
const STORED_BYTES = 'stored-bytes';
/**
 * Every write of the ledger updates that row, so they take turns (Store.writeInTurn): under SERIALIZABLE
 * alone, a burst of creations over several replicas conflicted until a quarter of 400 gave up (503).
 */
const LEDGER_TURN = 'archive-ledger';
/**
 * How long opening the ledger waits for its turn: another server starting at the same time may be filling
 * it from every stored definition (up to --max-archive-store-bytes), and a start should wait for that rather
 * than fail as a busy store.
 */
const FILL_WAIT_MS = 10 * 60_000;
/** Holds read at a time when all are gone through (to find expired archives, or live bytes near the bound). */
const HOLDS_PER_READ = 10_000;

export class ArchiveLedger {
  private readonly holds: Table<ArchiveHold>;
  private readonly totals: Table<number>;

  constructor(
    private readonly store: Store,
    private readonly maxPerCaller: number,
    private readonly maxStoreBytes: number,
  ) {
    this.holds = store.table('archive-holds');
    this.totals = store.table('archive-totals');
  }

  /**
   * Fills the ledger from the stored archives the first time a store is opened
   * by a server that keeps one (the archives of an older version were counted
   * in memory), and again whenever it does not count as many archives as are
   * stored (an older version ran on the store since): an archive it does not
   * count would never be purged. Otherwise reads two counts and nothing else.
   * Returns how many archives it counted when it filled the ledger, null when it did not.
   */
  async ensureFilled(archivesStored: () => Promise<number>, storedArchives: () => AsyncIterable<HoldKey & ArchiveHold>): Promise<number | null> {
    return this.store.writeInTurn(LEDGER_TURN, async () => {
      if ((await this.totals.get(STORED_BYTES)) !== undefined && (await this.holds.count()) === (await archivesStored())) return null;
      for (const { key } of await this.holds.range()) await this.holds.remove(key);
      let total = 0;
      let counted = 0;
      for await (const { caller, project, id, bytes, expiresAt } of storedArchives()) {
        await this.holds.put([caller, project, id], { bytes, expiresAt });
        total += bytes;
        counted++;
      }
      await this.totals.put(STORED_BYTES, total);
      return counted;
    }, { waitMs: FILL_WAIT_MS });
  }

  /**
   * Runs `action` as a write in the ledger's turn: every write that admits or releases an archive.
   * Once `signal` aborts, a write still waiting for the turn gives up its place without running `action`.
   */
  write<T>(action: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    return this.store.writeInTurn(LEDGER_TURN, action, { signal });
  }

  /**
   * Inside a write: throws unless `hold.caller` may store one more archive of `bytes`, then counts it.
   * A refusal that lifts when an archive expires says when, in its reason and as `Retry-After`.
   */
  async admit(key: HoldKey, hold: ArchiveHold, now: number): Promise<void> {
    const live = (await this.holds.range([key.caller])).filter((entry) => entry.value.expiresAt > now);
    if (live.length >= this.maxPerCaller) {
      const wait = secondsUntil(Math.min(...live.map((entry) => entry.value.expiresAt)), now);
      throw new RetryLaterError(
        429,
        'ArchiveQuotaExceeded',
        `You already hold ${live.length} live archives, the most one caller may (--max-archives-per-caller); the first expires in ${wait} s.`,
        wait,
      );
    }
    const stored = (await this.totals.get(STORED_BYTES)) ?? 0;
    // Expired archives are erased by the purge job; until then their bytes count, unless that alone makes the difference.
    if (stored + hold.bytes > this.maxStoreBytes) {
      const { bytes: liveBytes, firstExpiry } = await this.liveHolds(now);
      if (liveBytes + hold.bytes > this.maxStoreBytes) throw this.storageFull(hold.bytes, liveBytes, firstExpiry, now);
    }
    await this.holds.put([key.caller, key.project, key.id], hold);
    await this.totals.put(STORED_BYTES, stored + hold.bytes);
  }

  /** The 503 for a definition that does not fit: worth a retry (when the first live archive expires) only if it fits an empty store. */
  private storageFull(bytes: number, liveBytes: number, firstExpiry: number, now: number): PlatformError {
    const bound = `the total bound of stored archive definitions, ${this.maxStoreBytes} bytes (--max-archive-store-bytes)`;
    if (bytes > this.maxStoreBytes) {
      return new PlatformError(
        503,
        'ArchiveStorageFull',
        `The new archive definition (${bytes} bytes) would not fit within ${bound} even with no other archive stored: split it into several archives.`,
      );
    }
    const wait = secondsUntil(firstExpiry, now);
    return new RetryLaterError(
      503,
      'ArchiveStorageFull',
      `The new archive definition (${bytes} bytes) would not fit within ${bound}: live archives hold ${liveBytes} bytes; retry once archives have expired (the first expires in ${wait} s).`,
      wait,
    );
  }

  /**
   * Inside a write: stops counting an archive that is being erased (or replaced once expired), and says
   * whether it did; with `expiredAt`, only if the archive counted is expired by then (not replaced meanwhile).
   */
  async release(key: HoldKey, expiredAt = Infinity): Promise<boolean> {
    const hold = await this.holds.get([key.caller, key.project, key.id]);
    if (hold === undefined || hold.expiresAt > expiredAt) return false;
    await this.holds.remove([key.caller, key.project, key.id]);
    await this.totals.put(STORED_BYTES, ((await this.totals.get(STORED_BYTES)) ?? 0) - hold.bytes);
    return true;
  }

  /** The archives expired at `now`, from the ledger alone: their definitions (up to 1 MiB each) are not read. */
  async expired(now: number): Promise<HoldKey[]> {
    const found: HoldKey[] = [];
    for await (const { key, value } of this.allHolds()) {
      const [caller, project, id] = key as [string, string, string];
      if (value.expiresAt <= now) found.push({ caller, project, id });
    }
    return found;
  }

  /** The bytes of the archives live at `now`, and when the first of them expires (Infinity when none is live). */
  private async liveHolds(now: number): Promise<{ bytes: number; firstExpiry: number }> {
    let bytes = 0;
    let firstExpiry = Infinity;
    for await (const { value } of this.allHolds()) {
      if (value.expiresAt <= now) continue;
      bytes += value.bytes;
      firstExpiry = Math.min(firstExpiry, value.expiresAt);
    }
    return { bytes, firstExpiry };
  }

  private async *allHolds() {
    for (let offset = 0; ; offset += HOLDS_PER_READ) {
      const page = await this.holds.range(undefined, { offset, limit: HOLDS_PER_READ });
      yield* page;
      if (page.length < HOLDS_PER_READ) return;
    }
  }
}

/** Whole seconds from `now` until `time`, at least 1 (a `Retry-After` of 0 would invite a retry that fails again). */
function secondsUntil(time: number, now: number): number {
  return Math.max(1, Math.ceil((time - now) / 1000));
}

/** The size a definition takes in the store, near enough: its entries as JSON. */
export function definitionBytes(entries: unknown): number {
  return Buffer.byteLength(JSON.stringify(entries));
}
