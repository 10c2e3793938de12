/**
 * The authors filter reads the wanted authors' articles from a per-segment index instead of
 * scanning every article: on a generated index (several segments, replaced and deleted articles,
 * several spellings per folded name, articles with no author or dozens) its bitsets are those of
 * a brute-force scan of the article columns, alone and with the other metadata filters, and the
 * author suggestions (which read the same folded names) count what the filter matches.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { IndexSnapshot, type LoadedSegment } from '../../../src/search/snapshot.js';
import { IndexWriter } from '../../../src/search/index-writer.js';
import { compileSegmentFilter } from '../../../src/search/filters/compile.js';
import { compileFilterSpec, foldName, typeKey, type FilterSpec, type FilterInput } from '../../../src/search/query/filter-spec.js';
import { FilterValues } from '../../../src/search/suggest.js';
import type { Bitset } from '../../../src/search/filters/bitset.js';
import { random } from '../../../scripts/lib/random.js';
import { article, tempDir } from '../helpers.js';

/** Each name with spellings that fold to it (case, accents, runs of spaces). */
const NAMES = Array.from({ length: 40 }, (_, i) => {
  const name = `José Núñez ${i}`;
  return i % 3 === 0 ? [name, name.toUpperCase(), `jose  nunez ${i}`] : [name];
});
const TYPES = ['research-article', 'review-article', 'Editorial'];
const ISSNS = ['1234-5678', '2049-3630', null];

let snapshot: IndexSnapshot;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  const next = random(5);
  const pick = <T>(values: readonly T[]) => values[Math.floor(next() * values.length)]!;
  // Skewed towards the first names, so some authors have many articles and some few.
  const anyAuthor = () => pick(NAMES[Math.floor(NAMES.length * next() ** 2)]!);
  const randomArticle = (id: string) => {
    const authorCount = next() < 0.15 ? 0 : next() < 0.1 ? 30 + Math.floor(next() * 30) : 1 + Math.floor(next() * 5);
    const issn = pick(ISSNS);
    return article(id, ['place cells'], {
      authors: Array.from({ length: authorCount }, anyAuthor),
      article_type: pick(TYPES),
      date: next() < 0.1 ? null : `20${10 + Math.floor(next() * 10)}-0${1 + Math.floor(next() * 9)}-15`,
      journal_issn: issn,
      journal_name: issn && `Journal ${issn}`,
    });
  };
  const temp = await tempDir();
  cleanup = temp.cleanup;
  // One ingestion per segment; each later one replaces and deletes some articles of the earlier ones.
  for (let round = 0; round < 4; round++) {
    const writer = await IndexWriter.open(temp.dir);
    for (let i = 0; i < 150; i++) await writer.add(randomArticle(`r${round}-${i}`));
    for (let i = 0; i < round * 20; i++) {
      const earlier = `r${Math.floor(next() * round)}-${Math.floor(next() * 150)}`;
      if (next() < 0.5) await writer.add(randomArticle(earlier));
      else writer.delete(earlier);
    }
    await writer.commit();
  }
  snapshot = await IndexSnapshot.open(temp.dir);
});

afterAll(async () => {
  snapshot.close();
  await cleanup();
});

/** Set bits of a bitset, or null for "every article". */
function members(bits: Bitset | null): number[] | null {
  if (!bits) return null;
  const ids: number[] = [];
  bits.forEach((i) => ids.push(i));
  return ids;
}

/** The live articles of a segment that the spec keeps, by reading every article's columns. */
function bruteForce({ segment, liveArticles }: LoadedSegment, spec: FilterSpec): number[] {
  const matches: number[] = [];
  for (let a = 0; a < segment.articleCount; a++) {
    const authors = segment.articleAuthors(a).map((id) => foldName(segment.authors.get(id)));
    const types = segment.articleTypes(a).map((id) => typeKey(segment.types.get(id)));
    const issns = segment.articleIssns(a).map((id) => segment.journals.get(id));
    const date = segment.articleDate[a]!;
    if (liveArticles && !liveArticles.has(a)) continue;
    if (spec.authors.length > 0 && !authors.some((name) => spec.authors.includes(name))) continue;
    if (spec.articleTypes.length > 0 && !types.some((type) => spec.articleTypes.includes(type))) continue;
    if (spec.journals.length > 0 && !issns.some((issn) => spec.journals.includes(issn))) continue;
    if ((spec.dateFrom !== null || spec.dateTo !== null) && (date < 0 || date < (spec.dateFrom ?? -Infinity) || date > (spec.dateTo ?? Infinity))) continue;
    matches.push(a);
  }
  return matches;
}

function expectSameAsBruteForce(input: FilterInput): number {
  const spec = compileFilterSpec(input);
  let total = 0;
  for (const loaded of snapshot.segments) {
    const expected = bruteForce(loaded, spec);
    expect(members(compileSegmentFilter(loaded, spec).articles), JSON.stringify(input)).toEqual(expected);
    total += expected.length;
  }
  return total;
}

describe('authors filter through the per-segment author index', () => {
  it('is generated with what it must handle', () => {
    expect(snapshot.segments.length).toBe(4);
    expect(snapshot.segments.filter((s) => s.liveArticles !== null).length).toBeGreaterThanOrEqual(2);
    const authorCounts = snapshot.segments.flatMap(({ segment }) => Array.from({ length: segment.articleCount }, (_, a) => segment.articleAuthors(a).length));
    expect(Math.min(...authorCounts)).toBe(0);
    expect(Math.max(...authorCounts)).toBeGreaterThanOrEqual(30);
  });

  it('keeps the articles a brute-force scan keeps, for every name in any spelling, several names and unknown ones', () => {
    const next = random(9);
    let matched = 0;
    for (const spellings of NAMES) for (const spelling of spellings) matched += expectSameAsBruteForce({ authors: [spelling] });
    for (let i = 0; i < 30; i++) {
      const authors = Array.from({ length: 2 + Math.floor(next() * 4) }, () => NAMES[Math.floor(next() * NAMES.length)]![0]!);
      matched += expectSameAsBruteForce({ authors });
    }
    expect(expectSameAsBruteForce({ authors: ['Nobody At All'] })).toBe(0);
    expect(expectSameAsBruteForce({ authors: ['Nobody At All', 'JOSE NUNEZ 3'] })).toBeGreaterThan(0);
    expect(matched).toBeGreaterThan(1000);
  });

  it('keeps what a brute-force scan keeps with the other metadata filters', () => {
    const inputs: FilterInput[] = [
      { authors: ['jose nunez 0', 'José Núñez 7'], article_types: ['Review-Article'] },
      { authors: ['José Núñez 1'], journals: ['1234-5678'] },
      { authors: ['José Núñez 2', 'josé núñez 3'], date_from: '2013-01-01', date_to: '2016-06-30' },
      { authors: ['José Núñez 0'], article_types: ['editorial', 'research-article'], journals: ['2049-3630'], date_from: '2012-01-01' },
      { authors: ['José Núñez 0'], journals: ['9999-9999'] },
      { article_types: ['research-article'], date_to: '2015-01-01' },
    ];
    for (const input of inputs) expectSameAsBruteForce(input);
  });

  it('checks the other conditions only on the wanted authors\' articles', () => {
    const loaded = snapshot.segments[0]!;
    const spec = compileFilterSpec({ authors: ['José Núñez 5'], article_types: ['research-article'] });
    const listing = Array.from({ length: loaded.segment.articleCount }, (_, a) => a).filter((a) =>
      loaded.segment.articleAuthors(a).some((id) => foldName(loaded.segment.authors.get(id)) === 'jose nunez 5'),
    );
    const read = vi.spyOn(loaded.segment, 'articleTypes');
    try {
      compileSegmentFilter(loaded, spec);
      expect(listing.length).toBeGreaterThan(0);
      expect(read.mock.calls.map(([a]) => a)).toEqual(listing);
    } finally {
      read.mockRestore();
    }
  });

  it('suggests each folded name with the count the filter gives for it', () => {
    const suggestions = new FilterValues(snapshot).suggestAuthors('nunez', 1000);
    expect(suggestions).toHaveLength(NAMES.length);
    for (const { name, docs_in_db } of suggestions) expect(expectSameAsBruteForce({ authors: [name] }), name).toBe(docs_in_db);
  });
});
