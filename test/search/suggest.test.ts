/**
 * Author suggestions: one entry per folded name, counting each article once, as the authors
 * filter counts it; the best `limit` in the documented order, picked without sorting every match.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Searcher } from '../../src/search/searcher.js';
import { compileFilterSpec, foldName } from '../../src/search/query/filter-spec.js';
import type { ArticleInput } from '../../src/corpus/model.js';
import { random } from '../../scripts/lib/random.js';
import { article, searcherOver } from './helpers.js';

let searcher: Searcher;
let close: () => Promise<void>;
const articles: ArticleInput[] = [];

/** Spellings of a few names, so folded forms collide within and across articles. */
const SPELLINGS = [
  ['Ana Lima', 'ANA LIMA', 'Ána Lima', 'ana  lima'],
  ['Anna Lim', 'Anna LIM'],
  ['Lima Ana'],
  ['Joana Alima', 'Joána Alima'],
  ['Al Ana'],
  ['Ana'],
  ['Bo Ana-Lima'],
  ['Ian Anders', 'Ían Anders'],
  ['Nan Ali'],
];

beforeAll(async () => {
  const next = random(11);
  articles.push(article('q', ['place cells'], { authors: ['Quentin Zylberstein', 'QUENTIN ZYLBERSTEIN', 'Quéntin Zylberstein'] }));
  for (let i = 0; i < 300; i++) {
    const authors = Array.from({ length: 1 + Math.floor(next() * 4) }, () => {
      const spellings = SPELLINGS[Math.floor(next() * SPELLINGS.length)]!;
      return spellings[Math.floor(next() * spellings.length)]!;
    });
    articles.push(article(`a${i}`, ['grid cells'], { authors }));
  }
  ({ searcher, close } = await searcherOver(articles));
});

afterAll(() => close());

/** The documented order, by sorting every match: what suggestions gave before top-k selection. */
function sortEverything(needle: string, limit: number): { name: string; docs_in_db: number }[] {
  const byFolded = new Map<string, { name: string; articles: Set<string> }>();
  for (const a of articles) {
    for (const author of a.authors) {
      const folded = foldName(author);
      const entry = byFolded.get(folded) ?? { name: author, articles: new Set<string>() };
      entry.articles.add(a.article_id);
      byFolded.set(folded, entry);
    }
  }
  const folded = foldName(needle);
  const rank = (f: string) => (f === folded ? 0 : f.startsWith(folded) ? 1 : f.includes(` ${folded}`) ? 2 : 3);
  return [...byFolded.entries()]
    .filter(([f]) => f.includes(folded))
    .map(([f, e]) => ({ f, rank: rank(f), name: e.name, docs_in_db: e.articles.size }))
    .sort((x, y) => x.rank - y.rank || y.docs_in_db - x.docs_in_db || x.f.localeCompare(y.f))
    .slice(0, limit)
    .map(({ name, docs_in_db }) => ({ name, docs_in_db }));
}

describe('author suggestions', () => {
  it('count an article once per folded name, under the first spelling seen', () => {
    expect(searcher.suggestions.suggestAuthors('quentin', 10)).toEqual([{ name: 'Quentin Zylberstein', docs_in_db: 1 }]);
    expect(searcher.countArticles(compileFilterSpec({ authors: ['quentin zylberstein'] }))).toBe(1);
  });

  it('give for each suggestion the count the authors filter gives for it', () => {
    for (const needle of ['a', 'ana', 'lim', 'an', 'n']) {
      for (const { name, docs_in_db } of searcher.suggestions.suggestAuthors(needle, 1000)) {
        expect(searcher.countArticles(compileFilterSpec({ authors: [name] })), name).toBe(docs_in_db);
      }
    }
  });

  it('give the same suggestions, in the same order, as sorting every match', () => {
    const next = random(5);
    const letters = 'anliLImáAJ -';
    for (let round = 0; round < 200; round++) {
      const needle = Array.from({ length: 1 + Math.floor(next() * 3) }, () => letters[Math.floor(next() * letters.length)]!).join('');
      if (foldName(needle) === '') continue;
      const limit = 1 + Math.floor(next() * 12);
      expect(searcher.suggestions.suggestAuthors(needle, limit), `${needle} ${limit}`).toEqual(sortEverything(needle, limit));
    }
  });

  it('never sort more than `limit` matches', () => {
    searcher.suggestions.suggestAuthors('a', 1); // builds the value table, outside the measure
    const sorted: number[] = [];
    const sort = Array.prototype.sort;
    const spy = vi.spyOn(Array.prototype, 'sort').mockImplementation(function <T>(this: T[], compare?: (x: T, y: T) => number) {
      sorted.push(this.length);
      return sort.call(this, compare) as T[];
    });
    try {
      expect(searcher.suggestions.suggestAuthors('a', 2)).toHaveLength(2);
    } finally {
      spy.mockRestore();
    }
    expect(Math.max(0, ...sorted)).toBeLessThanOrEqual(2);
  });
});
