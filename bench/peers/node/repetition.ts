/**
 * When one repetition of a throughput cell stops, the same rule in every peer (Java and Python have it too): queries
 * are taken from the list in turn, cycling it, until the time budget is spent, or once the whole list has been taken
 * and the minimum window has passed. A list answered in a few milliseconds would otherwise give a rate over too short
 * a time to compare.
 */
import { performance } from 'node:perf_hooks';

/** The two ends of a repetition, as times of the clock `now` reads. */
export interface RepetitionEnds {
  /** The time budget's end: no query is taken after it. */
  deadline: number;
  /** The minimum window's end: before it the list is cycled. */
  window: number;
}

export function repetitionEnds(start: number, maxSeconds: number, minSeconds: number): RepetitionEnds {
  return { deadline: start + maxSeconds * 1000, window: start + minSeconds * 1000 };
}

/** Whether another query is taken, when `taken` queries of a list of `listLength` have been taken already. */
export function goesOn(now: number, taken: number, listLength: number, ends: RepetitionEnds): boolean {
  return now < ends.deadline && (taken < listLength || now < ends.window);
}

/** A repetition in one Node process: `concurrency` loops share the list; returns its length in seconds and the queries answered. */
export async function cycleQueries(
  queries: string[], concurrency: number, maxSeconds: number, minSeconds: number, search: (query: string) => Promise<unknown>,
): Promise<{ seconds: number; queries: number }> {
  const started = performance.now();
  const ends = repetitionEnds(started, maxSeconds, minSeconds);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (goesOn(performance.now(), next, queries.length, ends)) await search(queries[next++ % queries.length]!);
    }),
  );
  return { seconds: (performance.now() - started) / 1000, queries: next };
}
