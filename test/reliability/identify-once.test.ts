/**
 * A request is identified once, though the rate limit's key and the permission check both need its
 * caller: one JWT verification per request for an OIDC caller, on the literature routes and on /v1.
 */
import { SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { fixtureApp, type Fixture } from '../http/app-fixture.js';
import { identityProviderKeys } from '../platform/helpers.js';

/** Every JWT verification the server makes goes through jose's jwtVerify: counted here. */
const verifications = vi.hoisted(() => ({ count: 0 }));
vi.mock('jose', async (importOriginal) => {
  const jose = await importOriginal<typeof import('jose')>();
  return {
    ...jose,
    jwtVerify: (...args: Parameters<typeof jose.jwtVerify>) => {
      verifications.count++;
      return jose.jwtVerify(...args);
    },
  };
});

const ISSUER = 'https://sso.example/realms/lab';
const FILE_TOKEN = 'reader-token-0123';
let signing: CryptoKey;
let fixture: Fixture;

beforeAll(async () => {
  const provider = await identityProviderKeys();
  signing = provider.signing;
  const jwk = provider.publicJwk;
  fixture = await fixtureApp(undefined, {}, {
    auth: {
      tokens: { [FILE_TOKEN]: { realm: 'local', subject: 'reader' } },
      oidc: { realm: 'sso', issuer: ISSUER, jwks: { keys: [jwk] }, audience: 'litserve' },
      acls: { '/': { 'sso/authenticated': ['resources/read'], 'local/reader': ['resources/read'] } },
    },
    // The rate limit is what asks for the caller a second time.
    flags: ['--rate-limit', '100'],
  });
});
afterAll(() => fixture.close());

const jwt = () => new SignJWT({ sub: 'ada' }).setProtectedHeader({ alg: 'ES256', kid: 'lab-1' }).setIssuer(ISSUER).setAudience('litserve').setIssuedAt().setExpirationTime('5m').sign(signing);

describe('identification once per request', () => {
  test.each([
    ['a literature route', '/retrieval/article_count'],
    ['a /v1 route', '/v1/orgs/literature'],
  ])('an OIDC caller of %s costs one JWT verification', async (_kind, url) => {
    const token = await jwt();
    verifications.count = 0;
    const response = await fixture.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
    expect(response.statusCode).toBe(200);
    expect(verifications.count).toBe(1);
  });

  test.each([
    ['a literature route', '/retrieval/article_count'],
    ['a /v1 route', '/v1/orgs/literature'],
  ])('a caller with a file token of %s is identified once', async (_kind, url) => {
    const identify = vi.spyOn(fixture.platform!, 'identify');
    try {
      const response = await fixture.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${FILE_TOKEN}` } });
      expect(response.statusCode).toBe(200);
      expect(identify).toHaveBeenCalledTimes(1);
    } finally {
      identify.mockRestore();
    }
  });

  test('a refused JWT is verified once and answered 401', async () => {
    const expired = await new SignJWT({ sub: 'ada' }).setProtectedHeader({ alg: 'ES256', kid: 'lab-1' }).setIssuer(ISSUER).setAudience('litserve').setExpirationTime('-5m').sign(signing);
    verifications.count = 0;
    const response = await fixture.app.inject({ method: 'GET', url: '/v1/orgs/literature', headers: { authorization: `Bearer ${expired}` } });
    expect(response.statusCode).toBe(401);
    expect(verifications.count).toBe(1);
  });
});
