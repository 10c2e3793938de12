import { afterEach, describe, expect, test } from 'vitest';
import { AuthFileError, parseAuthConfig, tokenDigest } from '../../src/platform/auth-file.js';
import { AuthenticationError, AuthorizationError } from '../../src/platform/index.js';
import { DEFAULT_AUTH, TOKENS, type TestServer, bearer, startServer } from './helpers.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('auth file', () => {
  test('tokens become users with their groups; ACL entries keep their permissions', () => {
    const problems: string[] = [];
    const config = parseAuthConfig(DEFAULT_AUTH, problems);
    expect(problems).toEqual([]);
    const bob = config.tokens.get(tokenDigest(TOKENS.bob))!;
    expect(bob.subject).toEqual({ type: 'User', realm: 'local', subject: 'bob' });
    expect(bob.principals).toContainEqual({ type: 'Group', realm: 'local', group: 'team' });
    expect(config.acls.get('/')!.get('user:local:alice')).toEqual(new Set(['*']));
    // Tokens are kept as digests only.
    expect(config.tokens.has(TOKENS.bob)).toBe(false);
  });

  test('every problem of an invalid file is reported', () => {
    const problems: string[] = [];
    parseAuthConfig(
      {
        tokens: { short: { realm: 'local', subject: 'x' }, 'long-enough-token': { realm: 'bad realm!', subject: 'y' } },
        acls: { 'no-slash': {}, '/org': { 'local/alice': ['resources/fly'], '???': ['*'] } },
        extra: true,
      },
      problems,
    );
    expect(problems).toHaveLength(6);
    expect(problems.join('\n')).toMatch(/unknown field "extra"/);
    expect(problems.join('\n')).toMatch(/at least 8 characters/);
    expect(problems.join('\n')).toMatch(/bad realm!/);
    expect(problems.join('\n')).toMatch(/"no-slash"/);
    expect(problems.join('\n')).toMatch(/unknown permissions resources\/fly/);
    expect(problems.join('\n')).toMatch(/"\?\?\?" is not/);
  });

  test('an invalid auth file stops start-up with a clear error', async () => {
    await expect(startServer({ auth: { tokens: [] } })).rejects.toThrow(AuthFileError);
  });
});

describe('without an auth file', () => {
  test('anonymous may read, nothing else; the start-up log says so', async () => {
    const warnings: string[] = [];
    server = await startServer({ auth: null, logger: { info: () => {}, warn: (m) => warnings.push(m), error: () => {} } });
    expect(warnings.join('\n')).toMatch(/anonymous is read-only/);
    const read = await server.app.inject({ method: 'GET', url: '/v1/projects/literature/articles' });
    expect(read.statusCode).toBe(200);
    const write = await server.app.inject({ method: 'PUT', url: '/v1/orgs/myorg', payload: {} });
    expect(write.statusCode).toBe(403);
    expect(write.json()['@type']).toBe('AuthorizationFailed');
    const withToken = await server.app.inject({ method: 'GET', url: '/v1/projects/literature/articles', headers: bearer('whatever-token') });
    expect(withToken.statusCode).toBe(401);
  });
});

describe('bearer tokens', () => {
  test('an unknown token is 401 InvalidAccessToken with a WWW-Authenticate challenge', async () => {
    server = await startServer();
    const response = await server.app.inject({ method: 'GET', url: '/v1/orgs/literature', headers: bearer('not-a-known-token') });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer');
    expect(response.json()).toEqual({
      '@context': 'https://bluebrain.github.io/nexus/contexts/error.json',
      '@type': 'InvalidAccessToken',
      reason: 'The provided token is invalid.',
    });
  });

  test('a non-bearer Authorization header is 401 InvalidAccessTokenFormat', async () => {
    server = await startServer();
    const response = await server.app.inject({ method: 'GET', url: '/v1/orgs/literature', headers: { authorization: 'Basic YTpi' } });
    expect(response.statusCode).toBe(401);
    expect(response.json()['@type']).toBe('InvalidAccessTokenFormat');
  });
});

describe('authorize (for the literature endpoints)', () => {
  /** The guard of the literature routes: identify the caller, then check its permission. */
  const authorize = async (authorization: string | undefined, permission: string, project: string) => {
    const caller = await server!.platform.identify(authorization);
    server!.platform.authorize(caller, permission, project);
    return caller;
  };

  test('returns the caller when the permission is held on the project or an ancestor', async () => {
    server = await startServer();
    expect((await authorize(undefined, 'resources/read', 'literature/articles')).subject).toEqual({ type: 'Anonymous' });
    expect((await authorize(`Bearer ${TOKENS.alice}`, 'resources/write', 'literature/articles')).subject).toMatchObject({ subject: 'alice' });
  });

  test('throws AuthenticationError for bad tokens and AuthorizationError for missing permissions', async () => {
    server = await startServer();
    await expect(authorize('Bearer nope-nope-nope', 'resources/read', 'literature/articles')).rejects.toThrow(AuthenticationError);
    const denied = await authorize(`Bearer ${TOKENS.bob}`, 'resources/write', 'literature/articles').catch((error: unknown) => error);
    expect(denied).toBeInstanceOf(AuthorizationError);
    expect((denied as AuthorizationError).details).toBe("Permission 'resources/write' is missing on '/literature/articles'.");
  });

  test('a deployment closes the literature to anonymous callers with the same ACLs', async () => {
    server = await startServer({
      auth: { tokens: DEFAULT_AUTH.tokens, acls: { '/': { 'local/alice': ['*'] }, '/literature': { 'local/group/team': ['resources/read'] } } },
    });
    await expect(authorize(undefined, 'resources/read', 'literature/articles')).rejects.toThrow(AuthorizationError);
    await expect(authorize(`Bearer ${TOKENS.carol}`, 'resources/read', 'literature/articles')).rejects.toThrow(AuthorizationError);
    // bob is in group "team", which may read /literature and so /literature/articles.
    expect((await authorize(`Bearer ${TOKENS.bob}`, 'resources/read', 'literature/articles')).subject).toMatchObject({ subject: 'bob' });
  });

  test('"authenticated" grants to any valid token', async () => {
    server = await startServer({ auth: { tokens: DEFAULT_AUTH.tokens, acls: { '/': { authenticated: ['resources/read'] } } } });
    expect((await authorize(`Bearer ${TOKENS.carol}`, 'resources/read', 'a/b')).subject).toMatchObject({ subject: 'carol' });
    await expect(authorize(undefined, 'resources/read', 'a/b')).rejects.toThrow(AuthorizationError);
  });
});
