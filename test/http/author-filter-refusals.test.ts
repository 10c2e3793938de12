/** An authors= value of punctuation alone is 422 naming it, as an article type of punctuation alone is (README, Retrieval). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { fixtureApp } from './app-fixture.js';

let app: FastifyInstance;
let close: () => Promise<void>;
beforeAll(async () => ({ app, close } = await fixtureApp()));
afterAll(() => close());

describe('authors of punctuation alone', () => {
  it.each([
    ['-', '-'],
    ['---', '---'],
    ['.', '.'],
    ['%00', '\u0000'],
    ['%E2%80%8B', '\u200B'],
  ])('authors=%s is 422 naming the value', async (query, value) => {
    const response = await app.inject({ method: 'GET', url: `/retrieval/article_count?authors=${query}` });
    expect(response.statusCode).toBe(422);
    expect(response.json().detail).toMatchObject({ parameter: 'authors', detail: `authors value "${value}" has no letter or digit to match` });
  });

  it('article_types=--- says so in the same words', async () => {
    const response = await app.inject({ method: 'GET', url: '/retrieval/article_count?article_types=---' });
    expect(response.statusCode).toBe(422);
    expect(response.json().detail).toMatchObject({ parameter: 'article_types', detail: 'article_types value "---" has no letter or digit to match' });
  });
});
