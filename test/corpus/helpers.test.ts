import { describe, expect, it } from 'vitest';
import { isoDate, medlineDateParts, monthNumber } from '../../src/corpus/readers/dates.js';
import {
  collapseWhitespace,
  labelAsHeading,
  normaliseDoi,
  normaliseIssn,
  slug,
  withLabel,
} from '../../src/corpus/readers/normalise.js';

describe('dates', () => {
  it('reads month numbers and names', () => {
    expect(['1', '01', '12', 'Jan', 'january', 'SEPT', 'Sep.', 'December'].map(monthNumber)).toEqual([
      1, 1, 12, 1, 1, 9, 9, 12,
    ]);
    expect(['0', '13', 'Spring', 'Foo', '', null, undefined].map(monthNumber)).toEqual([
      null, null, null, null, null, null, null,
    ]);
  });

  it('builds YYYY-MM-DD with 01 defaults and rejects impossible days', () => {
    expect(isoDate({ year: '2011', month: '8', day: '2' })).toBe('2011-08-02');
    expect(isoDate({ year: ' 2010 ', month: 'Nov' })).toBe('2010-11-01');
    expect(isoDate({ year: '2007' })).toBe('2007-01-01');
    expect(isoDate({ year: '2024', month: 'Feb', day: '29' })).toBe('2024-02-29');
    expect(isoDate({ year: '2023', month: 'Feb', day: '29' })).toBeNull();
    expect(isoDate({ year: '2023', month: 'Spring', day: '5' })).toBe('2023-01-01');
    expect(isoDate({ year: '07' })).toBeNull();
    expect(isoDate({})).toBeNull();
  });

  it('takes the start of a MEDLINE free-text date', () => {
    expect(medlineDateParts('1998 Dec-1999 Jan')).toEqual({ year: '1998', month: 'Dec' });
    expect(medlineDateParts('2000 Spring')).toEqual({ year: '2000', month: 'Spring' });
    expect(medlineDateParts('1999-2000')).toEqual({ year: '1999', month: null });
    expect(medlineDateParts('undated')).toEqual({});
  });
});

describe('normalisation', () => {
  it('collapses whitespace', () => {
    expect(collapseWhitespace('  a\n\t b\u00a0 c  ')).toBe('a b c');
  });

  it('normalises ISSNs or rejects them', () => {
    expect(normaliseIssn(' 1234-567x ')).toBe('1234-567X');
    expect(normaliseIssn('15321827')).toBe('1532-1827');
    expect(normaliseIssn('1234-56789')).toBeNull();
    expect(normaliseIssn(null)).toBeNull();
  });

  it('strips DOI prefixes', () => {
    expect(normaliseDoi('https://doi.org/10.1/x')).toBe('10.1/x');
    expect(normaliseDoi('doi: 10.1/x ')).toBe('10.1/x');
    expect(normaliseDoi('  ')).toBeNull();
  });

  it('turns labels into headings and prefixes', () => {
    expect(labelAsHeading('BACKGROUND')).toBe('Background');
    expect(labelAsHeading('Background:')).toBe('Background');
    expect(labelAsHeading('mRNA levels')).toBe('mRNA levels');
    expect(withLabel('RESULTS', 'It worked.')).toBe('Results: It worked.');
    expect(withLabel(null, 'It worked.')).toBe('It worked.');
  });

  it('slugs publication types', () => {
    expect(slug("Research Support, Non-U.S. Gov't")).toBe('research-support-non-u-s-gov-t');
    expect(slug('Journal Article')).toBe('journal-article');
  });
});
