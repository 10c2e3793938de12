/** Dates as the filters and the readers check them: real days of the proleptic Gregorian calendar, ISO 8601's. */
import { describe, expect, it } from 'vitest';
import { isValidDate } from '../../src/search/query/formats.js';

describe('isValidDate', () => {
  it.each([
    ['2024-02-29', true],
    ['2023-02-29', false],
    ['2000-02-29', true],
    ['1900-02-29', false],
    // Years 0–99 follow the same rules (Date.UTC had read them as 1900–1999).
    ['0000-02-29', true],
    ['0004-02-29', true],
    ['0001-02-29', false],
    ['0100-02-29', false],
    ['0400-02-29', true],
    ['2023-04-31', false],
    ['2023-12-31', true],
    ['9999-12-31', true],
    ['2023-13-01', false],
    ['2023-00-10', false],
    ['2023-01-00', false],
    ['2023-1-01', false],
  ])('%s is %s', (date, valid) => {
    expect(isValidDate(date)).toBe(valid);
  });
});
