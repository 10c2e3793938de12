import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { fixtureApp } from './app-fixture.js';

let app: FastifyInstance;
let close: () => Promise<void>;
beforeAll(async () => ({ app, close } = await fixtureApp()));
afterAll(() => close());

const get = (url: string) => app.inject({ method: 'GET', url });

describe('GET /retrieval/article_count', () => {
  it.each([
    ['', 4],
    ['?topics=cells', 3],
    ['?topics=place%20cells', 1],
    ['?topics=cells&topics=pyramidal', 2],
    ['?regions=CA1&regions=entorhinal', 2],
    ['?topics=cells&regions=prefrontal', 1],
    ['?article_types=review-article&article_types=EDITORIAL', 2],
    ['?authors=jose%20nunez', 1],
    ['?authors=Ada%20Lovelace', 2],
    ['?journals=0896-6273', 2],
    ['?date_from=2010-05-01&date_to=2018-03-15', 2],
    ['?date_from=2019-01-01', 1],
    ['?topics=cells&journals=0896-6273', 1],
    ['?topics=nonexistentword', 0],
  ])('counts %s', async (query, expected) => {
    const response = await get(`/retrieval/article_count${query}`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ article_count: expected });
  });

  it.each([
    ['?journals=1234-567', 'journals'],
    ['?date_from=2023-02-30', 'date_from'],
    ['?date_to=20230101', 'date_to'],
    ['?topics=the', 'topics'],
    ['?topic=cells', 'topic'],
  ])('rejects %s with 422 naming the parameter', async (query, parameter) => {
    const response = await get(`/retrieval/article_count${query}`);
    expect(response.statusCode).toBe(422);
    expect(response.json().detail).toMatchObject({ code: 8, parameter });
  });
});

describe('GET /retrieval/article_listing', () => {
  it('lists newest first without text filters, undated last, with the 12 article fields', async () => {
    const body = (await get('/retrieval/article_listing')).json();
    expect(body).toMatchObject({ total: 4, page: 1, size: 50, pages: 1 });
    expect(body.items.map((i: { article_id: string }) => i.article_id)).toEqual(['grid-3', 'dopa-2', 'hippo-1', 'undated-4']);
    expect(Object.keys(body.items[2]).sort()).toEqual(
      ['abstract', 'article_authors', 'article_doi', 'article_id', 'article_title', 'article_type', 'cited_by', 'date', 'impact_factor', 'journal_issn', 'journal_name', 'pubmed_id'].sort(),
    );
    expect(body.items[2]).toMatchObject({ abstract: 'We recorded place cells in CA1.', cited_by: 120, impact_factor: 3.5, journal_name: 'Hippocampus' });
  });

  it('ranks by best paragraph score with text filters, by date when asked', async () => {
    const byScore = (await get('/retrieval/article_listing?topics=grid%20cells')).json();
    expect(byScore.items.map((i: { article_id: string }) => i.article_id)).toEqual(['grid-3']);
    const cells = (await get('/retrieval/article_listing?topics=cells&sort_by_date=true')).json();
    expect(cells.items.map((i: { article_id: string }) => i.article_id)).toEqual(['grid-3', 'hippo-1', 'undated-4']);
  });

  it('paginates number_results articles', async () => {
    const page2 = (await get('/retrieval/article_listing?number_results=3&size=2&page=2')).json();
    expect(page2).toMatchObject({ total: 3, page: 2, size: 2, pages: 2 });
    expect(page2.items.map((i: { article_id: string }) => i.article_id)).toEqual(['hippo-1']);
    const past = (await get('/retrieval/article_listing?number_results=3&size=2&page=5')).json();
    expect(past).toMatchObject({ items: [], total: 3, pages: 2 });
  });

  it.each(['number_results=0', 'number_results=10001', 'size=101', 'page=0', 'sort_by_date=maybe'])('rejects %s', async (query) => {
    const response = await get(`/retrieval/article_listing?${query}`);
    expect(response.statusCode).toBe(422);
    expect(response.json().detail.parameter).toBe(query.split('=')[0]);
  });
});

describe('GET /retrieval/', () => {
  it('returns ranked paragraphs with all 17 context fields', async () => {
    const response = await get('/retrieval/?query=place%20cells%20CA1&retriever_k=2');
    expect(response.statusCode).toBe(200);
    const hits = response.json();
    expect(hits).toHaveLength(2);
    expect(Object.keys(hits[0])).toHaveLength(17);
    expect(hits[0]).toMatchObject({
      article_id: 'hippo-1',
      context_id: 0,
      reranking_score: null,
      // The short abstract paragraph holds every query word: BM25's length normalisation puts it first.
      paragraph_id: 'hippo-1:0',
      section: 'Abstract',
      paragraph: 'We recorded place cells in CA1.',
      abstract: 'We recorded place cells in CA1.',
    });
    expect(hits[1]).toMatchObject({ paragraph_id: 'hippo-1:1', section: 'Results' });
    expect(hits[1].context_id).toBe(1);
  });

  it('applies filters', async () => {
    const hits = (await get('/retrieval/?query=cells&journals=0896-6273')).json();
    expect(new Set(hits.map((h: { article_id: string }) => h.article_id))).toEqual(new Set(['grid-3']));
  });

  it('answers 404 code 1 when nothing matches', async () => {
    const response = await get('/retrieval/?query=zebrafish');
    expect(response.statusCode).toBe(404);
    expect(response.json().detail.code).toBe(1);
    expect(response.json().detail.reason).toBeUndefined();
  });

  it('says why in the 404 when the query is only stopwords or punctuation', async () => {
    for (const query of ['the', 'of%20the%20and', '%3F!']) {
      const response = await get(`/retrieval/?query=${query}`);
      expect(response.statusCode).toBe(404);
      expect(response.json().detail).toMatchObject({ code: 1, reason: expect.stringContaining('only stopwords or punctuation') });
    }
  });

  it.each(['', '?query=', '?query=x&retriever_k=0', '?query=x&retriever_k=1001'])('rejects %s with 422', async (query) => {
    expect((await get(`/retrieval/${query}`)).statusCode).toBe(422);
  });

  it('works without the trailing slash', async () => {
    expect((await get('/retrieval?query=cells')).statusCode).toBe(200);
  });
});

describe('suggestions', () => {
  it('counts article types, most frequent first', async () => {
    expect((await get('/suggestions/article_types')).json()).toEqual([
      { article_type: 'research-article', docs_in_db: 2 },
      { article_type: 'editorial', docs_in_db: 1 },
      { article_type: 'review-article', docs_in_db: 1 },
    ]);
  });

  it('finds authors by partial, case- and accent-insensitive name', async () => {
    expect((await get('/suggestions/author?name=NUNEZ')).json()).toEqual([{ name: 'José Núñez', docs_in_db: 1 }]);
    expect((await get('/suggestions/author?name=odegaard')).json()).toEqual([{ name: 'Søren Ødegaard', docs_in_db: 1 }]);
    // Same rank (substring): more articles first.
    expect((await get('/suggestions/author?name=e')).json().map((a: { name: string }) => a.name)).toEqual(['Ada Lovelace', 'José Núñez', 'Søren Ødegaard']);
    expect((await get('/suggestions/author?name=a&limit=1')).json()).toHaveLength(1);
    expect((await get('/suggestions/author?name=.*')).json()).toEqual([]);
  });

  it('finds journals by keywords with their ISSN', async () => {
    expect((await get('/suggestions/journal?keywords=neur')).json()).toEqual([{ journal_name: 'Neuron', journal_issn: '0896-6273', docs_in_db: 2 }]);
    expect((await get('/suggestions/journal?keywords=hippo%20campus')).json()).toHaveLength(1);
  });

  it('requires the search text', async () => {
    expect((await get('/suggestions/author')).statusCode).toBe(422);
    expect((await get('/suggestions/journal?keywords=%20')).statusCode).toBe(422);
  });
});

describe('service routes', () => {
  it('serves health, settings and the OpenAPI document', async () => {
    expect((await get('/healthz')).body).toBe('"200"');
    const settings = (await get('/settings')).json();
    expect(settings).toMatchObject({ port: 8080, index_stats: { articles: 4, paragraphs: 7 }, generator: 'extractive' });
    const openapi = (await get('/openapi.json')).json();
    expect(Object.keys(openapi.paths)).toEqual(expect.arrayContaining(['/retrieval/', '/retrieval/article_count', '/suggestions/author']));
  });

  it('answers unknown routes with the error vocabulary and a request id', async () => {
    const response = await get('/nope');
    expect(response.statusCode).toBe(404);
    expect(response.json().detail.code).toBe(11);
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f]{32}$/);
  });
});
