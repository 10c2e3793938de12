/**
 * Warming a peer before its first measured cell, the same way for every peer: untimed passes until two passes in a
 * row give figures within `tolerance` of each other, at most `maxPasses`. A peer measured cold gets slower figures
 * in its first cells than in its last: Lucene's JVM keeps compiling for many passes, and the engine's worker threads
 * each compile the scorer on their own.
 */
export interface WarmUp {
  passes: number;
  /** False when `maxPasses` ran out before two passes agreed. */
  settled: boolean;
}

export const WARM_UP = { tolerance: 0.05, maxPasses: 10 } as const;

/** Runs `pass` (which returns its figure: a median, a rate) until two figures in a row agree. */
export async function warmUntilSettled(pass: () => Promise<number>, limits: { tolerance: number; maxPasses: number } = WARM_UP): Promise<WarmUp> {
  let previous = await pass();
  for (let passes = 2; passes <= limits.maxPasses; passes++) {
    const figure = await pass();
    if (Math.abs(figure - previous) <= limits.tolerance * previous) return { passes, settled: true };
    previous = figure;
  }
  return { passes: limits.maxPasses, settled: false };
}

/** How the report says a peer's warm-up went. */
export function describeWarmUp(warmUp: WarmUp | undefined): string {
  if (!warmUp) return 'not recorded';
  return `${warmUp.passes} passes${warmUp.settled ? '' : ' (not settled)'}`;
}
