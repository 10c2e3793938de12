import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { platformApi } from '../../src/http/platform/index.js';
import { BASE, TOKENS, type TestServer, bearer, createProject, serverApiOptions, startServer } from './helpers.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

const alice = bearer(TOKENS.alice);

describe('organizations', () => {
  test('a deprecated organization takes no write in its projects: creations, updates, tags, deprecations', async () => {
    await createProject(server.app, 'closing', 'p');
    const put = (id: string) => server.app.inject({ method: 'PUT', url: `/v1/resources/closing/p/_/${id}`, headers: alice, payload: { name: id } });
    expect((await put('before')).statusCode).toBe(201);
    const org = (await server.app.inject({ method: 'GET', url: '/v1/orgs/closing', headers: alice })).json();
    expect((await server.app.inject({ method: 'DELETE', url: `/v1/orgs/closing?rev=${org._rev}`, headers: alice })).statusCode).toBe(200);
    const refused = [
      await put('after'),
      await server.app.inject({ method: 'PUT', url: '/v1/resources/closing/p/_/before?rev=1', headers: alice, payload: { name: 'changed' } }),
      await server.app.inject({ method: 'POST', url: '/v1/resources/closing/p/_/before/tags?rev=1', headers: alice, payload: { tag: 't', rev: 1 } }),
      await server.app.inject({ method: 'DELETE', url: '/v1/resources/closing/p/_/before?rev=1', headers: alice }),
    ];
    expect(refused.map((response) => [response.statusCode, response.json()['@type']])).toEqual(Array(4).fill([400, 'OrganizationIsDeprecated']));
    // Reading goes on.
    expect((await server.app.inject({ method: 'GET', url: '/v1/resources/closing/p/_/before', headers: alice })).json().name).toBe('before');
  });

  test('create, conflict, update with rev, deprecate', async () => {
    const created = await server.app.inject({ method: 'PUT', url: '/v1/orgs/neuro', headers: alice, payload: { description: 'Neuro lab' } });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ '@type': 'Organization', _label: 'neuro', description: 'Neuro lab', _rev: 1, _self: `${BASE}/v1/orgs/neuro` });
    const again = await server.app.inject({ method: 'PUT', url: '/v1/orgs/neuro', headers: alice, payload: {} });
    expect(again.statusCode).toBe(409);
    expect(again.json()['@type']).toBe('OrganizationAlreadyExists');
    const updated = await server.app.inject({ method: 'PUT', url: '/v1/orgs/neuro?rev=1', headers: alice, payload: { description: 'Neuroscience' } });
    expect(updated.json()).toMatchObject({ description: 'Neuroscience', _rev: 2 });
    const deprecated = await server.app.inject({ method: 'DELETE', url: '/v1/orgs/neuro?rev=2', headers: alice });
    expect(deprecated.json()).toMatchObject({ _deprecated: true, _rev: 3 });
    const project = await server.app.inject({ method: 'PUT', url: '/v1/projects/neuro/p', headers: alice, payload: {} });
    expect(project.statusCode).toBe(400);
    expect(project.json()['@type']).toBe('OrganizationIsDeprecated');
  });

  test('a PUT without a body creates the organization', async () => {
    const response = await server.app.inject({ method: 'PUT', url: '/v1/orgs/bodyless', headers: alice });
    expect(response.statusCode).toBe(201);
    expect(response.json()._label).toBe('bodyless');
  });

  test('labels outside [A-Za-z0-9_-]{1,64} are rejected as invalid path segments', async () => {
    const response = await server.app.inject({ method: 'PUT', url: '/v1/orgs/bad.label', headers: alice, payload: {} });
    expect(response.statusCode).toBe(400);
    expect(response.json()['@type']).toBe('InvalidPathSegment');
  });

  test('creating an organization needs organizations/create', async () => {
    const response = await server.app.inject({ method: 'PUT', url: '/v1/orgs/bobs', headers: bearer(TOKENS.bob), payload: {} });
    expect(response.statusCode).toBe(403);
    expect((await server.app.inject({ method: 'GET', url: '/v1/orgs/bobs' })).statusCode).toBe(404);
  });
});

describe('projects', () => {
  test('defaults: base, vocab and the API mappings of the reference', async () => {
    await createProject(server.app, 'org', 'defaults');
    const project = (await server.app.inject({ method: 'GET', url: '/v1/projects/org/defaults' })).json();
    expect(project).toMatchObject({
      '@type': 'Project',
      base: `${BASE}/v1/resources/org/defaults/_/`,
      vocab: `${BASE}/v1/vocabs/org/defaults/`,
      apiMappings: [],
      _deprecated: false,
      _markedForDeletion: false,
    });
    const prefixes = project._effectiveApiMappings.map((m: { prefix: string }) => m.prefix);
    expect(prefixes).toEqual(expect.arrayContaining(['_', 'resource', 'nxv', 'schema', 'resolver', 'view', 'storage', 'file', 'archive']));
  });

  test('custom base, vocab and mappings; project mappings win over defaults', async () => {
    await createProject(server.app, 'org', 'custom', {
      base: 'https://data.example.org/',
      vocab: 'https://vocab.example.org/',
      apiMappings: [{ prefix: 'nxv', namespace: 'https://mine.example.org/' }],
    });
    const project = (await server.app.inject({ method: 'GET', url: '/v1/projects/org/custom' })).json();
    expect(project.base).toBe('https://data.example.org/');
    expect(project._effectiveApiMappings.filter((m: { prefix: string }) => m.prefix === 'nxv')).toEqual([
      { prefix: 'nxv', namespace: 'https://mine.example.org/' },
    ]);
  });

  test('invalid IRIs and repeated prefixes are reported together', async () => {
    const response = await server.app.inject({
      method: 'PUT',
      url: '/v1/projects/org/invalid',
      headers: alice,
      payload: { base: 'not an iri', apiMappings: [{ prefix: 'a', namespace: 'x' }, { prefix: 'a', namespace: 'https://a/' }] },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()['@type']).toBe('DecodingFailed');
    expect(response.json().reason.split('\n')).toHaveLength(3);
    expect((await server.app.inject({ method: 'GET', url: '/v1/projects/org/invalid' })).statusCode).toBe(404);
  });

  test('a deprecated project refuses writes; a project marked for deletion stops answering', async () => {
    await createProject(server.app, 'org', 'old');
    const deprecated = await server.app.inject({ method: 'DELETE', url: '/v1/projects/org/old?rev=1', headers: alice });
    expect(deprecated.json()._deprecated).toBe(true);
    const write = await server.app.inject({ method: 'POST', url: '/v1/resources/org/old/_', headers: alice, payload: {} });
    expect(write.statusCode).toBe(400);
    expect(write.json()['@type']).toBe('ProjectIsDeprecated');
    const pruned = await server.app.inject({ method: 'DELETE', url: '/v1/projects/org/old?rev=2&prune=true', headers: alice });
    expect(pruned.json()._markedForDeletion).toBe(true);
    const read = await server.app.inject({ method: 'GET', url: '/v1/resources/org/old' });
    expect(read.statusCode).toBe(400);
    expect(read.json()['@type']).toBe('ProjectIsMarkedForDeletion');
  });

  test('a stale revision is 409 IncorrectRev; a missing project is 404 ProjectNotFound', async () => {
    await createProject(server.app, 'org', 'revs');
    const stale = await server.app.inject({ method: 'PUT', url: '/v1/projects/org/revs?rev=7', headers: alice, payload: {} });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().reason).toBe("Incorrect revision '7' provided, expected '1', the resource may have been updated since last seen.");
    const missing = await server.app.inject({ method: 'GET', url: '/v1/projects/org/nothing' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ '@type': 'ProjectNotFound', reason: "Project 'org/nothing' not found." });
  });

  test('the built-in literature project exists, is read-only and cannot be replaced', async () => {
    const project = (await server.app.inject({ method: 'GET', url: '/v1/projects/literature/articles' })).json();
    expect(project).toMatchObject({ _readOnly: true, base: `${BASE}/v1/resources/literature/articles/_/` });
    const create = await server.app.inject({ method: 'PUT', url: '/v1/projects/literature/articles', headers: alice, payload: {} });
    expect(create.statusCode).toBe(409);
    const write = await server.app.inject({ method: 'POST', url: '/v1/resources/literature/articles/_', headers: alice, payload: {} });
    expect(write.statusCode).toBe(400);
    expect(write.json()['@type']).toBe('ProjectIsReadOnly');
    // Its organization cannot be deprecated either (it would then refuse the project with a misleading reason).
    const org = (await server.app.inject({ method: 'GET', url: '/v1/orgs/literature', headers: alice })).json();
    const deprecate = await server.app.inject({ method: 'DELETE', url: `/v1/orgs/literature?rev=${org._rev}`, headers: alice });
    expect(deprecate.statusCode).toBe(400);
    expect(deprecate.json()).toMatchObject({ '@type': 'ProjectIsReadOnly', reason: "Organization 'literature' holds the read-only literature project: it cannot be deprecated." });
    expect((await server.app.inject({ method: 'GET', url: '/v1/orgs/literature', headers: alice })).json()).toMatchObject({ _rev: org._rev, _deprecated: false });
  });

  test('the plugin refuses a server whose path parameters are too short for encoded IRIs', async () => {
    const small = Fastify({ logger: false });
    await expect(small.register(platformApi, serverApiOptions(server)).ready()).rejects.toThrow(/maxParamLength/);
  });

  test('unknown /v1 routes answer 404 in the error shape', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/v1/nothing/here' });
    expect(response.statusCode).toBe(404);
    expect(response.json()['@type']).toBe('NotFound');
  });
});
