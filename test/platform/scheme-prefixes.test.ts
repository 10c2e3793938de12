/**
 * `_self` links hold whole ids as one URL segment (`https%3A%2F%2F…`), which is expanded with the
 * project's API mappings: a prefix equal to the scheme of those ids would expand each into another
 * IRI, and every link would answer 404. Such prefixes are refused when a project is created or updated.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { TOKENS, type TestServer, bearer, createProject, multipart, startServer } from './helpers.js';

let server: TestServer;
const alice = bearer(TOKENS.alice);

beforeAll(async () => {
  server = await startServer();
  await createProject(server.app, 'org', 'existing');
});
afterAll(() => server.close());

const putProject = (url: string, payload: object) => server.app.inject({ method: 'PUT', url, headers: alice, payload });
const projectRev = async (label: string) => (await server.app.inject({ method: 'GET', url: `/v1/projects/org/${label}`, headers: alice })).json()._rev;

describe('a mapping whose prefix is a scheme of the project’s ids is refused', () => {
  test.each([
    ['https', {}],
    ['http', {}],
    ['HTTPS', {}],
    ['urn', { base: 'urn:lab:items:' }],
    ['tag', { vocab: 'tag:lab.example,2024:terms/' }],
  ])('creating a project mapping %s: 400 DecodingFailed, no project', async (prefix, fields) => {
    const response = await putProject(`/v1/projects/org/new-${prefix}`, { ...fields, apiMappings: [{ prefix, namespace: 'https://evil.example/' }] });
    expect(response.statusCode).toBe(400);
    expect(response.json()['@type']).toBe('DecodingFailed');
    expect(response.json().reason).toContain(`The prefix '${prefix}' is a URI scheme of the project's ids and links`);
    expect((await server.app.inject({ method: 'GET', url: `/v1/projects/org/new-${prefix}`, headers: alice })).statusCode).toBe(404);
  });

  test('updating a project to map https: 400, the project unchanged', async () => {
    const rev = await projectRev('existing');
    const response = await putProject(`/v1/projects/org/existing?rev=${rev}`, { apiMappings: [{ prefix: 'https', namespace: 'https://evil.example/' }] });
    expect(response.statusCode).toBe(400);
    expect(response.json()['@type']).toBe('DecodingFailed');
    expect(await projectRev('existing')).toBe(rev);
  });

  test('updating the base to the scheme of a mapped prefix: 400, the project unchanged', async () => {
    await createProject(server.app, 'org', 'mapped', { apiMappings: [{ prefix: 'urn', namespace: 'https://lab.example/' }] });
    const response = await putProject('/v1/projects/org/mapped?rev=1', { base: 'urn:lab:items:' });
    expect(response.statusCode).toBe(400);
    expect(response.json().reason).toContain("The prefix 'urn' is a URI scheme");
    expect(await projectRev('mapped')).toBe(1);
  });
});

test('with another prefix mapped, the links of the project’s files still answer', async () => {
  await createProject(server.app, 'org', 'linked', { apiMappings: [{ prefix: 'lab', namespace: 'https://lab.example/' }] });
  const body = await multipart('data.txt', 'content', 'text/plain');
  const created = await server.app.inject({ method: 'POST', url: '/v1/files/org/linked', headers: { ...alice, ...body.headers }, payload: body.payload });
  expect(created.statusCode).toBe(201);
  const download = await server.app.inject({ method: 'GET', url: new URL(created.json()._self).pathname, headers: alice });
  expect(download.statusCode).toBe(200);
});
