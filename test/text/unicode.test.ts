/** The length limits stated in characters count code points: what users count, not UTF-16 units, not bytes. */
import { describe, expect, it } from 'vitest';
import { codePointCount, shownName, startOf } from '../../src/text/unicode.js';

describe('codePointCount', () => {
  it('counts an astral character (an emoji) once, not as its two UTF-16 units', () => {
    expect(codePointCount('')).toBe(0);
    expect(codePointCount('abc')).toBe(3);
    expect(codePointCount('\u{1F9E0}')).toBe(1);
    expect(codePointCount('a\u{1F9E0}b\u{1F9E0}')).toBe(4);
  });

  it('counts code points, not what renders as one: a combining accent and a lone surrogate are one each', () => {
    expect(codePointCount('e\u0301')).toBe(2);
    expect(codePointCount('\ud800x')).toBe(2);
  });
});

describe('startOf and shownName', () => {
  it('take whole characters: an astral one the limit falls in is kept whole, never halved', () => {
    expect(startOf('abc', 5)).toBe('abc');
    expect(startOf('ab\u{1F9E0}cd', 3)).toBe('ab\u{1F9E0}');
    expect(startOf('ab\u{1F9E0}cd', 2)).toBe('ab');
    expect(shownName(`${'a'.repeat(63)}\u{1F9E0}bc`)).toBe(`${'a'.repeat(63)}\u{1F9E0}… (66 characters)`);
    expect(shownName(`${'a'.repeat(63)}\u{1F9E0}`)).toBe(`${'a'.repeat(63)}\u{1F9E0}`);
  });
});
