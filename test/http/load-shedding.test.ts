/** Beyond --max-in-flight requests at once, the server refuses at once with 503 and Retry-After, and recovers. */
import { afterEach, describe, expect, it } from 'vitest';
import { fixtureApp, type Fixture } from './app-fixture.js';
import { ExtractiveGenerator } from '../../src/llm/extractive.js';
import type { Generator } from '../../src/llm/types.js';

let fixture: Fixture | null = null;
afterEach(async () => {
  await fixture?.close();
  fixture = null;
});

/** A generator that holds every answer until `release()` is called. */
function heldGenerator(): { generator: Generator; release: () => void; started: Promise<void> } {
  const extractive = new ExtractiveGenerator();
  let release!: () => void;
  let markStarted!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const generator: Generator = {
    kind: 'extractive',
    description: 'held',
    async generate(question, contexts, options) {
      markStarted();
      await released;
      return extractive.generate(question, contexts, options);
    },
    close: async () => {},
  };
  return { generator, release, started };
}

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
