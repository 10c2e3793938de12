/**
 * Measuring contexts is tokenising them, synchronous work: a retrieved paragraph of 100,000 characters
 * took 50 to 170 ms with a 32,000-token llama vocabulary. Sixteen of them between two turns of the event
 * loop held every other request of the server for up to 2.7 s; a long one must give the loop its turn.
 */
import { describe, expect, it } from 'vitest';
import { fitContexts } from '../../src/llm/prompt.js';

/** Stands for tokenising a long paragraph: at least `ms` of work that does not yield. */
function busyFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('fitContexts over long contexts', () => {
  it('gives the event loop a turn after each measurement that took long, not only every few contexts', async () => {
    let measured = 0;
    const measure = { prompt: () => 0, context: () => (busyFor(30), measured++, 1) };
    const measuredAtTurns: number[] = [];
    const watch = () => {
      measuredAtTurns.push(measured);
      if (measured < 6) setImmediate(watch);
    };
    setImmediate(watch);
    const kept = await fitContexts([0, 1, 2, 3, 4, 5], measure, 100);
    expect(kept).toHaveLength(6);
    // Each 30 ms measurement is followed by a turn, in which the watcher sees it.
    expect(measuredAtTurns.slice(0, 5)).toEqual([1, 2, 3, 4, 5]);
  });
});

describe('fitContexts past the contexts that do not fit', () => {
  // The window full but for a little room, every lower-ranked paragraph was tokenised to find one short
  // enough, however many: 1,000 retrieved paragraphs of 100,000 characters took 50 to 170 s of tokenising.
  it('measures a bounded number of contexts that do not fit, still keeping a short one among them', async () => {
    let measured = 0;
    const measure = { prompt: (kept: readonly number[]) => kept.reduce((a, b) => a + b, 0), context: (size: number) => (measured++, size) };
    const sizes = Array.from({ length: 1000 }, (_, i) => (i === 40 || i === 900 ? 5 : 300));
    const kept = await fitContexts(sizes, measure, 1000);
    expect(kept).toEqual([300, 300, 300, 5]);
    expect(measured).toBeLessThan(100);
  });
});
