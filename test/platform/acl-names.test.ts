/**
 * A grant must name exactly the principal it was asked for. A lone UTF-16 surrogate reads back from
 * the store as U+FFFD characters, so a grant to `\ud800` would become a grant to a user really
 * called `���`: such names are refused where they enter (ACL API, auth file).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parseAuthConfig } from '../../src/platform/auth-file.js';
import { TOKENS, type TestServer, bearer, createProject, startServer } from './helpers.js';

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
  await createProject(server.app, 'org', 'proj');
});
afterAll(() => server.close());

const listAcl = () => server.app.inject({ method: 'GET', url: '/v1/acls/org/proj?self=false', headers: bearer(TOKENS.alice) });

describe('names in ACL identities', () => {
  test.each([
    ['a user subject', { '@type': 'User', realm: 'local', subject: 'eve\ud800' }],
    ['a group', { '@type': 'Group', realm: 'local', group: '\udc00team' }],
    ['the string form', 'local/eve\ud800'],
  ])('%s holding a lone surrogate is 400 DecodingFailed and nothing is written', async (_name, identity) => {
    const before = (await listAcl()).json();
    const rev = before._results[0]._rev;
    const response = await server.app.inject({
      method: 'PATCH',
      url: `/v1/acls/org/proj?rev=${rev}`,
      headers: { ...bearer(TOKENS.alice), 'content-type': 'application/json' },
      payload: JSON.stringify({ '@type': 'Append', acl: [{ identity, permissions: ['resources/read'] }] }),
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()['@type']).toBe('DecodingFailed');
    expect((await listAcl()).json()).toEqual(before);
  });

  test('a well-formed astral name (a surrogate pair) is granted and listed unchanged', async () => {
    const rev = (await listAcl()).json()._results[0]._rev;
    const identity = { '@type': 'User', realm: 'local', subject: 'eve\u{1F600}' };
    const response = await server.app.inject({
      method: 'PATCH',
      url: `/v1/acls/org/proj?rev=${rev}`,
      headers: bearer(TOKENS.alice),
      payload: { '@type': 'Append', acl: [{ identity, permissions: ['resources/read'] }] },
    });
    expect(response.statusCode).toBe(200);
    const identities = (await listAcl()).json()._results.flatMap((acl: { acl: { identity: object }[] }) => acl.acl.map((entry) => entry.identity));
    expect(identities).toContainEqual(identity);
  });

  test('the auth file refuses a token whose subject holds a lone surrogate', () => {
    const problems: string[] = [];
    parseAuthConfig({ tokens: { 'eve-secret-token': { realm: 'local', subject: 'eve\ud800' } } }, problems);
    expect(problems).toEqual([expect.stringContaining('the subject "eve<U+D800>" holds U+D800')]);
  });
});
