/**
 * Author names a user could not use as the filter's value. Those holding invisible format characters (a
 * zero-width space, bidirectional controls) are found by their visible spelling: such a name had been
 * suggested, and then no spelling a user could type found it. Those longer than a bound given are not suggested.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Searcher } from '../../src/search/searcher.js';
import { compileFilterSpec } from '../../src/search/query/filter-spec.js';
import { article, searcherOver } from './helpers.js';

let searcher: Searcher;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ searcher, close } = await searcherOver([
    article('zw', ['place cells'], { authors: ['Zero\u200bWidth'] }),
    article('bidi', ['grid cells'], { authors: ['\u202eevil\u202c name'] }),
    article('plain', ['grid cells'], { authors: ['ZeroWidth'] }),
    article('long', ['grid cells'], { authors: [`Longname ${'x'.repeat(600)}`, 'Longname Short'] }),
  ]));
});
afterAll(() => close());

const count = (authors: string[]) => searcher.countArticles(compileFilterSpec({ authors }));

describe('author names longer than the filter takes', () => {
  it('are not suggested when a bound is given (authors= would refuse them)', () => {
    expect(searcher.suggestions.suggestAuthors('longname', 10).map((s) => s.name.length).sort((a, b) => a - b)).toEqual([14, 609]);
    expect(searcher.suggestions.suggestAuthors('longname', 10, 500).map((s) => s.name)).toEqual(['Longname Short']);
  });
});

describe('invisible characters in author names', () => {
  it('are no part of the name the filter and the suggestions compare', () => {
    expect(count(['zerowidth'])).toBe(2);
    expect(count(['Zero\u200bWidth'])).toBe(2);
    expect(count(['evil name'])).toBe(1);
    // One name for both spellings, counted as the filter counts it.
    expect(searcher.suggestions.suggestAuthors('zerowidth', 10)).toEqual([{ name: 'Zero\u200bWidth', docs_in_db: 2 }]);
    expect(searcher.suggestions.suggestAuthors('evil n', 10).map((s) => s.docs_in_db)).toEqual([1]);
  });
});
