/** Undeprecating resources and files (Nexus's `PUT …/undeprecate?rev=`): a new revision, payload and content kept. */
import { describe, expect, test } from 'vitest';
import { TOKENS, bearer, createProject, multipart, serverWithProject } from './helpers.js';

const server = serverWithProject();
const alice = bearer(TOKENS.alice);

function inject(method: 'GET' | 'PUT' | 'DELETE', url: string, payload?: object) {
  return server().app.inject({ method, url, headers: alice, ...(payload && { payload }) });
}

describe('undeprecating a resource', () => {
  test('makes a new revision that can be changed again; the deprecated revision stays as it was', async () => {
    await inject('PUT', '/v1/resources/org/proj/_/cell', { '@type': 'Neuron', name: 'a' });
    expect((await inject('DELETE', '/v1/resources/org/proj/_/cell?rev=1')).json()._deprecated).toBe(true);

    const undeprecated = await inject('PUT', '/v1/resources/org/proj/_/cell/undeprecate?rev=2');
    expect(undeprecated.statusCode).toBe(200);
    expect(undeprecated.json()).toMatchObject({ '@type': 'Neuron', _rev: 3, _deprecated: false });
    expect((await inject('GET', '/v1/resources/org/proj/_/cell/source')).json()).toEqual({ '@type': 'Neuron', name: 'a' });
    expect((await inject('GET', '/v1/resources/org/proj/_/cell?rev=2')).json()._deprecated).toBe(true);
    expect((await inject('PUT', '/v1/resources/org/proj/_/cell?rev=3', { name: 'b' })).statusCode).toBe(200);
  });

  test('a live resource, a stale revision or a missing one is refused, and nothing changes', async () => {
    const live = await inject('PUT', '/v1/resources/org/proj/_/cell/undeprecate?rev=4');
    expect(live.statusCode).toBe(400);
    expect(live.json()).toMatchObject({ '@type': 'ResourceIsNotDeprecated' });
    await inject('DELETE', '/v1/resources/org/proj/_/cell?rev=4');
    const stale = await inject('PUT', '/v1/resources/org/proj/_/cell/undeprecate?rev=4');
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toMatchObject({ '@type': 'IncorrectRev' });
    expect((await inject('PUT', '/v1/resources/org/proj/_/nothing/undeprecate?rev=1')).json()).toMatchObject({ '@type': 'ResourceNotFound' });
    expect((await inject('PUT', '/v1/resources/org/proj/_/cell/undeprecate')).statusCode).toBe(400);
    expect((await inject('GET', '/v1/resources/org/proj/_/cell')).json()).toMatchObject({ _rev: 5, _deprecated: true });
  });
});

describe('undeprecating a file', () => {
  test('keeps its content; a file is not undeprecated as a resource', async () => {
    const upload = await multipart('a.txt', 'the bytes', 'text/plain');
    await server().app.inject({ method: 'PUT', url: '/v1/files/org/proj/doc', headers: { ...alice, ...upload.headers }, payload: upload.payload });
    await inject('DELETE', '/v1/files/org/proj/doc?rev=1');
    expect((await inject('PUT', '/v1/resources/org/proj/_/doc/undeprecate?rev=2')).json()['@type']).toBe('ResourceIsAFile');

    const undeprecated = await inject('PUT', '/v1/files/org/proj/doc/undeprecate?rev=2');
    expect(undeprecated.statusCode).toBe(200);
    expect(undeprecated.json()).toMatchObject({ '@type': 'File', _rev: 3, _deprecated: false, _filename: 'a.txt' });
    expect((await inject('GET', '/v1/files/org/proj/doc')).body).toBe('the bytes');
  });
});

describe('undeprecating projects and organizations', () => {
  test('a deprecated project takes writes again; one marked for deletion stays so', async () => {
    await createProject(server().app, 'org', 'old');
    await inject('DELETE', '/v1/projects/org/old?rev=1');
    expect((await inject('PUT', '/v1/resources/org/old/_/x', { a: 1 })).json()['@type']).toBe('ProjectIsDeprecated');
    const undeprecated = await inject('PUT', '/v1/projects/org/old/undeprecate?rev=2');
    expect(undeprecated.statusCode).toBe(200);
    expect(undeprecated.json()).toMatchObject({ _rev: 3, _deprecated: false, _markedForDeletion: false });
    expect((await inject('PUT', '/v1/resources/org/old/_/x', { a: 1 })).statusCode).toBe(201);
    expect((await inject('PUT', '/v1/projects/org/old/undeprecate?rev=3')).json()['@type']).toBe('ProjectIsNotDeprecated');

    await createProject(server().app, 'org', 'pruned');
    await inject('DELETE', '/v1/projects/org/pruned?rev=1&prune=true');
    expect((await inject('PUT', '/v1/projects/org/pruned/undeprecate?rev=2')).json()['@type']).toBe('ProjectIsMarkedForDeletion');
  });

  test('a deprecated organization takes projects again; its projects wait for it', async () => {
    await createProject(server().app, 'closed', 'p');
    await inject('DELETE', '/v1/projects/closed/p?rev=1');
    await inject('DELETE', '/v1/orgs/closed?rev=1');
    expect((await inject('PUT', '/v1/projects/closed/p/undeprecate?rev=2')).json()['@type']).toBe('OrganizationIsDeprecated');
    expect((await inject('PUT', '/v1/orgs/closed/undeprecate?rev=1')).json()['@type']).toBe('IncorrectRev');

    const org = await inject('PUT', '/v1/orgs/closed/undeprecate?rev=2');
    expect(org.statusCode).toBe(200);
    expect(org.json()).toMatchObject({ _rev: 3, _deprecated: false });
    expect((await inject('PUT', '/v1/projects/closed/q', {})).statusCode).toBe(201);
    expect((await inject('PUT', '/v1/projects/closed/p/undeprecate?rev=2')).statusCode).toBe(200);
    expect((await inject('PUT', '/v1/orgs/closed/undeprecate?rev=3')).json()['@type']).toBe('OrganizationIsNotDeprecated');
  });
});
