/** Every route outside /v1 (the page, /docs, /openapi.json) answers errors in the literature format, /v1 in its own. */
import { afterEach, describe, expect, it } from 'vitest';
import { fixtureApp, type Fixture } from './app-fixture.js';
import { heldGenerator } from './held-generator.js';

let fixture: Fixture | null = null;
afterEach(async () => {
  await fixture?.close();
  fixture = null;
});

describe('one error format per API', () => {
  it('load shedding answers the page, /docs and /openapi.json in the literature format, /v1 in its own', async () => {
    const held = heldGenerator();
    fixture = await fixtureApp(undefined, { generator: () => held.generator }, { auth: null, flags: ['--max-in-flight', '1'] });
    const slow = fixture.app.inject({ method: 'POST', url: '/qa/generative', payload: { query: 'place cells CA1', use_reranker: false } });
    await held.started;
    for (const url of ['/ui/', '/docs', '/openapi.json', '/retrieval/article_count']) {
      const refused = await fixture.app.inject({ method: 'GET', url });
      expect([url, refused.statusCode, refused.json()]).toEqual([url, 503, { detail: { code: 13, detail: expect.stringContaining('server busy') } }]);
    }
    const v1 = await fixture.app.inject({ method: 'GET', url: '/v1/orgs/literature' });
    expect([v1.statusCode, v1.json()['@type']]).toEqual([503, 'ServiceUnavailable']);
    // A request no route takes costs nothing to answer, and is answered before its body is read, load or not.
    const unrouted = await fixture.app.inject({ method: 'GET', url: '/no-such-route' });
    expect([unrouted.statusCode, unrouted.json().detail.code]).toEqual([404, 11]);
    const unroutedV1 = await fixture.app.inject({ method: 'GET', url: '/v1/orgs' });
    expect([unroutedV1.statusCode, unroutedV1.json()['@type']]).toEqual([404, 'NotFound']);
    held.release();
    expect((await slow).statusCode).toBe(200);
  });
});
