/**
 * --max-query-length counts characters (code points), as the README says: an emoji is one. Every route
 * that takes a `query` answers one over it alike: 413 code 4 naming the count and the limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureApp, type Fixture } from './app-fixture.js';

const LIMIT = 1000;
let fixture: Fixture;
beforeAll(async () => {
  fixture = await fixtureApp(undefined, {}, { flags: ['--max-query-length', String(LIMIT)] });
});
afterAll(() => fixture.close());

const ask = (payload: string) => fixture.app.inject({ method: 'POST', url: '/qa/generative', payload, headers: { 'content-type': 'application/json' } });
const BRAIN = '\u{1F9E0}';

describe('QA question length', () => {
  it('takes a question of as many emoji as the limit, however it is written, and names the count in characters beyond it', async () => {
    const atLimit = `place cells ${BRAIN.repeat(LIMIT - 12)}`;
    expect((await ask(JSON.stringify({ query: atLimit }))).statusCode).toBe(200);
    // Every character as \uXXXX escapes (a surrogate pair each for the emoji): the body's cap leaves room for it.
    const escaped = `{"query":"${escapeAll(atLimit)}"}`;
    expect((await ask(escaped)).statusCode).toBe(200);

    const over = await ask(JSON.stringify({ query: `place cells ${BRAIN.repeat(LIMIT - 11)}` }));
    expect(over.statusCode).toBe(413);
    expect(over.json().detail).toEqual({ code: 4, detail: `query is ${LIMIT + 1} characters; the limit is ${LIMIT} (--max-query-length)` });
  });
});

describe('/retrieval/ query length', () => {
  const search = (query: string) => fixture.app.inject({ method: 'GET', url: `/retrieval/?query=${encodeURIComponent(query)}` });

  it('answers a query over the limit as QA does: 413 code 4, in characters', async () => {
    expect((await search(`place cells ${BRAIN.repeat(LIMIT - 12)}`)).statusCode).toBe(200);
    const over = await search(`place cells ${BRAIN.repeat(LIMIT - 11)}`);
    expect(over.statusCode).toBe(413);
    expect(over.json().detail).toEqual({ code: 4, detail: `query is ${LIMIT + 1} characters; the limit is ${LIMIT} (--max-query-length)` });
  });

  it('and so does the route without its trailing slash', async () => {
    const over = await fixture.app.inject({ method: 'GET', url: `/retrieval?query=${'a'.repeat(LIMIT + 1)}` });
    expect([over.statusCode, over.json().detail.code]).toEqual([413, 4]);
  });
});

describe('the default limit', () => {
  let defaults: Fixture;
  beforeAll(async () => {
    defaults = await fixtureApp();
  });
  afterAll(() => defaults.close());

  it('is 10,000 characters on /retrieval/ and QA alike', async () => {
    const query = `place cells ${'a'.repeat(10_000 - 12)}`;
    expect((await defaults.app.inject({ method: 'GET', url: `/retrieval/?query=${encodeURIComponent(query)}` })).statusCode).not.toBe(413);
    const detail = { code: 4, detail: 'query is 10001 characters; the limit is 10000 (--max-query-length)' };
    const search = await defaults.app.inject({ method: 'GET', url: `/retrieval/?query=${encodeURIComponent(`${query}a`)}` });
    expect([search.statusCode, search.json().detail]).toEqual([413, detail]);
    const ask = await defaults.app.inject({ method: 'POST', url: '/qa/generative', payload: { query: `${query}a` } });
    expect([ask.statusCode, ask.json().detail]).toEqual([413, detail]);
  });
});

function escapeAll(text: string): string {
  let escaped = '';
  for (let i = 0; i < text.length; i++) escaped += `\\u${text.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return escaped;
}
