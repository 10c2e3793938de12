/**
 * A page on another origin can use what /v1 answers beyond plain JSON: `Allow` on a 405, `ETag`,
 * `Accept-Ranges` and `Content-Range` on file downloads, and may send `Range`, `If-Range`,
 * `If-None-Match`, and the write preconditions `If-Match` and `If-Unmodified-Since` (none is
 * CORS-safelisted, so a preflight must allow them).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureApp, type Fixture } from './app-fixture.js';

const ORIGIN = 'https://ui.example';
const AUTH = { tokens: {}, acls: {} };
let fixture: Fixture;

beforeAll(async () => {
  fixture = await fixtureApp(undefined, {}, { auth: AUTH, flags: ['--cors-origins', ORIGIN] });
});
afterAll(() => fixture.close());

const listed = (header: string | number | string[] | undefined) => String(header).split(/,\s*/);

describe('CORS for the /v1 headers', () => {
  it('a preflight allows the range and conditional request headers', async () => {
    const response = await fixture.app.inject({
      method: 'OPTIONS',
      url: '/v1/files/org/proj/id',
      headers: { origin: ORIGIN, 'access-control-request-method': 'GET', 'access-control-request-headers': 'range, if-range, if-none-match' },
    });
    expect(response.statusCode).toBe(204);
    expect(listed(response.headers['access-control-allow-headers'])).toEqual(expect.arrayContaining(['range', 'if-range', 'if-none-match']));
  });

  it("a preflight allows a write's preconditions", async () => {
    const response = await fixture.app.inject({
      method: 'OPTIONS',
      url: '/v1/resources/org/proj/_/id?rev=1',
      headers: { origin: ORIGIN, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'if-match, if-unmodified-since' },
    });
    expect(response.statusCode).toBe(204);
    expect(listed(response.headers['access-control-allow-headers'])).toEqual(expect.arrayContaining(['if-match', 'if-unmodified-since']));
  });

  it('a 405 exposes Allow, and downloads their validators and ranges', async () => {
    const response = await fixture.app.inject({ method: 'PATCH', url: '/v1/orgs/any', headers: { origin: ORIGIN } });
    expect(response.statusCode).toBe(405);
    expect(response.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(listed(response.headers['access-control-expose-headers'])).toEqual(expect.arrayContaining(['allow', 'etag', 'accept-ranges', 'content-range']));
  });
});
