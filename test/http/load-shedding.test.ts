/**
 * Beyond --max-in-flight requests at once, or one address's --max-in-flight-per-client share of them, the server
 * refuses at once with 503 and Retry-After, and recovers.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { inFlightPerClient } from '../../src/config.js';
import { fixtureApp, settingsWith, type Fixture } from './app-fixture.js';
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

  const QUESTION = { query: 'place cells CA1', use_reranker: false };

  it('refuses one address past its share (by default half of --max-in-flight) in both vocabularies, while other addresses are served', async () => {
    const held = heldGenerator();
    fixture = await fixtureApp(undefined, { generator: () => held.generator }, { auth: null, flags: ['--max-in-flight', '2'] });
    const { app } = fixture;
    const slow = app.inject({ method: 'POST', url: '/qa/generative', payload: QUESTION, remoteAddress: '192.0.2.1' });
    await held.started;

    const refused = await app.inject({ method: 'GET', url: '/retrieval/article_count', remoteAddress: '192.0.2.1' });
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.json().detail).toMatchObject({ code: 13, detail: expect.stringContaining('--max-in-flight-per-client') });
    const refusedV1 = await app.inject({ method: 'GET', url: '/v1/orgs/literature', remoteAddress: '192.0.2.1' });
    expect(refusedV1.statusCode).toBe(503);
    expect(refusedV1.headers['retry-after']).toBe('1');
    expect(refusedV1.json()['@type']).toBe('ServiceUnavailable');
    expect((await app.inject({ method: 'GET', url: '/', remoteAddress: '192.0.2.1' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/retrieval/article_count', remoteAddress: '192.0.2.2' })).statusCode).toBe(200);

    held.release();
    expect((await slow).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/retrieval/article_count', remoteAddress: '192.0.2.1' })).statusCode).toBe(200);
  });

  for (const share of ['2', '0']) {
    it(`takes --max-in-flight-per-client ${share} from its settings (0 = no share)`, async () => {
      const held = heldGenerator();
      fixture = await fixtureApp(undefined, { generator: () => held.generator }, { auth: null, flags: ['--max-in-flight', '2', '--max-in-flight-per-client', share] });
      const slow = fixture.app.inject({ method: 'POST', url: '/qa/generative', payload: QUESTION, remoteAddress: '192.0.2.1' });
      await held.started;
      expect((await fixture.app.inject({ method: 'GET', url: '/retrieval/article_count', remoteAddress: '192.0.2.1' })).statusCode).toBe(200);
      held.release();
      expect((await slow).statusCode).toBe(200);
    });
  }

  it('shows in /settings the share in force: half of --max-in-flight when none is set, else the one set', async () => {
    expect(await settingsWith(['--max-in-flight', '10'])).toMatchObject({ maxInFlight: 10, maxInFlightPerClient: 5 });
    expect(await settingsWith(['--max-in-flight', '0'])).toMatchObject({ maxInFlight: 0, maxInFlightPerClient: 0 });
    expect(await settingsWith(['--max-in-flight', '10', '--max-in-flight-per-client', '3'])).toMatchObject({ maxInFlightPerClient: 3 });
  });

  it('shares half of --max-in-flight by default, at least one slot, none when it is off', () => {
    expect([1, 2, 3, 4, 256, 0].map((maxInFlight) => inFlightPerClient({ maxInFlight, maxInFlightPerClient: null }))).toEqual([1, 1, 1, 2, 128, 0]);
    expect(inFlightPerClient({ maxInFlight: 256, maxInFlightPerClient: 7 })).toBe(7);
  });
});
