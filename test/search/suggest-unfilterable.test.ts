/**
 * Suggestions offer only values their filter accepts and finds: article types and author names
 * without a letter or digit ("---", "😀", a lone combining accent) are stored as ingested, but
 * article_types= and authors= refuse them, so suggesting them would offer a dead choice, and
 * types with an empty key must not be counted together as one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Searcher } from '../../src/search/searcher.js';
import { compileFilterSpec, type FilterInput } from '../../src/search/query/filter-spec.js';
import type { ArticleInput } from '../../src/corpus/model.js';
import { article, searcherOver } from './helpers.js';

const UNFILTERABLE_TYPES = ['---', '😀', '\u0301'];
const UNFILTERABLE_AUTHORS = ['😀', '—', '...', '-', '\u0301'];

const articles: ArticleInput[] = [
  ...UNFILTERABLE_TYPES.map((type, i) => article(`odd-type-${i}`, ['grid cells'], { article_type: type, authors: ['Ana Lima'] })),
  ...UNFILTERABLE_AUTHORS.map((author, i) =>
    article(`odd-author-${i}`, ['place cells'], { authors: [author, 'Bo Chen'], journal_issn: '1234-5678', journal_name: '😀' }),
  ),
  article('n1', ['theta'], { article_type: 'Review', authors: ['Ana Lima', 'J.-P. Sartre'], journal_issn: '0007-0920', journal_name: 'British Journal of Cancer' }),
  article('n2', ['theta'], { article_type: 'review', authors: ['Ána LIMA'], journal_issn: '0007-0920', journal_name: 'British Journal of Cancer' }),
  article('n3', ['spike'], { article_type: 'case-report', authors: ['Bo Chen', '-'], journal_issn: '2045-2322', journal_name: 'Scientific Reports' }),
  article('n4', ['spike'], { article_type: 'research-article', authors: ['A. B. 3rd'] }),
];

let searcher: Searcher;
let close: () => Promise<void>;
beforeAll(async () => ({ searcher, close } = await searcherOver(articles)));
afterAll(() => close());

const count = (input: FilterInput) => searcher.countArticles(compileFilterSpec(input));

/** Every author suggestion for any needle the fixture's names, or parts of them, make. */
function everyAuthorSuggestion(): { name: string; docs_in_db: number }[] {
  const needles = new Set(articles.flatMap((a) => a.authors.flatMap((name) => [name, ...name.split(/\s+/), ...name])));
  return [...needles].flatMap((needle) => searcher.suggestions.suggestAuthors(needle, 1000));
}

describe('suggestions of values their filter cannot match', () => {
  it('leave out article types without a letter or digit, without merging them into one entry', () => {
    expect(searcher.suggestions.articleTypes()).toEqual([
      { article_type: 'research-article', docs_in_db: 6 },
      { article_type: 'Review', docs_in_db: 2 },
      { article_type: 'case-report', docs_in_db: 1 },
    ]);
  });

  it('leave out author names without a letter or digit, whatever is typed', () => {
    const suggested = new Set(everyAuthorSuggestion().map((s) => s.name));
    expect(suggested).toEqual(new Set(['Ana Lima', 'J.-P. Sartre', 'Bo Chen', 'A. B. 3rd']));
    expect(searcher.suggestions.suggestAuthors('😀', 1000)).toEqual([]);
  });

  it('suggest only values whose filter accepts them and finds what docs_in_db says', () => {
    for (const { article_type, docs_in_db } of searcher.suggestions.articleTypes()) {
      expect(docs_in_db, article_type).toBeGreaterThan(0);
      expect(count({ article_types: [article_type] }), article_type).toBe(docs_in_db);
    }
    for (const { name, docs_in_db } of everyAuthorSuggestion()) {
      expect(docs_in_db, name).toBeGreaterThan(0);
      expect(count({ authors: [name] }), name).toBe(docs_in_db);
    }
    const journalNeedles = articles.flatMap((a) => [a.journal_issn, a.journal_name].filter((v): v is string => v !== null));
    const journals = journalNeedles.flatMap((needle) => searcher.suggestions.suggestJournals(needle, 1000));
    expect(new Set(journals.map((j) => j.journal_issn))).toEqual(new Set(['1234-5678', '0007-0920', '2045-2322']));
    for (const { journal_issn, docs_in_db } of journals) {
      expect(docs_in_db, journal_issn).toBeGreaterThan(0);
      expect(count({ journals: [journal_issn] }), journal_issn).toBe(docs_in_db);
    }
  });
});
