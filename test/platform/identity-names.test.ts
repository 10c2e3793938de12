/**
 * Names that would make logs, listings and `_createdBy` ambiguous are refused from every source of
 * identities: auth-file tokens and grants (at start), OIDC tokens (401) and ACL writes (400).
 * So is any configured identity that could read as the operator (`internal/system`).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SignJWT, type CryptoKey, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { AuthFileError, parseAuthConfig } from '../../src/platform/auth-file.js';
import { OPERATOR } from '../../src/platform/identities.js';
import { openPlatform } from '../../src/platform/index.js';
import { MemoryLiterature, TOKENS, type TestServer, bearer, createProject, identityProviderKeys, startServer } from './helpers.js';
import { defaultOf } from '../../src/config.js';

const ISSUER = 'https://sso.example/realms/lab';

/** Each kind of refused character, written where a plain letter would be. */
const AMBIGUOUS: [string, string][] = [
  ['a C0 control (BEL)', 'ali\u0007ce'],
  ['a newline', 'alice\nadmin'],
  ['DEL', 'ali\u007fce'],
  ['a C1 control (NEL)', 'ali\u0085ce'],
  ['a right-to-left override', 'ali\u202ece'],
  ['a right-to-left mark', 'ali\u200fce'],
  ['a line separator', 'ali\u2028ce'],
  ['a zero-width space', 'ali\u200bce'],
  ['a byte-order mark', '\ufeffalice'],
];

let signing: CryptoKey;
let publicJwk: JWK;
let server: TestServer;

beforeAll(async () => {
  ({ signing, publicJwk } = await identityProviderKeys());
  server = await startServer({
    auth: {
      tokens: { [TOKENS.alice]: { realm: 'local', subject: 'alice' } },
      oidc: { realm: 'sso', issuer: ISSUER, jwks: { keys: [publicJwk] }, audience: 'litserve' },
      acls: { '/': { 'local/alice': ['*'], 'sso/authenticated': ['resources/read'] } },
    },
  });
  await createProject(server.app, 'org', 'proj');
});
afterAll(() => server.close());

const jwt = (claims: Record<string, unknown>) =>
  new SignJWT({ sub: 'ada', ...claims }).setProtectedHeader({ alg: 'ES256', kid: 'lab-1' }).setIssuer(ISSUER).setAudience('litserve').setIssuedAt().setExpirationTime('5m').sign(signing);

const aclRev = async () => (await server.app.inject({ method: 'GET', url: '/v1/acls/org/proj?self=false', headers: bearer(TOKENS.alice) })).json()._results[0]?._rev ?? 0;

const problemsOf = (auth: object) => {
  const problems: string[] = [];
  parseAuthConfig(auth, problems);
  return problems;
};

describe('names with control, bidirectional or invisible characters', () => {
  test.each(AMBIGUOUS)('the auth file refuses a token subject holding %s, naming the token and the character', (_kind, subject) => {
    const problems = problemsOf({ tokens: { 'tok-secret-1': { realm: 'local', subject } } });
    expect(problems).toHaveLength(1);
    const codePoint = `U+${[...subject].find((c) => !/[a-z]/.test(c))!.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
    expect(problems[0]).toContain('token "tok-…": the subject');
    expect(problems[0]).toContain(codePoint);
    // The message quotes the subject with the character spelled out, so it is not ambiguous itself.
    expect(problems[0]).toContain(`<${codePoint}>`);
    expect(problems[0]).not.toContain(subject);
  });

  test('the auth file refuses such a group of a token and such a principal of an ACL', () => {
    expect(problemsOf({ tokens: { 'tok-secret-1': { realm: 'local', subject: 'bob', groups: ['team\u202e'] } } })).toEqual([
      expect.stringMatching(/^token "tok-…": the group "team<U\+202E>" holds U\+202E/),
    ]);
    expect(problemsOf({ acls: { '/': { 'local/ali\u0007ce': ['resources/read'], 'local/group/te\u0085am': ['resources/read'] } } })).toEqual([
      expect.stringMatching(/^acl "\/": "local\/ali<U\+0007>ce" holds U\+0007/),
      expect.stringMatching(/^acl "\/": "local\/group\/te<U\+0085>am" holds U\+0085/),
    ]);
  });

  test('such an auth file stops start-up', async () => {
    await expect(startServer({ auth: { tokens: { 'tok-secret-1': { realm: 'local', subject: 'ali\u0007ce' } } } })).rejects.toThrow(AuthFileError);
  });

  test.each([
    ['a trailing space', 'alice '],
    ['a leading no-break space', '\u00a0alice'],
    ['only spaces', '   '],
  ])('a subject with %s is refused from the auth file, a JWT and an ACL write', async (_kind, subject) => {
    expect(problemsOf({ tokens: { 'tok-secret-1': { realm: 'local', subject } } })).toEqual([expect.stringContaining('starts or ends with white space')]);
    const fromJwt = await server.app.inject({ method: 'GET', url: '/v1/orgs/literature', headers: bearer(await jwt({ sub: subject })) });
    expect(fromJwt.statusCode).toBe(401);
    expect(fromJwt.json().reason).toContain('starts or ends with white space');
    const rev = await aclRev();
    const write = await server.app.inject({
      method: 'PATCH',
      url: `/v1/acls/org/proj?rev=${rev}`,
      headers: bearer(TOKENS.alice),
      payload: { '@type': 'Append', acl: [{ identity: { '@type': 'User', realm: 'local', subject }, permissions: ['resources/read'] }] },
    });
    expect(write.statusCode).toBe(400);
    expect(write.json().reason).toContain('starts or ends with white space');
    expect(await aclRev()).toBe(rev);
  });

  test('names in other scripts, with zero-width joiners, and punctuation stay accepted', () => {
    expect(problemsOf({ tokens: { 'tok-secret-1': { realm: 'local', subject: 'José Núñez' }, 'tok-secret-2': { realm: 'local', subject: 'می\u200cخواهم', groups: ['a:b/c'] } } })).toEqual([]);
  });

  test.each(AMBIGUOUS)('a JWT whose subject holds %s is 401, naming the character', async (_kind, subject) => {
    const response = await server.app.inject({ method: 'GET', url: '/v1/orgs/literature', headers: bearer(await jwt({ sub: subject })) });
    expect(response.statusCode).toBe(401);
    expect(response.json()['@type']).toBe('InvalidAccessToken');
    expect(response.json().reason).toMatch(/"sub" claim is not a usable user name: it holds U\+[0-9A-F]{4}/);
  });

  test('a JWT group with such a name is left out: its member is still the user it names, without that group', async () => {
    const caller = await server.platform.identify(`Bearer ${await jwt({ groups: ['/team\u202e', '/lab'] })}`);
    expect(caller.subject).toEqual({ type: 'User', realm: 'sso', subject: 'ada' });
    expect(caller.principals.filter((p) => p.type === 'Group')).toEqual([{ type: 'Group', realm: 'sso', group: 'lab' }]);
  });

  test.each([
    ['User', 'U+0007', { '@type': 'User', realm: 'local', subject: 'ali\u0007ce' }],
    ['User', 'U+202E', { '@type': 'User', realm: 'local', subject: 'ali\u202ece' }],
    ['Group', 'U+0085', { '@type': 'Group', realm: 'local', group: 'te\u0085am' }],
  ])('an ACL write naming a %s whose name holds %s is 400 DecodingFailed and changes nothing', async (_kind, codePoint, identity) => {
    const rev = await aclRev();
    const response = await server.app.inject({
      method: 'PATCH',
      url: `/v1/acls/org/proj?rev=${rev}`,
      headers: bearer(TOKENS.alice),
      payload: { '@type': 'Append', acl: [{ identity, permissions: ['resources/read'] }] },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()['@type']).toBe('DecodingFailed');
    expect(response.json().reason).toContain(`holds ${codePoint}`);
    expect(await aclRev()).toBe(rev);
  });
});

describe("the operator's identity", () => {
  test('no token may be internal/system (the operator), nor any user of its realm, in any case', () => {
    expect(OPERATOR.subject).toEqual({ type: 'User', realm: 'internal', subject: 'system' });
    for (const realm of ['internal', 'Internal']) {
      for (const subject of ['system', 'admin']) {
        expect(problemsOf({ tokens: { 'tok-secret-1': { realm, subject } } })).toEqual([
          expect.stringMatching(new RegExp(`^token "tok-…": the realm "${realm}" is reserved for the operator`)),
        ]);
      }
    }
  });

  test('no identity provider may have its realm', () => {
    expect(problemsOf({ oidc: { realm: 'internal', issuer: ISSUER, jwks: { keys: [publicJwk] } } })).toEqual([
      expect.stringContaining('oidc: the realm "internal" is reserved for the operator'),
    ]);
  });

  test('such an auth file stops start-up', async () => {
    await expect(startServer({ auth: { tokens: { 'tok-secret-1': { realm: 'internal', subject: 'system' } } } })).rejects.toThrow(AuthFileError);
  });
});

describe('grants stored before such names were refused', () => {
  test('are named in a warning at start: they grant nothing, and should be removed', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'inert-grants-'));
    const authFile = path.join(dataDir, 'auth.json');
    await writeFile(authFile, JSON.stringify({ tokens: {}, acls: {} }));
    const options = { dataDir, authFile, literatureProject: 'literature/articles', literature: new MemoryLiterature([]), maxFileBytes: defaultOf('maxUploadBytes') };
    try {
      const first = await openPlatform(options);
      const audit = { createdAt: 0, createdBy: OPERATOR.subject, updatedAt: 0, updatedBy: OPERATOR.subject };
      const grants = { 'user:local:ali\u202ece': ['resources/read'], 'group:local:readers ': ['resources/read'], 'user:local:bob': ['resources/read'] };
      await first.store.write(() => first.store.table('acls').put('/org', { rev: 1, grants, ...audit }));
      await first.close();

      const warnings: string[] = [];
      const reopened = await openPlatform({ ...options, logger: { info: () => undefined, warn: (message) => void warnings.push(message), error: () => undefined } });
      await reopened.close();
      const warning = warnings.find((message) => message.includes('grant nothing'));
      expect(warning).toBe(
        '2 stored ACL grant(s) name users or groups no token can carry (control, bidirectional or invisible characters, or white space at an end), so they grant nothing; remove them: ' +
          '/org "user:local:ali<U+202E>ce"; /org "group:local:readers "',
      );
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
