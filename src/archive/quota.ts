/**
 * Bounds on what archive creation may store: live archives per caller, and
 * the total size of stored definitions. Creating an archive needs only
 * `resources/read`, and a definition may be 1 MiB kept for hours, so without
 * these a read-only token could fill the disk. Counts are kept in memory,
 * rebuilt from the store at start and updated inside the store's write
 * transactions, so concurrent creations cannot both slip under a bound.
 */
import { PlatformError } from '../platform/errors.js';

interface Held {
  caller: string;
  bytes: number;
  expiresAt: number;
}

export class ArchiveQuota {
  /** Archive key -> who holds it, its size and expiry. */
  private readonly held = new Map<string, Held>();
  private readonly perCaller = new Map<string, Set<string>>();
  private storedBytes = 0;

  constructor(
    private readonly maxPerCaller: number,
    private readonly maxStoreBytes: number,
  ) {}

  /** Throws unless `caller` may store one more archive of `bytes` at `now`. */
  check(caller: string, bytes: number, now: number): void {
    const live = [...(this.perCaller.get(caller) ?? [])].map((key) => this.held.get(key)!).filter((h) => h.expiresAt > now);
    if (live.length >= this.maxPerCaller) {
      const nextExpiry = Math.min(...live.map((h) => h.expiresAt));
      throw new PlatformError(
        429,
        'ArchiveQuotaExceeded',
        `You already hold ${live.length} live archives, the most one caller may (--max-archives-per-caller); the first expires in ${Math.ceil((nextExpiry - now) / 1000)} s.`,
      );
    }
    // Expired archives are erased by the purge job; until then their bytes count, unless that alone makes the difference.
    if (this.storedBytes + bytes > this.maxStoreBytes && this.liveBytes(now) + bytes > this.maxStoreBytes) {
      throw new PlatformError(
        503,
        'ArchiveStorageFull',
        `The stored archive definitions have reached their total bound of ${this.maxStoreBytes} bytes (--max-archive-store-bytes); retry once archives have expired.`,
      );
    }
  }

  add(key: string, caller: string, bytes: number, expiresAt: number): void {
    this.remove(key);
    this.held.set(key, { caller, bytes, expiresAt });
    this.perCaller.set(caller, (this.perCaller.get(caller) ?? new Set()).add(key));
    this.storedBytes += bytes;
  }

  remove(key: string): void {
    const held = this.held.get(key);
    if (!held) return;
    this.held.delete(key);
    this.perCaller.get(held.caller)?.delete(key);
    if (this.perCaller.get(held.caller)?.size === 0) this.perCaller.delete(held.caller);
    this.storedBytes -= held.bytes;
  }

  private liveBytes(now: number): number {
    let total = 0;
    for (const held of this.held.values()) if (held.expiresAt > now) total += held.bytes;
    return total;
  }
}

/** The size a definition takes in the store, near enough: its entries as JSON. */
export function definitionBytes(entries: unknown): number {
  return Buffer.byteLength(JSON.stringify(entries));
}
