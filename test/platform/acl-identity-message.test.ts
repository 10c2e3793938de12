/**
 * An ACL write whose identity is none of the accepted forms is told, in one message, which entry is wrong
 * and what an identity may be: not Ajv's failure of every `anyOf` alternative followed by the `anyOf` itself.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { TOKENS, type TestServer, bearer, createProject, startServer } from './helpers.js';

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
  await createProject(server.app, 'org', 'proj');
});
afterAll(() => server.close());

const acl = () => server.app.inject({ method: 'GET', url: '/v1/acls/org/proj?self=false', headers: bearer(TOKENS.alice) });
const write = (method: 'PUT' | 'PATCH', url: string, payload: object) => server.app.inject({ method, url, headers: bearer(TOKENS.alice), payload });

const bob = { '@type': 'User', realm: 'local', subject: 'bob' };
const ACCEPTED =
  "must be an auth-file principal string (such as 'anonymous' or 'local/alice') or an object whose '@type' is " +
  'Anonymous, Authenticated (realm optional), User (realm, subject) or Group (realm, group); ' +
  "without '@type', {realm, subject} is a User, {realm, group} a Group and {realm} Authenticated";

describe('a bad identity in an ACL write', () => {
  test.each([
    ['without @type, naming a subject and a group', { realm: 'local', subject: 'bob', group: 'lab' }],
    ['without @type nor realm', { subject: 'bob' }],
    ['empty (not taken for Anonymous)', {}],
    ['with an unknown @type', { '@type': 'Robot', realm: 'local' }],
    ['with a @type that is not a string', { '@type': 5 }],
    ['of a known @type without its fields', { '@type': 'Group', realm: 'local' }],
    ['that is neither a string nor an object', 7],
  ])('an identity %s is one 400 DecodingFailed naming the entry and the accepted forms; nothing is written', async (_, identity) => {
    const before = (await acl()).json();
    const entries = [{ identity: bob, permissions: ['resources/read'] }, { identity, permissions: ['resources/read'] }];
    for (const [method, body] of [
      ['PUT', { acl: entries }],
      ['PATCH', { '@type': 'Append', acl: entries }],
    ] as const) {
      const response = await write(method, `/v1/acls/org/proj?rev=${before._results[0]?._rev ?? 0}`, body);
      expect(response.statusCode).toBe(400);
      expect(response.json()['@type']).toBe('DecodingFailed');
      expect(response.json().reason).toBe(`body/acl/1/identity ${ACCEPTED}`);
    }
    expect((await acl()).json()).toEqual(before);
  });

  test('other problems of an ACL body keep their own messages', async () => {
    const permissions = await write('PUT', '/v1/acls/org/proj?rev=1', { acl: [{ identity: bob, permissions: 'resources/read' }] });
    expect(permissions.statusCode).toBe(400);
    expect(permissions.json().reason).toBe('body/acl/0/permissions must be array');
    const operation = await write('PATCH', '/v1/acls/org/proj?rev=1', { '@type': 'Replace', acl: [{ identity: bob, permissions: [] }] });
    expect(operation.statusCode).toBe(400);
    expect(operation.json().reason).toBe("body/@type must be one of 'Append', 'Subtract', not 'Replace'");
  });
});

describe('an identity without @type', () => {
  test('is read as Nexus reads it, from its fields: a User, a Group, Authenticated (it had been refused)', async () => {
    const before = (await acl()).json()._results[0]?._rev ?? 0;
    const entries = [
      { identity: { realm: 'local', subject: 'carol' }, permissions: ['resources/read'] },
      { identity: { realm: 'local', group: 'lab' }, permissions: ['resources/read'] },
      { identity: { realm: 'local' }, permissions: ['resources/read'] },
    ];
    const written = await write('PATCH', `/v1/acls/org/proj?rev=${before}`, { '@type': 'Append', acl: entries });
    expect(written.statusCode, written.body).toBe(200);
    const listed = (await acl()).json()._results[0].acl.map((entry: { identity: Record<string, string> }) => entry.identity);
    expect(listed).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ '@type': 'User', realm: 'local', subject: 'carol' }),
        expect.objectContaining({ '@type': 'Group', realm: 'local', group: 'lab' }),
        expect.objectContaining({ '@type': 'Authenticated', realm: 'local' }),
      ]),
    );
  });
});
