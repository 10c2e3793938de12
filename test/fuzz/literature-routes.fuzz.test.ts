/**
 * Random and malformed query strings and bodies against every literature
 * route: only documented statuses come back (never a 500), every error body
 * is in the API's vocabulary, and the index is unchanged afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { fixtureApp } from '../http/app-fixture.js';
import type { Searcher } from '../../src/search/searcher.js';
import { compileFilterSpec } from '../../src/search/query/filter-spec.js';
import { positiveFromEnv } from '../../bench/lib/settings.js';

const RUNS = positiveFromEnv(process.env, 'FUZZ_RUNS', 150, true);
let app: FastifyInstance;
let searcher: Searcher;
let close: () => Promise<void>;
beforeAll(async () => ({ app, searcher, close } = await fixtureApp()));
afterAll(() => close());

const PARAMETERS = ['query', 'retriever_k', 'topics', 'regions', 'article_types', 'authors', 'journals', 'date_from', 'date_to',
  'number_results', 'size', 'page', 'sort_by_date', 'name', 'keywords', 'limit', 'unknown'];
const nasty = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('', ' ', '0', '-1', '1e400', 'NaN', 'true', '[]', '{}', '%', '%ZZ', '%00', '..%2F..%2Fetc', '2023-02-30', '9999-12-31',
    '0896-6273', '(a OR b)', 'a AND', '*', '.*', '\\', '"', "'", '<script>', 'x'.repeat(20_000)),
  fc.integer().map(String),
  fc.double().map(String),
);
const queryString = fc
  .array(fc.tuple(fc.constantFrom(...PARAMETERS), nasty), { maxLength: 8 })
  .map((pairs) => pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&'));
const rawQueryString = fc.string({ unit: 'binary', maxLength: 200 });

const GET_ROUTES = ['/retrieval/', '/retrieval/article_count', '/retrieval/article_listing', '/suggestions/article_types', '/suggestions/author', '/suggestions/journal', '/healthz', '/settings'];

function expectDocumented(status: number, body: string) {
  expect([200, 400, 404, 413, 422]).toContain(status);
  if (status >= 400) {
    const parsed = JSON.parse(body);
    expect(typeof parsed.detail.code).toBe('number');
    expect(typeof parsed.detail.detail).toBe('string');
  }
}

describe('literature routes under random input', () => {
  it('GET routes answer documented statuses for random query strings', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...GET_ROUTES), fc.oneof(queryString, rawQueryString), async (route, query) => {
        const response = await app.inject({ method: 'GET', url: `${route}?${query}` });
        expectDocumented(response.statusCode, response.body);
      }),
      { numRuns: RUNS },
    );
  });

  it('POST /qa/generative answers documented statuses for random bodies and content types', async () => {
    const body = fc.oneof(
      fc.json(),
      fc.string({ unit: 'binary' }),
      fc.record({ query: nasty, retriever_k: fc.anything(), use_reranker: fc.anything(), reranker_k: fc.anything() }, { requiredKeys: [] }).map((o) => JSON.stringify(o)),
      fc.constant('{"query":' + '['.repeat(5000)),
    );
    const contentType = fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data', 'application/json; charset=latin1', '');
    await fc.assert(
      fc.asyncProperty(body, contentType, queryString, async (payload, type, query) => {
        const response = await app.inject({
          method: 'POST',
          url: `/qa/generative?${query}`,
          headers: type ? { 'content-type': type } : {},
          payload,
        });
        expect([200, 400, 404, 413, 415, 422]).toContain(response.statusCode);
        if (response.statusCode >= 400) expect(typeof JSON.parse(response.body).detail.code).toBe('number');
      }),
      { numRuns: RUNS },
    );
  });

  it('left the index as it was', () => {
    expect(searcher.countArticles(compileFilterSpec({}))).toBe(4);
  });
});
