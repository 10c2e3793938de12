import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DEFAULT_AUTH, TOKENS, type TestServer, bearer, createProject, startServer } from './helpers.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({
    auth: { ...DEFAULT_AUTH, acls: { ...DEFAULT_AUTH.acls, '/team': { 'local/group/team': ['projects/create'] } } },
  });
  await createProject(server.app, 'org', 'proj');
  await createProject(server.app, 'org', 'other');
  await server.app.inject({ method: 'PUT', url: '/v1/orgs/team', headers: bearer(TOKENS.alice), payload: {} });
});
afterAll(() => server.close());

const inject = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, token?: string, payload?: object) =>
  server.app.inject({ method, url, headers: token ? bearer(token) : {}, ...(payload && { payload }) });

const bobAt = (permissions: string[]) => ({ acl: [{ identity: { '@type': 'User', realm: 'local', subject: 'bob' }, permissions }] });

describe('ACL API', () => {
  test('grants are inherited downwards, and only downwards', async () => {
    // rev 1 of /org is the owner grant made when alice created the organization.
    const put = await inject('PUT', '/v1/acls/org?rev=1', TOKENS.alice, bobAt(['resources/write']));
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({ '@type': 'AccessControlList', _path: '/org', _rev: 2 });
    const inProject = await inject('POST', '/v1/resources/org/proj/_', TOKENS.bob, { name: 'x' });
    expect(inProject.statusCode).toBe(201);
    const elsewhere = await server.app.inject({ method: 'POST', url: '/v1/resources/literature/articles/_', headers: bearer(TOKENS.bob), payload: {} });
    expect(elsewhere.statusCode).toBe(403);
    expect(elsewhere.json().details).toBe("Permission 'resources/write' is missing on '/literature/articles'.");
  });

  test('a write without rev on an existing ACL says that none was given, rather than only "0 provided"', async () => {
    for (const [method, payload] of [['PUT', bobAt(['resources/read'])], ['PATCH', { '@type': 'Append', ...bobAt(['resources/read']) }]] as const) {
      const refused = await inject(method, '/v1/acls/org/other', TOKENS.alice, payload);
      expect([method, refused.statusCode, refused.json()['@type']]).toEqual([method, 409, 'IncorrectRev']);
      expect(refused.json().reason).toMatch(
        /^Incorrect revision '0' provided, expected '\d+', the resource may have been updated since last seen\. No rev was given, which stands for 0 \(a new ACL\): give the ACL's current revision as \?rev=\.$/,
      );
    }
    // Given, the reason is the reference's alone.
    const stale = await inject('PUT', '/v1/acls/org/other?rev=0', TOKENS.alice, bobAt(['resources/read']));
    expect(stale.json().reason).not.toContain('No rev was given');
  });

  test('PATCH appends and subtracts with revisions; a stale revision is 409 IncorrectRev', async () => {
    const append = await inject('PATCH', '/v1/acls/org/proj?rev=1', TOKENS.alice, { '@type': 'Append', ...bobAt(['files/write', 'acls/read']) });
    expect(append.statusCode).toBe(200);
    expect(append.json()._rev).toBe(2);
    const stale = await inject('PATCH', '/v1/acls/org/proj?rev=1', TOKENS.alice, { '@type': 'Subtract', ...bobAt(['files/write']) });
    expect(stale.statusCode).toBe(409);
    expect(stale.json()['@type']).toBe('IncorrectRev');
    const subtract = await inject('PATCH', '/v1/acls/org/proj?rev=2', TOKENS.alice, { '@type': 'Subtract', ...bobAt(['files/write']) });
    expect(subtract.json()._rev).toBe(3);
    const own = await inject('GET', '/v1/acls/org/proj', TOKENS.bob);
    expect(own.json()._results).toEqual([
      expect.objectContaining({ _path: '/org/proj', _source: 'store', _rev: 3, acl: [{ identity: { '@type': 'User', realm: 'local', subject: 'bob' }, permissions: ['acls/read'] }] }),
    ]);
  });

  test('GET shows only the caller\'s own entries unless self=false, which needs acls/read', async () => {
    const others = await inject('GET', '/v1/acls/org/proj?self=false', TOKENS.bob);
    expect(others.statusCode).toBe(200);
    const principals = others.json()._results.flatMap((r: { acl: { identity: { subject?: string } }[] }) => r.acl.map((a) => a.identity.subject));
    expect(principals).toEqual(expect.arrayContaining(['alice', 'bob']));
    const denied = await inject('GET', '/v1/acls/org/other?self=false', TOKENS.bob);
    expect(denied.statusCode).toBe(403);
  });

  test('ancestors=true lists the auth-file grants on / as well', async () => {
    const response = await inject('GET', '/v1/acls/org/proj?ancestors=true', TOKENS.alice);
    const root = response.json()._results.find((r: { _path: string }) => r._path === '/');
    expect(root._source).toBe('auth-file');
    // Every caller is also anonymous, so alice sees both grants that concern her.
    expect(root.acl).toEqual(
      expect.arrayContaining([
        { identity: { '@type': 'User', realm: 'local', subject: 'alice' }, permissions: ['*'] },
        { identity: { '@type': 'Anonymous' }, permissions: ['resources/read'] },
      ]),
    );
  });

  test('unknown permissions and invalid identities are 400; nothing is written', async () => {
    const before = (await inject('GET', '/v1/acls/org/other?self=false', TOKENS.alice)).json();
    expect(before._results).toHaveLength(1);
    const unknown = await inject('PUT', '/v1/acls/org/other?rev=1', TOKENS.alice, bobAt(['resources/fly']));
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()['@type']).toBe('UnknownPermissions');
    const badIdentity = await inject('PUT', '/v1/acls/org/other?rev=1', TOKENS.alice, { acl: [{ identity: { '@type': 'Robot' }, permissions: [] }] });
    expect(badIdentity.statusCode).toBe(400);
    expect(badIdentity.json()['@type']).toBe('DecodingFailed');
    expect((await inject('GET', '/v1/acls/org/other?self=false', TOKENS.alice)).json()).toEqual(before);
  });

  test('changing ACLs needs acls/write; DELETE empties the stored ACL', async () => {
    expect((await inject('DELETE', '/v1/acls/org?rev=2', TOKENS.bob)).statusCode).toBe(403);
    const cleared = await inject('DELETE', '/v1/acls/org?rev=2', TOKENS.alice);
    expect(cleared.statusCode).toBe(200);
    expect(cleared.json()._rev).toBe(3);
    const denied = await inject('POST', '/v1/resources/org/proj/_', TOKENS.bob, { name: 'y' });
    expect(denied.statusCode).toBe(403);
  });

  test('the creator of a project becomes its owner', async () => {
    // bob (group team) may create projects in /team, and then owns the project he creates.
    const created = await inject('PUT', '/v1/projects/team/bobs', TOKENS.bob, {});
    expect(created.statusCode).toBe(201);
    const write = await server.app.inject({ method: 'POST', url: '/v1/resources/team/bobs/_', headers: bearer(TOKENS.bob), payload: { a: 1 } });
    expect(write.statusCode).toBe(201);
    const notCarol = await server.app.inject({ method: 'POST', url: '/v1/resources/team/bobs/_', headers: bearer(TOKENS.carol), payload: { a: 1 } });
    expect(notCarol.statusCode).toBe(403);
  });

  test('the root ACL is at /v1/acls', async () => {
    const response = await inject('GET', '/v1/acls', TOKENS.alice);
    expect(response.statusCode).toBe(200);
    expect(response.json()._results[0]._path).toBe('/');
  });
});
