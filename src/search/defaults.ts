/**
 * The engine's defaults that the settings table (src/config/settings.ts) shows. They are here, in a module that imports
 * nothing, and not beside the code that uses them, because the command line reads the settings table to decide its
 * start: taking them from merge.ts, index-writer.ts or pool.ts loaded most of the engine, and Piscina, only to
 * answer --help.
 */

/** Flush a segment once its builder holds about this much (bounds ingestion memory). */
export const DEFAULT_MAX_SEGMENT_BYTES = 512 * 1024 * 1024;

/** Default of the automatic policy: this many adjacent segments of one size tier are merged. */
export const DEFAULT_MERGE_FACTOR = 10;

/**
 * Postings (summed over clauses) under which the server runs a query on the
 * calling thread: about a millisecond of work at most, less than the two
 * thread hand-offs of a pooled query (post, wake the worker, post back, wake
 * the caller) cost on a busy machine (see docs/DESIGN.md, the served path).
 */
export const SERVED_INLINE_POSTINGS = 10_000;
