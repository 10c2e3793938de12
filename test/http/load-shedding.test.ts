/** Beyond --max-in-flight requests at once, the server refuses at once with 503 and Retry-After, and recovers. */
import { afterEach, describe, expect, it } from 'vitest';
import { fixtureApp, type Fixture } from './app-fixture.js';
import { heldGenerator } from './held-generator.js';

let fixture: Fixture | null = null;
afterEach(async () => {
  await fixture?.close();
  fixture = null;
});

describe('load shedding', () => {
  it('answers 503 in both vocabularies while the limit is reached, keeps / open, and serves again afterwards', async () => {
    const held = heldGenerator();
    fixture = await fixtureApp(undefined, { generator: () => held.generator }, { auth: null, flags: ['--max-in-flight', '1'] });
    const slow = fixture.app.inject({ method: 'POST', url: '/qa/generative', payload: { query: 'place cells CA1', use_reranker: false } });
    await held.started;

    const refused = await fixture.app.inject({ method: 'GET', url: '/retrieval/article_count' });
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.json().detail.code).toBe(13);
    const refusedV1 = await fixture.app.inject({ method: 'GET', url: '/v1/orgs/literature' });
    expect(refusedV1.statusCode).toBe(503);
    expect(refusedV1.json()['@type']).toBe('ServiceUnavailable');
    expect((await fixture.app.inject({ method: 'GET', url: '/' })).statusCode).toBe(200);

    held.release();
    expect((await slow).statusCode).toBe(200);
    expect((await fixture.app.inject({ method: 'GET', url: '/retrieval/article_count' })).statusCode).toBe(200);
  });
});
