/** Texts cut at --max-paragraph-length stay well-formed Unicode whatever character the limit falls in. */
import { describe, expect, it } from 'vitest';
import { cutText } from '../../src/http/literature/oversized.js';

describe('cutText', () => {
  it('keeps a text at or under the limit as it is', () => {
    expect(cutText('abcdefghij', 10)).toBe('abcdefghij');
  });

  it('cuts at the limit and says where and from how long', () => {
    expect(cutText('abcdefghijkl', 10)).toBe('abcdefghij [cut at 10 of 12 characters]');
  });

  it('does not split a surrogate pair: the emoji the limit falls in is left out whole', () => {
    const text = `abcdefghi\u{1F600} place cells`;
    const cut = cutText(text, 10);
    expect(cut).toBe(`abcdefghi [cut at 10 of ${text.length} characters]`);
    // A pair ending exactly at the limit is kept.
    expect(cutText(`abcdefgh\u{1F600} place cells`, 10)).toBe(`abcdefgh\u{1F600} [cut at 10 of 22 characters]`);
  });
});
