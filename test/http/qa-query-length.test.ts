/** --max-query-length counts characters (code points), as the README says and /retrieval/'s schema does: an emoji is one. */
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

function escapeAll(text: string): string {
  let escaped = '';
  for (let i = 0; i < text.length; i++) escaped += `\\u${text.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return escaped;
}
