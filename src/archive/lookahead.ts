/**
 * Lookups of an archive's entries, a few at once, answered in the entries' order. On PostgreSQL each
 * lookup is a few round trips to the database; one after another, an archive of 2,000 files took
 * seconds to create or to start downloading (docs/DESIGN.md). Results are still handled one by one
 * in order, so what is refused first, and what the entries admitted before it, do not change.
 */

/** Lookups in flight for one archive: a few of the platform store's 10 PostgreSQL connections, the rest left to other requests. */
export const LOOKUPS_AHEAD = 4;

/** An item with what its lookup answered, or how it failed. */
export type Settled<T, R> = { item: T; value: R } | { item: T; error: unknown };

/**
 * `lookup` of each item, at most `ahead` in flight, settled results yielded in the items' order. A caller
 * that stops early leaves at most `ahead` lookups to finish unread (their failures are settled, never unhandled).
 */
export async function* inOrderAhead<T, R>(items: readonly T[], lookup: (item: T) => Promise<R>, ahead = LOOKUPS_AHEAD): AsyncGenerator<Settled<T, R>> {
  const settle = (item: T): Promise<Settled<T, R>> =>
    lookup(item).then(
      (value) => ({ item, value }),
      (error: unknown) => ({ item, error }),
    );
  const inFlight: Promise<Settled<T, R>>[] = [];
  let next = 0;
  while (next < items.length && inFlight.length < ahead) inFlight.push(settle(items[next++]!));
  while (inFlight.length > 0) {
    const settled = await inFlight.shift()!;
    if (next < items.length) inFlight.push(settle(items[next++]!));
    yield settled;
  }
}
