/** The literature routes obey the platform's ACLs on the literature project, and every route is rate limited per caller. */
import { afterEach, describe, expect, it } from 'vitest';
import { fixtureApp, type Fixture } from './app-fixture.js';

const TOKENS = { reader: 'reader-token', stranger: 'stranger-token' };
const CLOSED_AUTH = {
  tokens: {
    [TOKENS.reader]: { realm: 'local', subject: 'reader' },
    [TOKENS.stranger]: { realm: 'local', subject: 'stranger' },
  },
  acls: { '/literature/articles': { 'local/reader': ['resources/read'] } },
};

let fixture: Fixture | null = null;
afterEach(async () => {
  await fixture?.close();
  fixture = null;
});

const count = (authorization?: string) =>
  fixture!.app.inject({ method: 'GET', url: '/retrieval/article_count', headers: authorization ? { authorization } : {} });

describe('literature routes behind the platform ACLs', () => {
  it('lets anonymous read when there is no auth file, as the start-up log says', async () => {
    fixture = await fixtureApp(undefined, {}, { auth: null });
    const response = await count();
    expect(response.statusCode).toBe(200);
    expect(response.json().article_count).toBe(4);
  });

  it('answers 401 code 9 to an unknown token, 403 code 10 to a user without resources/read, 200 to a reader', async () => {
    fixture = await fixtureApp(undefined, {}, { auth: CLOSED_AUTH });
    const anonymous = await count();
    expect(anonymous.statusCode).toBe(403);
    expect(anonymous.json().detail.code).toBe(10);

    const unknown = await count('Bearer nobody-has-this');
    expect(unknown.statusCode).toBe(401);
    expect(unknown.headers['www-authenticate']).toBe('Bearer');
    expect(unknown.json().detail.code).toBe(9);

    const stranger = await count(`Bearer ${TOKENS.stranger}`);
    expect(stranger.statusCode).toBe(403);

    const reader = await count(`Bearer ${TOKENS.reader}`);
    expect(reader.statusCode).toBe(200);
    expect(reader.json().article_count).toBe(4);

    const qa = await fixture.app.inject({ method: 'POST', url: '/qa/generative', payload: { query: 'place cells' } });
    expect(qa.statusCode).toBe(403);
  });

  it('keeps the health routes open whatever the ACLs say, and guards /settings', async () => {
    fixture = await fixtureApp(undefined, {}, { auth: CLOSED_AUTH });
    expect((await fixture.app.inject({ method: 'GET', url: '/' })).statusCode).toBe(200);
    expect((await fixture.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    expect((await fixture.app.inject({ method: 'GET', url: '/settings' })).statusCode).toBe(403);
  });
});

describe('rate limit per caller', () => {
  it('answers 429 in each API vocabulary once a caller used its budget, and counts tokens separately', async () => {
    fixture = await fixtureApp(undefined, {}, { auth: { tokens: { [TOKENS.reader]: { realm: 'local', subject: 'reader' } }, acls: { '/': { anonymous: ['resources/read'], 'local/reader': ['resources/read'] } } }, flags: ['--rate-limit', '3'] });
    for (let i = 0; i < 3; i++) expect((await count()).statusCode).toBe(200);
    const limited = await count();
    expect(limited.statusCode).toBe(429);
    expect(limited.json().detail.code).toBe(5);
    expect(limited.headers['retry-after']).toBeDefined();

    const platformLimited = await fixture.app.inject({ method: 'GET', url: '/v1/orgs/literature' });
    expect(platformLimited.statusCode).toBe(429);
    expect(platformLimited.json()['@type']).toBe('TooManyRequests');

    expect((await count(`Bearer ${TOKENS.reader}`)).statusCode).toBe(200);
    // Health checks are never limited.
    for (let i = 0; i < 5; i++) expect((await fixture.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    // Nor when a probe adds a query string (cache busters, monitoring tags).
    for (const url of ['/healthz?probe=1', '/?x=y']) expect((await fixture.app.inject({ method: 'GET', url })).statusCode).toBe(200);
  });
});

describe('rate limit before authentication', () => {
  it('limits a flood of unknown tokens and of forbidden callers too', async () => {
    fixture = await fixtureApp(undefined, {}, { auth: CLOSED_AUTH, flags: ['--rate-limit', '2'] });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await count('Bearer nobody-has-this')).statusCode);
    expect(statuses).toEqual([401, 401, 429, 429]);
    // Unknown tokens count against the client address: another made-up token opens no new budget.
    const v1 = await fixture.app.inject({ method: 'GET', url: '/v1/orgs/lab', headers: { authorization: 'Bearer other-unknown' } });
    expect(v1.statusCode).toBe(429);
  });
});
