/**
 * A weight outside the qvalue grammar (RFC 9110 §12.4.2: 0 to 1, three decimals at most) is read the
 * same way whatever is wrong with it: `Accept: application/json;q=2` was served JSON (clamped to 1)
 * while `q=abc` was answered 406 (read as 0). A number is clamped; anything else is no weight, so 1.
 */
import { describe, expect, it } from 'vitest';
import { negotiate } from '../../src/http/negotiation.js';
import { chooseCoding } from '../../src/http/ui/content-coding.js';
import { weightedMembers } from '../../src/http/weighted-list.js';

const OFFERS = ['application/ld+json', 'application/json'] as const;

describe('weights outside the qvalue grammar', () => {
  it.each([
    ['q=0.5', 0.5],
    ['q=0', 0],
    ['q=2', 1],
    ['q=1.5', 1],
    ['q=-1', 0],
    ['q=abc', 1],
    ['q=', 1],
    ['q=1e-3', 1],
  ])('application/json;%s weighs %d', (weight, q) => {
    expect(weightedMembers(`application/json;${weight}`)).toEqual([{ name: 'application/json', q }]);
  });

  it('serves a media type whose weight is unreadable as one weighted too high: neither is 406', () => {
    expect(negotiate('application/json;q=2', OFFERS)).toBe('application/json');
    expect(negotiate('application/json;q=abc', OFFERS)).toBe('application/json');
  });

  it('reads Accept-Encoding the same way', () => {
    expect(chooseCoding('gzip;q=abc')).toBe('gzip');
    expect(chooseCoding('gzip;q=2')).toBe('gzip');
    expect(chooseCoding('gzip;q=0.1, identity;q=x')).toBe('identity');
  });
});
