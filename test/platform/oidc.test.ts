/** OIDC JWTs from the auth file's "oidc" section: verified offline against a key-set file, named in ACLs like other users. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureApp, type Fixture } from '../http/app-fixture.js';
import { AuthFileError, loadAuthFile } from '../../src/platform/auth-file.js';
import { CLOCK_SKEW_SECONDS } from '../../src/platform/oidc.js';
import { openPlatform } from '../../src/platform/index.js';
import { MemoryLiterature, identityProviderKeys } from './helpers.js';
import { defaultOf } from '../../src/config.js';

const ISSUER = 'https://sso.example/realms/lab';
let dir: string;
let signing: CryptoKey;
let stranger: CryptoKey;
let fixture: Fixture;

async function token(claims: Record<string, unknown>, options: { key?: CryptoKey; issuer?: string; audience?: string; expires?: string | number | null } = {}) {
  const jwt = new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', kid: 'lab-1' })
    .setIssuer(options.issuer ?? ISSUER)
    .setAudience(options.audience ?? 'litserve')
    .setIssuedAt();
  if (options.expires !== null) jwt.setExpirationTime(options.expires ?? '5m');
  return jwt.sign(options.key ?? signing);
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'litserve-oidc-'));
  const provider = await identityProviderKeys();
  signing = provider.signing;
  stranger = (await identityProviderKeys()).signing;
  await writeFile(path.join(dir, 'sso-keys.json'), JSON.stringify({ keys: [provider.publicJwk] }));
  const auth = {
    oidc: { realm: 'sso', issuer: ISSUER, jwks: path.join(dir, 'sso-keys.json'), audience: 'litserve', subjectClaim: 'preferred_username' },
    acls: { '/literature/articles': { 'sso/group/readers': ['resources/read'] }, '/': { 'sso/admin': ['*'] } },
  };
  fixture = await fixtureApp(undefined, {}, { auth });
});

afterAll(async () => {
  await fixture.close();
  await rm(dir, { recursive: true, force: true });
});

const count = (bearer: string) => fixture.app.inject({ method: 'GET', url: '/retrieval/article_count', headers: { authorization: `Bearer ${bearer}` } });

describe('OIDC tokens', () => {
  it('a verified token is the user {realm}/{subject}; its groups (Keycloak paths or names) grant through ACLs', async () => {
    expect((await count(await token({ preferred_username: 'ada', groups: ['/readers'] }))).statusCode).toBe(200);
    expect((await count(await token({ preferred_username: 'bob', groups: ['writers'] }))).statusCode).toBe(403);
    const admin = await token({ preferred_username: 'admin' });
    const org = await fixture.app.inject({ method: 'PUT', url: '/v1/orgs/sso-made', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, payload: '{}' });
    expect(org.statusCode).toBe(201);
    expect(org.json()._createdBy).toContain('/realms/sso/users/admin');
  });

  it.each([
    ['expired', () => token({ preferred_username: 'ada', groups: ['readers'] }, { expires: '-1m' }), 'expired'],
    ['from another issuer', () => token({ preferred_username: 'ada', groups: ['readers'] }, { issuer: 'https://evil.example' }), '"iss"'],
    ['for another audience', () => token({ preferred_username: 'ada', groups: ['readers'] }, { audience: 'other-app' }), '"aud"'],
    ['signed by an unknown key', () => token({ preferred_username: 'ada', groups: ['readers'] }, { key: stranger }), 'signature'],
    ['without the subject claim', () => token({ sub: 'x', groups: ['readers'] }), 'preferred_username'],
  ])('a token %s is 401 with the reason', async (_name, make, reason) => {
    const response = await count(await make());
    expect(response.statusCode).toBe(401);
    expect(response.json().detail.code).toBe(9);
    expect(response.json().detail.detail).toContain(reason);
  });

  it('a tampered payload is refused', async () => {
    const [header, , signature] = (await token({ preferred_username: 'ada', groups: ['readers'] })).split('.');
    const forged = Buffer.from(JSON.stringify({ preferred_username: 'admin', iss: ISSUER, aud: 'litserve', exp: 9_999_999_999 })).toString('base64url');
    expect((await count(`${header}.${forged}.${signature}`)).statusCode).toBe(401);
  });
});

describe('the oidc section of the auth file', () => {
  it('reports every problem at once', async () => {
    const file = path.join(dir, 'bad-auth.json');
    await writeFile(file, JSON.stringify({ oidc: { realm: 'no spaces allowed', issuer: '', jwks: 'missing.json', extra: 1 } }));
    expect(() => loadAuthFile(file)).toThrow(AuthFileError);
    try {
      loadAuthFile(file);
    } catch (error) {
      const message = (error as Error).message;
      for (const expected of ['unknown field "extra"', '"realm"', '"issuer"', 'missing.json']) expect(message).toContain(expected);
    }
  });

  it('without an audience, is accepted with a warning at every start naming the risk and the field', async () => {
    const file = path.join(dir, 'no-audience-auth.json');
    await writeFile(file, JSON.stringify({ oidc: { realm: 'sso', issuer: ISSUER, jwks: 'sso-keys.json' } }));
    const warnings: string[] = [];
    const logger = { info: () => undefined, warn: (message: string) => void warnings.push(message), error: () => undefined };
    const dataDir = await mkdtemp(path.join(tmpdir(), 'oidc-no-audience-'));
    const platform = await openPlatform({ dataDir, authFile: file, literatureProject: 'literature/articles', literature: new MemoryLiterature([]), maxFileBytes: defaultOf('maxUploadBytes'), logger });
    try {
      expect(warnings.filter((message) => message.includes('"audience"'))).toEqual([
        `OIDC: the auth file's "oidc" section sets no "audience", so tokens ${ISSUER} issued to any of its clients are accepted; set it to this server's client id`,
      ]);
    } finally {
      await platform.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses an empty audience, which no token could ever match', async () => {
    const file = path.join(dir, 'empty-audience-auth.json');
    await writeFile(file, JSON.stringify({ oidc: { realm: 'sso', issuer: ISSUER, jwks: 'sso-keys.json', audience: ' ' } }));
    expect(() => loadAuthFile(file)).toThrow('oidc: "audience" must be a non-empty string (or left out)');
  });

  it('resolves a relative key-set path against the auth file', async () => {
    const file = path.join(dir, 'relative-auth.json');
    await writeFile(file, JSON.stringify({ oidc: { realm: 'sso', issuer: ISSUER, jwks: 'sso-keys.json' } }));
    expect(loadAuthFile(file).oidc?.keys.keys).toHaveLength(1);
  });
});

describe('OIDC token lifetime', () => {
  it('refuses a token without an expiry (401, the reason says why)', async () => {
    const response = await count(await token({ preferred_username: 'ada', groups: ['readers'] }, { expires: null }));
    expect(response.statusCode).toBe(401);
    expect(response.json().detail.detail).toContain('no expiry ("exp" claim)');
    const v1 = await fixture.app.inject({ method: 'GET', url: '/v1/orgs/literature', headers: { authorization: `Bearer ${await token({ preferred_username: 'admin' }, { expires: null })}` } });
    expect(v1.statusCode).toBe(401);
    expect(v1.json().reason).toContain('no expiry');
  });

  it(`allows ${CLOCK_SKEW_SECONDS} s of clock skew, and no more`, async () => {
    const now = Math.floor(Date.now() / 1000);
    expect((await count(await token({ preferred_username: 'ada', groups: ['readers'] }, { expires: now - 10 }))).statusCode).toBe(200);
    const late = await count(await token({ preferred_username: 'ada', groups: ['readers'] }, { expires: now - CLOCK_SKEW_SECONDS - 10 }));
    expect(late.statusCode).toBe(401);
    expect(late.json().detail.detail).toContain('expired');
  });
});
