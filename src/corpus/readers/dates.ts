/** Turning the date parts found in JATS and PubMed XML into YYYY-MM-DD. */
import { isValidDate } from '../model.js';

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** 1-12 from "5", "05", "May", "may", "September", "Sept"; null when unrecognised. */
export function monthNumber(value: string | null | undefined): number | null {
  if (value == null) return null;
  const text = value.trim().toLowerCase();
  if (/^\d{1,2}$/.test(text)) {
    const month = Number(text);
    return month >= 1 && month <= 12 ? month : null;
  }
  const index = MONTHS.indexOf(text.slice(0, 3));
  return index === -1 || !/^[a-z]+\.?$/.test(text) ? null : index + 1;
}

export interface DateParts {
  year?: string | null;
  month?: string | null;
  day?: string | null;
}

/**
 * YYYY-MM-DD from loose parts, or null without a usable year. A missing or
 * unreadable month or day becomes 01: a partial date is still worth keeping
 * for year filters. A day that does not exist in its month (2023-02-30)
 * makes the whole date null rather than silently moving it.
 */
export function isoDate(parts: DateParts): string | null {
  const year = parts.year?.trim() ?? '';
  if (!/^\d{4}$/.test(year)) return null;
  const month = monthNumber(parts.month) ?? 1;
  const dayText = parts.day?.trim() ?? '';
  const day = /^\d{1,2}$/.test(dayText) && monthNumber(parts.month) !== null ? Number(dayText) : 1;
  const date = `${year}-${pad(month)}-${pad(day)}`;
  return isValidDate(date) ? date : null;
}

/**
 * The start of a free-text MEDLINE date such as "1998 Dec-1999 Jan",
 * "2000 Spring" or "1999-2000": its first year, and the month right after it
 * when there is one.
 */
export function medlineDateParts(text: string): DateParts {
  const match = /(\d{4})(?:\s+([A-Za-z]+))?/.exec(text);
  if (!match) return {};
  return { year: match[1], month: match[2] ?? null };
}

function pad(value: number): string {
  return String(value).padStart(2, '0');
}
