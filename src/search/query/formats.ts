/**
 * Value formats both the filter validator and the corpus readers check: here,
 * inside the engine, so the validator imports no runtime value from the
 * corpus (which may import the engine, not the other way round).
 */

export const ISSN_PATTERN = /^\d{4}-\d{3}[\dX]$/;

/** True when `value` is a real calendar date written YYYY-MM-DD. */
export function isValidDate(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= daysInMonth(year, month);
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Proleptic Gregorian, as ISO 8601 counts (Date.UTC reads years 0–99 as 1900–1999: 0000-02-29 was refused). */
function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!;
}
