/**
 * With CORS on, the refusals made before any route runs (503 of load shedding, 400 of a URL that
 * does not decode) carry the CORS headers, so a page of an allowed origin can read them, as it reads
 * a 422 or a 429. Preflights they refuse stay refused.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fixtureApp, type Fixture } from './app-fixture.js';
import { heldGenerator } from './held-generator.js';

const ORIGIN = 'https://a.example';
let fixture: Fixture | null = null;
afterEach(async () => {
  await fixture?.close();
  fixture = null;
});

function expectShared(response: { headers: Record<string, unknown> }) {
  expect(response.headers['access-control-allow-origin']).toBe(ORIGIN);
  expect(response.headers['vary']).toBe('Origin');
  expect(String(response.headers['access-control-expose-headers'])).toContain('retry-after');
}

describe('CORS headers on early refusals', () => {
  it('a query string or a path that does not decode: 400 readable by an allowed origin, in both APIs', async () => {
    fixture = await fixtureApp(undefined, {}, { auth: null, flags: ['--cors-origins', ORIGIN] });
    for (const url of ['/retrieval/article_count?topics=caf%E9', '/retrieval/%zz', '/v1/orgs?name=caf%E9', '/v1/orgs/%zz']) {
      const response = await fixture.app.inject({ method: 'GET', url, headers: { origin: ORIGIN } });
      expect([url, response.statusCode]).toEqual([url, 400]);
      expectShared(response);
    }
    const preflight = await fixture.app.inject({
      method: 'OPTIONS',
      url: '/retrieval/article_count?topics=caf%E9',
      headers: { origin: ORIGIN, 'access-control-request-method': 'GET' },
    });
    expect(preflight.statusCode).toBe(400);
  });

  it('load shedding: 503 with Retry-After readable by an allowed origin; preflights, which cost nothing, answered', async () => {
    const held = heldGenerator();
    fixture = await fixtureApp(undefined, { generator: () => held.generator }, { auth: null, flags: ['--cors-origins', ORIGIN, '--max-in-flight', '1'] });
    const slow = fixture.app.inject({ method: 'POST', url: '/qa/generative', payload: { query: 'place cells CA1', use_reranker: false } });
    await held.started;
    for (const url of ['/retrieval/article_count', '/v1/orgs/literature']) {
      const refused = await fixture.app.inject({ method: 'GET', url, headers: { origin: ORIGIN } });
      expect([url, refused.statusCode, refused.headers['retry-after']]).toEqual([url, 503, '1']);
      expectShared(refused);
    }
    const preflight = await fixture.app.inject({ method: 'OPTIONS', url: '/retrieval/article_count', headers: { origin: ORIGIN, 'access-control-request-method': 'GET' } });
    expect(preflight.statusCode).toBe(204);
    held.release();
    expect((await slow).statusCode).toBe(200);
    const served = await fixture.app.inject({ method: 'OPTIONS', url: '/retrieval/article_count', headers: { origin: ORIGIN, 'access-control-request-method': 'GET' } });
    expect(served.statusCode).toBe(204);
    expect(served.headers['access-control-allow-methods']).toContain('GET');
  });
});
