/**
 * Short queries on the calling thread (SearcherOptions.inlinePostings, what
 * the server sets): a query under the threshold never reaches the worker
 * pool, one at or over it does, and both answer exactly what the pool
 * answers with inlining off.
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
let inline: Searcher;

beforeAll(async () => {
  const made = await tempDir();
  cleanup = made.cleanup;
  // "common" is in every paragraph (600 postings); "rare" in every 50th (12).
  const articles = Array.from({ length: 100 }, (_, a) =>
    article(`a${a}`, Array.from({ length: 6 }, (_, p) => `common ${WORDS[(a + p) % 6]} ${(a * 6 + p) % 50 === 0 ? 'rare' : ''} ${'filler '.repeat(p)}`), {
      title: `title ${WORDS[a % 6]}`,
      article_type: a % 2 === 0 ? 'research-article' : 'review-article',
    }),
  );
  await writeIndex(made.dir, articles);
  pooled = await Searcher.open(made.dir, OPTIONS);
  inline = await Searcher.open(made.dir, { ...OPTIONS, inlinePostings: 100 });
});

afterAll(async () => {
  await pooled?.close();
  await inline?.close();
  await cleanup?.();
});

describe('inline queries', () => {
  it('runs a query under the threshold on the calling thread and a longer one on the pool, with the pool’s answers', async () => {
    const run = vi.spyOn(Piscina.prototype, 'run');
    try {
      for (const spec of [compileFilterSpec({}), compileFilterSpec({ article_types: ['review-article'] })]) {
        for (const [query, viaPool] of [['rare', false], ['rare beta', true], ['common', true]] as const) {
          const expected = await pooled.search(query, 7, spec);
          run.mockClear();
          const got = await inline.search(query, 7, spec);
          expect(got, query).toEqual(expected);
          expect(got.length, query).toBeGreaterThan(0);
          expect(run.mock.calls.length > 0, query).toBe(viaPool);
        }
      }
    } finally {
      run.mockRestore();
    }
  });
});
