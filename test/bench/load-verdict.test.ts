/** The load benchmark's verdict: which answers count as server errors. */
import { describe, expect, it } from 'vitest';
import { serverErrorsOf, type StepResult } from '../../bench/lib/load-mix.js';

function stepWith(statuses: Record<string, number>): StepResult {
  return { connections: 1, seconds: 1, loadAverage: 0, requestsPerSecond: 0, p50: 0, p99: 0, statuses, errors: 0, timeouts: 0, byKind: {}, rss: { min: 0, max: 0, end: 0, series: [] } };
}

describe('serverErrorsOf', () => {
  it('counts 5xx answers other than the 503 of load shedding', () => {
    expect(serverErrorsOf(stepWith({ 200: 10, 500: 2, 502: 1, 503: 40 }))).toBe(3);
  });

  it('does not count requests that got no answer (timeouts) or 4xx as server errors', () => {
    // autocannon's "undefined" status (filed by the step as "none") once compared above "500" as a string.
    expect(serverErrorsOf(stepWith({ 200: 10, none: 20, undefined: 5, 429: 7, 404: 1 }))).toBe(0);
  });
});
