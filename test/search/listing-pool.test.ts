/**
 * A listing ranked by the words of its text filters scores every paragraph the filters let
 * through, so it runs on the worker pool: its answers are those of the calling thread's, and
 * each article's score is its best paragraph's, as a search of the same words scores it.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Piscina } from 'piscina';
import { Searcher } from '../../src/search/searcher.js';
import { compileFilterSpec } from '../../src/search/query/filter-spec.js';
import { article, tempDir, writeIndex } from './helpers.js';

const OPTIONS = { threads: 2, k1: 1.2, b: 0.75, titleWeight: 0.5, filterCacheSize: 4 };
const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta'];

let cleanup: () => Promise<void>;
let pooled: Searcher;
let onCallingThread: Searcher;

beforeAll(async () => {
  const made = await tempDir();
  cleanup = made.cleanup;
  const articles = Array.from({ length: 150 }, (_, a) =>
    article(
      `a${a}`,
      Array.from({ length: 1 + (a % 5) }, (_, p) => `${WORDS[(a + p) % 6]} ${WORDS[(a * p) % 6]} ${'filler '.repeat((a + p) % 7)}`),
      { title: `title ${WORDS[a % 6]}`, article_type: a % 3 === 0 ? 'review-article' : 'research-article', date: `20${String(10 + (a % 12)).padStart(2, '0')}-01-01` },
    ),
  );
  // Small segments: the ranking spans several.
  await writeIndex(made.dir, articles, 8 * 1024);
  pooled = await Searcher.open(made.dir, OPTIONS);
  onCallingThread = await Searcher.open(made.dir, { ...OPTIONS, threads: 0 });
  expect(pooled.statistics().segments).toBeGreaterThan(1);
});

afterAll(async () => {
  await pooled?.close();
  await onCallingThread?.close();
  await cleanup?.();
});

const SPECS = [
  { topics: ['alpha'] },
  { topics: ['beta', 'gamma'] },
  { regions: ['delta epsilon'], article_types: ['review-article'] },
  { topics: ['zeta'], regions: ['alpha'] },
];

describe('a listing ranked by its text filters', () => {
  it.each(SPECS)('runs on the pool with the calling thread’s answers: %j', async (raw) => {
    const spec = compileFilterSpec(raw);
    const run = vi.spyOn(Piscina.prototype, 'run');
    try {
      for (const sortByDate of [false, true]) {
        const expected = await onCallingThread.listArticles(spec, 40, sortByDate);
        run.mockClear();
        const got = await pooled.listArticles(spec, 40, sortByDate);
        expect(got).toEqual(expected);
        expect(got.length).toBeGreaterThan(3);
        expect(run.mock.calls.some(([, options]) => (options as { name?: string } | undefined)?.name === 'listingScoresTask')).toBe(true);
      }
    } finally {
      run.mockRestore();
    }
  });

  it.each(SPECS)('gives each article its best paragraph’s score for the filters’ words, highest first: %j', async (raw) => {
    const spec = compileFilterSpec(raw);
    const words = [...new Set([...spec.topics.flat(), ...spec.regions.flat()])].join(' ');
    const best = new Map<string, number>();
    for (const hit of await pooled.search(words, 10_000, spec)) {
      const id = pooled.articleIdOf(hit);
      best.set(id, Math.max(best.get(id) ?? -1, hit.score));
    }
    const listed = await pooled.listArticles(spec, 10_000, false);
    expect(new Map(listed.map((hit) => [idOf(hit), hit.score]))).toEqual(best);
    const scores = listed.map((hit) => hit.score!);
    expect(scores).toEqual([...scores].sort((x, y) => y - x));
  });
});

/** The id of a listed article. */
function idOf(hit: { segment: number; article: number }): string {
  let found = '';
  pooled.forEachLiveArticle((id, location) => {
    if (location.segment === hit.segment && location.article === hit.article) found = id;
  });
  return found;
}
