/** GET /retrieval/ takes use_reranker and reranker_k as the public service does (issue 12 item 4). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureApp, type Fixture } from './app-fixture.js';
import type { Reranker } from '../../src/rerank/types.js';
import { QueuedReranker } from '../../src/rerank/queued.js';

/** Scores a paragraph by how often it says "CA" (so the order differs from BM25's for "cells"). */
const reranker: Reranker = {
  kind: 'cross-encoder',
  description: 'counts CA',
  score: async (_query, passages) => passages.map((p) => (p.match(/CA/g) ?? []).length + p.length / 1e6),
  close: async () => undefined,
};

type Item = { context_id: number; reranking_score: number | null; paragraph: string };

let withReranker: Fixture;
let without: Fixture;
beforeAll(async () => {
  withReranker = await fixtureApp(undefined, { reranker });
  without = await fixtureApp();
});
afterAll(async () => {
  await withReranker.close();
  await without.close();
});

const get = (fixture: Fixture, query: string) => fixture.app.inject({ method: 'GET', url: `/retrieval/?query=cells${query}` });

describe('GET /retrieval/ with the reranker', () => {
  it('keeps at most reranker_k items in reranked order, context_id still the BM25 rank', async () => {
    const bm25: Item[] = (await get(withReranker, '&use_reranker=false')).json();
    const response = await get(withReranker, '&reranker_k=2');
    expect(response.statusCode).toBe(200);
    const items: Item[] = response.json();
    expect(items).toHaveLength(2);
    const scores = items.map((i) => i.reranking_score!);
    expect(scores[0]).toBeGreaterThanOrEqual(scores[1]!);
    expect(items[0]!.paragraph).toMatch(/CA/);
    for (const item of items) expect(bm25[item.context_id]!.paragraph).toBe(item.paragraph);
  });

  it('reranks by default (use_reranker defaults to true, reranker_k to 8)', async () => {
    const items: Item[] = (await get(withReranker, '')).json();
    expect(items.length).toBeLessThanOrEqual(8);
    expect(items.every((i) => typeof i.reranking_score === 'number')).toBe(true);
  });

  it('use_reranker=false gives BM25 order, at most retriever_k, no scores', async () => {
    const items: Item[] = (await get(withReranker, '&use_reranker=false&reranker_k=1&retriever_k=3')).json();
    expect(items.map((i) => i.context_id)).toEqual([0, 1, 2]);
    expect(items.every((i) => i.reranking_score === null)).toBe(true);
  });
});

describe('GET /retrieval/ without a reranker', () => {
  it('accepts the parameters and ignores reranker_k: BM25 order, at most retriever_k', async () => {
    const response = await get(without, '&use_reranker=true&reranker_k=1&retriever_k=3');
    expect(response.statusCode).toBe(200);
    const items: Item[] = response.json();
    expect(items.map((i) => i.context_id)).toEqual([0, 1, 2]);
    expect(items.every((i) => i.reranking_score === null)).toBe(true);
  });

  it.each(['reranker_k=0', 'reranker_k=101', 'use_reranker=maybe'])('rejects %s with 422', async (query) => {
    const response = await get(without, `&${query}`);
    expect(response.statusCode).toBe(422);
    expect(response.json().detail).toMatchObject({ code: 8, parameter: query.split('=')[0] });
  });
});

describe('GET /retrieval/ with the reranker busy', () => {
  it('waits its turn behind a reranking, and beyond --reranker-queue-size waiting is 429 code 5 with Retry-After', async () => {
    const releases: (() => void)[] = [];
    let started = 0;
    const held: Reranker = {
      ...reranker,
      score: async (query, passages) => {
        started++;
        await new Promise<void>((resolve) => releases.push(resolve));
        return reranker.score(query, passages);
      },
    };
    const busy = await fixtureApp(undefined, { reranker: new QueuedReranker(held, 1) });
    try {
      const running = get(busy, '');
      const waiting = get(busy, '');
      await expect.poll(() => started).toBe(1);
      const refused = await get(busy, '');
      expect(refused.statusCode).toBe(429);
      expect(refused.json().detail).toMatchObject({ code: 5, detail: expect.stringMatching(/^too many rerankings are waiting for the reranker/) });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      // Only one scores at a time: the second starts once the first is done.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(started).toBe(1);
      releases.shift()!();
      expect((await running).statusCode).toBe(200);
      await expect.poll(() => started).toBe(2);
      releases.shift()!();
      expect((await waiting).statusCode).toBe(200);
    } finally {
      await busy.close();
    }
  });
});
