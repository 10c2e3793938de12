/** Checks shared by the tests of a job's progress reports. */
import { expect } from 'vitest';

/**
 * The total the reports announce, having checked that they start at 0, keep that total, never go
 * back, and end at it.
 */
export function steadyTotal(reports: readonly [done: number, total: number][]): number {
  const total = reports[0]![1];
  expect(reports[0]![0]).toBe(0);
  expect(reports.every(([, t]) => t === total)).toBe(true);
  expect(reports.at(-1)).toEqual([total, total]);
  for (let i = 1; i < reports.length; i++) expect(reports[i]![0]).toBeGreaterThanOrEqual(reports[i - 1]![0]);
  return total;
}
