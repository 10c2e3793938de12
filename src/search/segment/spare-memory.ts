/**
 * Memory handed from one segment builder to the next. Building a segment
 * fills hundreds of MiB of growing arrays, and the first write to each fresh
 * page of them is a page fault: on the 2-core VM that runs bench:peers, a
 * 286 MB copy took 935 ms into fresh memory and 55 ms into memory written
 * before (about 13 µs per 4 KiB page). An index writer builds its segments one
 * after another, so each array of a builder takes over the buffer the same
 * array (by name) had in the builder before, already as large as it needs.
 * Only the arrays filled while articles are added do (postings and stored
 * fragments): the ones made when a segment is written (sort order, packed
 * blocks, coded fragments) would be held through the whole next build, and
 * reusing them too raised a 1M build's peak RSS from about 520 to 590 MiB
 * without a measurable gain in time.
 */

/** Where one array gets its backing stores. */
export interface ArrayMemory {
  /** A buffer of at least `bytes` (a multiple of 8). It may hold old bytes: the arrays only read what they wrote. */
  take(bytes: number): ArrayBuffer;
}

/** Fresh, zeroed memory: arrays built outside an index writer (merges, tests). */
export const FRESH_MEMORY: ArrayMemory = { take: (bytes) => new ArrayBuffer(bytes) };

export class SpareMemory {
  /** The previous builder's buffers by array name, until taken. */
  private spare = new Map<string, ArrayBuffer>();
  /** The current builder's buffers by array name (the last one taken under each). */
  private inUse = new Map<string, ArrayBuffer>();

  /** The memory of the array `name` (unique within a builder). */
  for(name: string): ArrayMemory {
    return { take: (bytes) => this.take(name, bytes) };
  }

  private take(name: string, bytes: number): ArrayBuffer {
    const spare = this.spare.get(name);
    this.spare.delete(name);
    const buffer = spare !== undefined && spare.byteLength >= bytes ? spare : new ArrayBuffer(bytes);
    this.inUse.set(name, buffer);
    return buffer;
  }

  /**
   * Keeps the current builder's buffers for the next one, once its segment is
   * written; the builder must not be used afterwards. Buffers of the builder
   * before that nobody took are dropped, so one builder's worth is kept.
   */
  reclaim(): void {
    this.spare = this.inUse;
    this.inUse = new Map();
  }
}

/** The memory of array `name`: spare memory's, or fresh without any. */
export function memoryFor(memory: SpareMemory | undefined, name: string): ArrayMemory {
  return memory?.for(name) ?? FRESH_MEMORY;
}
