/**
 * The headers every response carries (Referrer-Policy beside nosniff and the sandboxing CSP), and the web
 * page's own policy: its hosts, and Trusted Types with no policy allowed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureApp, type Fixture } from './app-fixture.js';

describe('security headers', () => {
  let fixture: Fixture;
  beforeAll(async () => {
    // The /v1 platform too (no auth file: open), so its responses are checked beside the literature API's.
    fixture = await fixtureApp(undefined, {}, { auth: null });
  });
  afterAll(() => fixture.close());

  it('the page and /docs: a policy that refuses every DOM XSS sink and every Trusted Types policy', async () => {
    for (const url of ['/ui/', '/docs']) {
      const response = await fixture.app.inject({ url });
      expect({ url, status: response.statusCode }).toEqual({ url, status: 200 });
      const directives = String(response.headers['content-security-policy']).split(/\s*;\s*/);
      expect(directives).toEqual(expect.arrayContaining(["default-src 'self'", "require-trusted-types-for 'script'", "trusted-types 'none'"]));
      expect(response.headers['referrer-policy']).toBe('no-referrer');
    }
  });

  it('every other response, the page\'s scripts, the APIs, errors and an answer\'s event stream, sends no Referer either', async () => {
    const responses = await Promise.all([
      fixture.app.inject({ url: '/ui/js/main.js' }),
      fixture.app.inject({ url: '/retrieval/article_count' }),
      fixture.app.inject({ url: '/retrieval/?query=' }),
      fixture.app.inject({ url: '/no/such/route' }),
      fixture.app.inject({ url: '/v1/projects' }),
      fixture.app.inject({ url: '/v1/resources/org/none/_/r1' }),
      // Refused by the router before any hook runs: a path that cannot be decoded, on both APIs.
      fixture.app.inject({ url: '/v1/orgs/%zz' }),
      fixture.app.inject({ url: '/retrieval/%zz' }),
      fixture.app.inject({ method: 'POST', url: '/qa/streamed_generative', payload: { query: 'Which cells fire at specific locations in CA1?' } }),
    ]);
    expect(responses.map((r) => r.statusCode)).toEqual([200, 200, 422, 404, 200, 404, 400, 400, 200]);
    expect(responses.at(-1)!.headers['content-type']).toContain('text/event-stream');
    for (const response of responses) {
      expect(response.headers['referrer-policy']).toBe('no-referrer');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['cache-control']).toBeDefined();
    }
  });
});
