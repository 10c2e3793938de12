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
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return day <= daysInMonth;
}
