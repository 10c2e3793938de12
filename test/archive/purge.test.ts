import { afterEach, expect, test, vi } from 'vitest';
import { purgeInterval, startPurgeJob } from '../../src/archive/purge.js';

afterEach(() => {
  vi.useRealTimers();
});

test('the purge job runs periodically, logs what it removed and its failures, and stops', async () => {
  vi.useFakeTimers();
  let runs = 0;
  const logged: number[] = [];
  const failures: string[] = [];
  const purge = async () => {
    runs++;
    if (runs === 3) throw new Error('store unreachable');
    return runs % 2 === 0 ? 3 : 0;
  };
  const job = startPurgeJob(purge, 1000, (removed) => logged.push(removed), (error) => failures.push(error.message));
  await vi.advanceTimersByTimeAsync(4000);
  expect(runs).toBe(4);
  expect(logged).toEqual([3, 3]);
  expect(failures).toEqual(['store unreachable']);
  job.stop();
  await vi.advanceTimersByTimeAsync(4000);
  expect(runs).toBe(4);
});

test('the purge interval is 5 minutes, or the time to live when shorter', () => {
  expect(purgeInterval(5 * 3_600_000)).toBe(300_000);
  expect(purgeInterval(30_000)).toBe(30_000);
  expect(purgeInterval(10)).toBe(1000);
});
