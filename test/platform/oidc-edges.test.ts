/**
 * OIDC tokens a hostile caller could shape: issued in the future, written in a second spelling of the
 * same signature, or naming a user through a realm the auth file's tokens already use.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parseAuthConfig } from '../../src/platform/auth-file.js';
import { Authenticator } from '../../src/platform/authentication.js';
import { CLOCK_SKEW_SECONDS, DEFAULT_MAX_TOKEN_LIFETIME, oidcVerifier, parseOidcConfig } from '../../src/platform/oidc.js';
import { type TestServer, identityProviderKeys, startServer } from './helpers.js';

const ISSUER = 'https://sso.example/realms/lab';
let signing: CryptoKey;
let publicJwk: JWK;
let server: TestServer;

beforeAll(async () => {
  ({ signing, publicJwk } = await identityProviderKeys());
  server = await startServer({
    auth: {
      oidc: { realm: 'sso', issuer: ISSUER, jwks: { keys: [publicJwk] }, audience: 'litserve' },
      acls: { '/': { 'sso/authenticated': ['resources/read'] } },
    },
  });
});
afterAll(() => server.close());

async function token(claims: Record<string, unknown>, issuedAt?: number): Promise<string> {
  const jwt = new SignJWT({ sub: 'ada', ...claims }).setProtectedHeader({ alg: 'ES256', kid: 'lab-1' }).setIssuer(ISSUER).setAudience('litserve').setExpirationTime('5m');
  jwt.setIssuedAt(issuedAt);
  return jwt.sign(signing);
}

const readOrg = (jwt: string) => server.app.inject({ method: 'GET', url: '/v1/orgs/literature', headers: { authorization: `Bearer ${jwt}` } });

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** The same bytes in another spelling: the lowest bit of the last character is one decoders drop. */
function respelled(jwt: string): string {
  const last = BASE64URL.indexOf(jwt.at(-1)!);
  return jwt.slice(0, -1) + BASE64URL[last ^ 1];
}

describe('maxTokenLifetime', () => {
  const verifierWith = (maxTokenLifetime: unknown) => {
    const problems: string[] = [];
    const config = parseOidcConfig({ realm: 'sso', issuer: ISSUER, jwks: { keys: [publicJwk] }, audience: 'litserve', maxTokenLifetime }, '.', problems);
    expect(problems).toEqual([]);
    return oidcVerifier(config!);
  };
  const valid = (lifetime: string) => new SignJWT({ sub: 'ada' }).setProtectedHeader({ alg: 'ES256', kid: 'lab-1' }).setIssuer(ISSUER).setAudience('litserve').setIssuedAt().setExpirationTime(lifetime).sign(signing);

  test('refuses a token whose exp lies further ahead than the bound, and takes one within it', async () => {
    const bounded = verifierWith(3600);
    expect(await bounded(await valid('5m'))).toMatchObject({ subject: { type: 'User', realm: 'sso', subject: 'ada' } });
    expect(await bounded(await valid('100y'))).toEqual({ refused: expect.stringContaining('valid for more than 3600 s ahead ("exp" claim)') });
    // null: no bound, a token for a century is taken (the provider's choice).
    expect(await verifierWith(null)(await valid('100y'))).toMatchObject({ subject: { subject: 'ada' } });
  });

  test('bounds tokens to a day when the section does not say', async () => {
    const problems: string[] = [];
    const config = parseOidcConfig({ realm: 'sso', issuer: ISSUER, jwks: { keys: [publicJwk] }, audience: 'litserve' }, '.', problems);
    expect(problems).toEqual([]);
    expect(config!.maxTokenLifetime).toBe(DEFAULT_MAX_TOKEN_LIFETIME);
    const unset = oidcVerifier(config!);
    expect(await unset(await valid('23h'))).toMatchObject({ subject: { subject: 'ada' } });
    expect(await unset(await valid('2d'))).toEqual({ refused: expect.stringContaining(`valid for more than ${DEFAULT_MAX_TOKEN_LIFETIME} s ahead`) });
  });

  test('must be a positive whole number of seconds', () => {
    for (const bad of [0, -5, 1.5, '3600', true]) {
      const problems: string[] = [];
      parseOidcConfig({ realm: 'sso', issuer: ISSUER, jwks: { keys: [publicJwk] }, maxTokenLifetime: bad }, '.', problems);
      expect(problems, String(bad)).toEqual(['oidc: "maxTokenLifetime" must be a positive whole number of seconds, or null for no bound']);
    }
  });
});

describe('OIDC token edges', () => {
  test('a token issued (iat) beyond the clock skew in the future is 401, one within it is accepted', async () => {
    const now = Math.floor(Date.now() / 1000);
    const future = await readOrg(await token({}, now + 3600));
    expect(future.statusCode).toBe(401);
    expect(future.json()['@type']).toBe('InvalidAccessToken');
    expect(future.json().reason).toContain('"iat"');
    expect((await readOrg(await token({}, now + Math.floor(CLOCK_SKEW_SECONDS / 2)))).statusCode).toBe(200);
  });

  test('a second spelling of a valid token (the unused bits of its signature changed) is 401', async () => {
    const jwt = await token({});
    const other = respelled(jwt);
    // The two spellings decode to the same signature bytes.
    expect(Buffer.from(other.split('.')[2]!, 'base64url')).toEqual(Buffer.from(jwt.split('.')[2]!, 'base64url'));
    expect((await readOrg(jwt)).statusCode).toBe(200);
    const respelledResponse = await readOrg(other);
    expect(respelledResponse.statusCode).toBe(401);
    expect(respelledResponse.json().reason).toContain('canonically');
  });

  test.each([
    [{ sub: undefined }, 'is missing'],
    [{ sub: 123 }, 'is a number, not a text'],
    [{ sub: ['ada'] }, 'is a list, not a text'],
    [{ sub: '' }, 'is empty'],
    [{ sub: 'group/lab' }, 'starts with "group/", which names groups in ACLs'],
    [{ sub: 'authenticated' }, 'is "authenticated", which names every caller with a token in ACLs'],
    [{ sub: 'anonymous' }, 'is "anonymous", which names callers without a token in ACLs'],
  ])('a subject claim %j is 401 saying why it names no user (it had said only "not a usable user name")', async (claims, why) => {
    const response = await readOrg(await token(claims));
    expect([response.statusCode, response.json().reason]).toEqual([401, `The provided token is invalid: the token's "sub" claim is not a usable user name: it ${why}.`]);
  });

  test('a subject holding a lone surrogate is 401, not a user the store would rename', async () => {
    const response = await readOrg(await token({ sub: 'ada\ud800' }));
    expect(response.statusCode).toBe(401);
    expect(response.json().reason).toContain('not a usable user name');
  });

  test('the auth file refuses an OIDC realm that file tokens also use', () => {
    const problems: string[] = [];
    parseAuthConfig(
      {
        tokens: { 'admin-secret-token': { realm: 'local', subject: 'admin' } },
        oidc: { realm: 'local', issuer: ISSUER, jwks: { keys: [publicJwk] } },
        acls: { '/': { 'local/admin': ['*'] } },
      },
      problems,
    );
    expect(problems).toEqual([expect.stringContaining('the realm "local" is also the realm of file tokens')]);
    const separate: string[] = [];
    parseAuthConfig({ tokens: { 'admin-secret-token': { realm: 'local', subject: 'admin' } }, oidc: { realm: 'sso', issuer: ISSUER, jwks: { keys: [publicJwk] } } }, separate);
    expect(separate).toEqual([]);
  });

  test('the auth file says why a key set is refused: no key in it, its file missing, a folder or not JSON', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'oidc-key-set-'));
    try {
      await writeFile(path.join(dir, 'broken.json'), '{"keys": [');
      await writeFile(path.join(dir, 'nuls.json'), '\u0000\u0000');
      const problemsOf = (jwks: unknown) => {
        const problems: string[] = [];
        parseAuthConfig({ oidc: { realm: 'sso', issuer: ISSUER, jwks } }, problems, dir);
        return problems;
      };
      expect(problemsOf({ keys: [] })).toEqual(['oidc: the key set of "jwks" holds no key: a token could never be verified']);
      expect(problemsOf('absent.json')).toEqual([`oidc: the key set file ${path.join(dir, 'absent.json')} cannot be read: no such file`]);
      expect(problemsOf('.')).toEqual([`oidc: the key set file ${dir} cannot be read: a folder, not a file`]);
      expect(problemsOf('broken.json')).toEqual([expect.stringMatching(new RegExp(`^oidc: the key set file ${path.join(dir, 'broken.json')} is not JSON: `))]);
      // The parser quotes the text it stopped at: its control characters are written as escapes, as for the auth file.
      const [nuls] = problemsOf('nuls.json');
      expect(nuls).toMatch(new RegExp(`^oidc: the key set file ${path.join(dir, 'nuls.json')} is not JSON: `));
      expect(nuls).toContain('\\u0000');
      expect(nuls).not.toMatch(/[\u0000-\u001f]/);
      expect(problemsOf({ keys: 'none' })).toEqual(['oidc: "jwks" must be a JSON Web Key Set ({"keys": [...]}) or the path of a file holding one']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('the auth file refuses a key set holding a broken key, a private key or a shared secret, naming each', async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const problems: string[] = [];
    const keys = [publicJwk, { kty: 'RSA', kid: 'truncated' }, { ...(await exportJWK(privateKey)), kid: 'private' }, { kty: 'oct', k: 'c2VjcmV0', kid: 'shared' }];
    parseAuthConfig({ oidc: { realm: 'sso', issuer: ISSUER, jwks: { keys } } }, problems);
    expect(problems).toEqual([
      expect.stringMatching(/key 1 \("truncated"\) of "jwks" is not a usable public key/),
      expect.stringMatching(/key 2 \("private"\) of "jwks" holds a private key/),
      expect.stringMatching(/key 3 \("shared"\) of "jwks" is a shared secret/),
    ]);
  });
});

describe('a groups claim that is not a list', () => {
  test('gives its holder no group and is said once to the operator, not at every token', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'oidc-groups-'));
    try {
      const authFile = path.join(dir, 'auth.json');
      await writeFile(authFile, JSON.stringify({ oidc: { realm: 'sso', issuer: ISSUER, jwks: { keys: [publicJwk] }, audience: 'litserve' } }));
      const warnings: string[] = [];
      const authenticator = Authenticator.load(authFile, { info: () => {}, warn: (message) => warnings.push(message), error: () => {} });
      const groupsOf = async (claims: Record<string, unknown>) =>
        (await authenticator.identify(`Bearer ${await token(claims)}`)).principals.flatMap((principal) => (principal.type === 'Group' ? [principal.group] : []));
      expect(await groupsOf({ groups: ['lab'] })).toEqual(['lab']);
      expect(warnings).toEqual([]);
      for (let i = 0; i < 2; i++) expect(await groupsOf({ groups: 'lab' })).toEqual([]);
      expect(warnings).toEqual(['oidc: a token\'s "groups" claim is the text "lab", not a list of groups: its holder gets no group (said once until the auth file is read again)']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
