/** Every peer is warmed the same way before its first measured cell, and the report says what each got. */
import { describe, expect, it } from 'vitest';
import type { PeerRun } from '../../bench/peers/lib/measure.js';
import { latencyWarmUpText } from '../../bench/peers/lib/report.js';
import { warmUntilSettled } from '../../bench/peers/lib/warm-up.js';

/** A pass function giving `figures` one after the other, counting its calls. */
function passes(figures: number[]) {
  let calls = 0;
  return { pass: async () => figures[calls++]!, calls: () => calls };
}

describe('warming until settled', () => {
  it('passes until two figures in a row are within the tolerance', async () => {
    // A JVM speeding up pass after pass: 10 → 6 → 4 → 3.5 → 3.4 ms.
    const warm = passes([10, 6, 4, 3.5, 3.4, 3.4]);
    expect(await warmUntilSettled(warm.pass, { tolerance: 0.05, maxPasses: 10 })).toEqual({ passes: 5, settled: true });
    expect(warm.calls()).toBe(5);
  });

  it('stops at the bound and says it did not settle', async () => {
    const warm = passes([10, 5, 10, 5, 10, 5]);
    expect(await warmUntilSettled(warm.pass, { tolerance: 0.05, maxPasses: 4 })).toEqual({ passes: 4, settled: false });
    expect(warm.calls()).toBe(4);
  });
});

describe("the report's method text", () => {
  const run = (peer: string, corpus: string, latencyWarmUp?: PeerRun['latencyWarmUp']) => ({ peer, corpus, latencyWarmUp }) as PeerRun;

  it('says what latency warm-up each peer got, per corpus', () => {
    const [text] = latencyWarmUpText([run('engine', 'generated', { passes: 2, settled: true }), run('lucene', 'generated', { passes: 10, settled: false })]);
    expect(text).toMatch(/^Before its first latency cell each peer answered untimed passes over the query sets \(k = 10, no filter/);
    expect(text).toContain('within 5% of each other, at most 10 passes; generated: engine 2 passes, lucene 10 passes, not settled.');
  });

  it('says nothing of a warm-up the run did not record', () => {
    expect(latencyWarmUpText([run('engine', 'generated')])).toEqual([]);
  });
});
