/**
 * A path that exists, asked with a method no route takes, is 405 with `Allow` (RFC 9110 §15.5.6) in the
 * vocabulary of the API addressed; a path no route has stays 404. Nothing changes on a 405.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureApp, type Fixture } from './app-fixture.js';

const TOKEN = 'method-admin';
const AUTH = { tokens: { [TOKEN]: { realm: 'local', subject: 'admin' } }, acls: { '/': { 'local/admin': ['*'] } } };
const auth = { authorization: `Bearer ${TOKEN}` };
let fixture: Fixture;

beforeAll(async () => {
  fixture = await fixtureApp(undefined, {}, { auth: AUTH });
});
afterAll(() => fixture.close());

describe('literature API', () => {
  it('answers 405 with Allow for a method the path does not take', async () => {
    const response = await fixture.app.inject({ method: 'DELETE', url: '/retrieval/?query=cells' });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe('GET, HEAD');
    expect(response.json()).toEqual({ detail: { code: 14, detail: '/retrieval/ takes GET, HEAD, not DELETE' } });
  });

  it('keeps 404 for a path no route has', async () => {
    const response = await fixture.app.inject({ method: 'DELETE', url: '/retrieval/extra' });
    expect(response.statusCode).toBe(404);
    expect(response.headers.allow).toBeUndefined();
    expect(response.json().detail.code).toBe(11);
  });

  it('matches the page assets under their wildcard route', async () => {
    const response = await fixture.app.inject({ method: 'POST', url: '/ui/app.css' });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe('GET, HEAD');
  });
});

describe('/v1', () => {
  it('answers MethodNotSupported with Allow, and changes nothing', async () => {
    const created = await fixture.app.inject({ method: 'PUT', url: '/v1/orgs/methods', headers: auth, payload: { description: 'd' } });
    expect(created.statusCode).toBe(201);
    const response = await fixture.app.inject({ method: 'PATCH', url: '/v1/orgs/methods', headers: auth, payload: { description: 'changed' } });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe('DELETE, GET, HEAD, PUT');
    expect(response.json()).toMatchObject({ '@type': 'MethodNotSupported', reason: 'HTTP method not allowed, supported methods: DELETE, GET, HEAD, PUT.' });
    const org = await fixture.app.inject({ method: 'GET', url: '/v1/orgs/methods', headers: auth });
    expect(org.json()).toMatchObject({ description: 'd', _rev: 1 });
  });

  it('reads percent-encoded segments as the router does', async () => {
    const routed = await fixture.app.inject({ method: 'GET', url: '/v1/%6Frgs/methods', headers: auth });
    expect(routed.statusCode).toBe(200);
    const response = await fixture.app.inject({ method: 'PATCH', url: '/v1/%6Frgs/methods', headers: auth });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe('DELETE, GET, HEAD, PUT');
    // An encoded slash stays inside its segment: no route has /v1/{one segment}.
    const slash = await fixture.app.inject({ method: 'PATCH', url: '/v1/orgs%2Fmethods', headers: auth });
    expect(slash.statusCode).toBe(404);
  });

  it('takes an empty segment for a parameter, as the router does', async () => {
    // GET /v1/orgs/ is routed to /v1/orgs/:org (and refused by its schema): other methods there are 405, not 404.
    expect((await fixture.app.inject({ method: 'GET', url: '/v1/orgs/', headers: auth })).statusCode).toBe(400);
    const response = await fixture.app.inject({ method: 'PATCH', url: '/v1/orgs/', headers: auth });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe('DELETE, GET, HEAD, PUT');
  });

  it('matches parameters one segment each: a deeper path stays NotFound', async () => {
    const response = await fixture.app.inject({ method: 'PATCH', url: '/v1/orgs/methods/extra/deeper/still', headers: auth });
    expect(response.statusCode).toBe(404);
    expect(response.json()['@type']).toBe('NotFound');
  });
});
