/** Every peer is warmed the same way before its first measured cell, and the report says what each got. */
import { describe, expect, it } from 'vitest';
import type { PeerRun } from '../../bench/peers/lib/measure.js';
import { warmUpText } from '../../bench/peers/lib/report.js';
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
  const run = (peer: string, corpus: string, warmUps: Partial<PeerRun> = {}) => ({ peer, corpus, ...warmUps }) as PeerRun;

  it('says what warm-up each peer got before its first latency and throughput cells, per corpus', () => {
    const [latency, throughput] = warmUpText([
      run('engine', 'generated', { latencyWarmUp: { passes: 2, settled: true }, throughputWarmUp: { passes: 3, settled: true } }),
      run('lucene', 'generated', { latencyWarmUp: { passes: 10, settled: false }, throughputWarmUp: { passes: 4, settled: true } }),
    ]);
    expect(latency).toMatch(/^Before its first latency cell each peer answered untimed passes over the query sets \(k = 10, no filter/);
    expect(latency).toContain('within 5% of each other (at most 10); generated: engine 2 passes, lucene 10 passes (not settled).');
    expect(throughput).toMatch(/^Before its first throughput cell each peer's pool was started, outside any timed part/);
    expect(throughput).toContain('generated: engine 3 passes, lucene 4 passes.');
  });

  it('says nothing of a warm-up the run did not record', () => {
    expect(warmUpText([run('engine', 'generated')])).toEqual([]);
  });
});
