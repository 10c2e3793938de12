/** A throughput repetition of bench:peers cycles its query list for a minimum window, within its budget. */
import { describe, expect, it } from 'vitest';
import { throughputRepetition } from '../../bench/peers/lib/report.js';
import { cycleQueries, goesOn, repetitionEnds } from '../../bench/peers/node/repetition.js';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the end of a throughput repetition', () => {
  const ends = repetitionEnds(0, 5, 1);

  it('cycles the list until the minimum window has passed', () => {
    expect(goesOn(200, 10, 10, ends)).toBe(true);
    expect(goesOn(999, 25, 10, ends)).toBe(true);
    expect(goesOn(1000, 25, 10, ends)).toBe(false);
  });

  it('finishes the list past the window, and stops at the budget whatever is left', () => {
    expect(goesOn(3000, 9, 10, ends)).toBe(true);
    expect(goesOn(5000, 9, 10, ends)).toBe(false);
  });

  it('answers a quick list again and again for the window', async () => {
    const answered: string[] = [];
    const result = await cycleQueries(['a', 'b', 'c'], 2, 5, 0.05, async (query) => {
      answered.push(query);
      await pause(1);
    });
    expect(result.seconds).toBeGreaterThanOrEqual(0.05);
    expect(result.queries).toBe(answered.length);
    expect(result.queries).toBeGreaterThan(3);
    expect(answered.slice(0, 6)).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
  });

  it('stops a slow list at the budget', async () => {
    const result = await cycleQueries(Array.from({ length: 1000 }, String), 1, 0.05, 0.01, () => pause(5));
    expect(result.queries).toBeLessThan(1000);
    expect(result.seconds).toBeLessThan(1);
  });
});

it("the report says how long a repetition lasts", () => {
  expect(throughputRepetition({ secondsPerCell: 5, queriesPerSet: 50 })).toBe(
    'Each repetition cycles the mixed list (the four sets interleaved, up to 200 queries) until it has taken the whole list and at least 1 s have passed, and stops at the budget of 5 s.',
  );
  expect(throughputRepetition({ secondsPerCell: 0.5, queriesPerSet: 50 })).toContain('at least 0.5 s have passed');
});
