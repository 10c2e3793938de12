/** The compiled-filter cache holds at most --filter-cache-size entries, and cached filters give the same answers. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Searcher } from '../../src/search/searcher.js';
import { compileFilterSpec } from '../../src/search/query/filter-spec.js';
import { article, searcherOver } from './helpers.js';

let searcher: Searcher;
let close: () => Promise<void>;

beforeAll(async () => {
  const years = ['2001', '2005', '2010', '2015', '2020'];
  const articles = years.map((year, i) => article(`a${i}`, [`place cells recorded in ${year}`], { date: `${year}-06-01` }));
  ({ searcher, close } = await searcherOver(articles, 2));
});

afterAll(() => close());

describe('filter cache', () => {
  it('never holds more than its size, and answers the same from the cache', () => {
    const counts: number[] = [];
    for (const from of ['2000-01-01', '2004-01-01', '2009-01-01', '2014-01-01', '2004-01-01']) {
      counts.push(searcher.countArticles(compileFilterSpec({ date_from: from })));
      expect(searcher.cachedFilters).toBeLessThanOrEqual(2);
    }
    expect(searcher.cachedFilters).toBe(2);
    expect(counts).toEqual([5, 4, 3, 2, 4]);
  });
});
