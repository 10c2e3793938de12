/**
 * Every boolean query parameter of /v1 takes the words Nexus's (Akka HTTP's) parameters take: true, yes,
 * on or 1 and false, no, off or 0, in any case, and means by each what `true` or `false` means. Any other
 * text is `400 MalformedQueryParam` naming the words.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { TOKENS, type TestServer, bearer, createProject, startServer } from './helpers.js';

let server: TestServer;
const alice = bearer(TOKENS.alice);

beforeAll(async () => {
  server = await startServer();
  await createProject(server.app, 'org', 'proj');
  for (const id of ['live', 'gone']) {
    await server.app.inject({ method: 'PUT', url: `/v1/resources/org/proj/_/${id}`, headers: alice, payload: { '@type': 'Neuron' } });
  }
  await server.app.inject({ method: 'DELETE', url: '/v1/resources/org/proj/_/gone?rev=1', headers: alice });
});
afterAll(() => server.close());

const get = (url: string) => server.app.inject({ method: 'GET', url, headers: alice });

const TRUE_WORDS = ['true', 'yes', 'on', '1', 'TRUE', 'Yes', 'ON'];
const FALSE_WORDS = ['false', 'no', 'off', '0', 'False', 'NO', 'oFF'];

async function listedIds(url: string): Promise<string[]> {
  const response = await get(url);
  expect(response.statusCode).toBe(200);
  return (response.json()._results as { '@id': string }[]).map((entry) => entry['@id'].split('/').at(-1)!).sort();
}

describe('deprecated, as a listing filter', () => {
  test.each(TRUE_WORDS)('deprecated=%s lists only the deprecated resource', async (word) => {
    expect(await listedIds(`/v1/resources/org/proj?deprecated=${word}`)).toEqual(['gone']);
  });
  test.each(FALSE_WORDS)('deprecated=%s lists only the others', async (word) => {
    expect(await listedIds(`/v1/resources/org/proj?deprecated=${word}`)).toEqual(['live']);
  });
});

test('annotate=on adds the metadata to a source, annotate=off does not', async () => {
  expect((await get('/v1/resources/org/proj/_/live/source?annotate=on')).json()._rev).toBe(1);
  expect((await get('/v1/resources/org/proj/_/live/source?annotate=off')).json()).not.toHaveProperty('_rev');
});

test('self=0 lists every identity’s grants, self=1 only the caller’s', async () => {
  const bobReads = { '@type': 'Append', acl: [{ identity: { '@type': 'User', realm: 'local', subject: 'bob' }, permissions: ['resources/read'] }] };
  const granted = await server.app.inject({ method: 'PATCH', url: '/v1/acls/org/proj?rev=1', headers: alice, payload: bobReads });
  expect(granted.statusCode).toBe(200);
  const subjects = async (self: string) => {
    const response = await get(`/v1/acls/org/proj?self=${self}`);
    expect(response.statusCode).toBe(200);
    const acl = (response.json()._results as { acl: { identity: { subject?: string } }[] }[]).flatMap((entry) => entry.acl);
    return acl.map((grant) => grant.identity.subject).sort();
  };
  for (const word of FALSE_WORDS) expect(await subjects(word)).toEqual(['alice', 'bob']);
  for (const word of TRUE_WORDS) expect(await subjects(word)).toEqual(['alice']);
});

test.each([
  ['/v1/resources/org/proj?deprecated=maybe', 'deprecated', 'maybe'],
  ['/v1/resources/org/proj?deprecated=', 'deprecated', ''],
  ['/v1/resources/org/proj/_/live/source?annotate=y', 'annotate', 'y'],
  ['/v1/acls/org/proj?ancestors=2', 'ancestors', '2'],
  ['/v1/projects?deprecated=truthy', 'deprecated', 'truthy'],
])('%s is refused, naming the words a boolean takes', async (url, name, sent) => {
  const response = await get(url);
  expect([response.statusCode, response.json()['@type']]).toEqual([400, 'MalformedQueryParam']);
  expect(response.json().reason).toBe(`querystring/${name} must be true or false (or yes/no, on/off, 1/0), not '${sent}'`);
});
