/**
 * A flood of made-up bearer tokens is rate limited: unknown and invalid tokens
 * count against the client address, while a real token keeps its own budget.
 * That budget is its user's: a user with several tokens has one.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { fixtureApp, type Fixture } from '../http/app-fixture.js';

const READER = 'reader-token-0123';
const READER_AGAIN = 'reader-second-token-4567';
const AUTH = {
  tokens: { [READER]: { realm: 'local', subject: 'reader' }, [READER_AGAIN]: { realm: 'local', subject: 'reader' } },
  acls: { '/': { 'local/reader': ['resources/read'] } },
};

let fixture: Fixture | null = null;
afterEach(async () => {
  await fixture?.close();
  fixture = null;
});

const randomToken = () => `Bearer ${randomBytes(16).toString('hex')}`;

describe('rate limit of bad tokens', () => {
  it('with --rate-limit 20, 40 requests with random tokens get 20 × 401 then 429, on both APIs', async () => {
    fixture = await fixtureApp(undefined, {}, { auth: AUTH, flags: ['--rate-limit', '20'] });
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      const url = i % 2 === 0 ? '/retrieval/article_count' : '/v1/orgs/literature';
      statuses.push((await fixture.app.inject({ method: 'GET', url, headers: { authorization: randomToken() } })).statusCode);
    }
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(401));
    expect(statuses.slice(20)).toEqual(Array(20).fill(429));
    // Malformed headers and invalid JWT-shaped tokens count against the address too.
    expect((await fixture.app.inject({ method: 'GET', url: '/v1/orgs/literature', headers: { authorization: 'Basic abc' } })).statusCode).toBe(429);
    expect((await fixture.app.inject({ method: 'GET', url: '/v1/orgs/literature', headers: { authorization: 'Bearer a.b.c' } })).statusCode).toBe(429);
    // A caller with a real token is not held back by the flood from its address.
    expect((await fixture.app.inject({ method: 'GET', url: '/retrieval/article_count', headers: { authorization: `Bearer ${READER}` } })).statusCode).toBe(200);
  });

  it('counts one budget per user, whichever of its tokens it presents', async () => {
    fixture = await fixtureApp(undefined, {}, { auth: AUTH, flags: ['--rate-limit', '10'] });
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const token = i % 2 === 0 ? READER : READER_AGAIN;
      statuses.push((await fixture.app.inject({ method: 'GET', url: '/retrieval/article_count', headers: { authorization: `Bearer ${token}` } })).statusCode);
    }
    expect(statuses).toEqual([...Array(10).fill(200), 429, 429]);
  });
});
