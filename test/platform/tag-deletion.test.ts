/** Deleting a tag (Nexus's `DELETE …/tags/{tag}?rev=`): a new revision without it; the revision it named stays. */
import { describe, expect, test } from 'vitest';
import { TOKENS, bearer, multipart, serverWithProject } from './helpers.js';

const server = serverWithProject();
const alice = bearer(TOKENS.alice);

function inject(method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, payload?: object) {
  return server().app.inject({ method, url, headers: alice, ...(payload && { payload }) });
}

describe('deleting a tag', () => {
  test('of a resource: a new revision without it, the other tags and every revision kept', async () => {
    await inject('PUT', '/v1/resources/org/proj/_/cell', { '@type': 'Neuron', name: 'a' });
    await inject('POST', '/v1/resources/org/proj/_/cell/tags?rev=1', { tag: 'draft', rev: 1 });
    await inject('POST', '/v1/resources/org/proj/_/cell/tags?rev=2', { tag: 'kept', rev: 1 });

    const deleted = await inject('DELETE', '/v1/resources/org/proj/_/cell/tags/draft?rev=3');
    expect([deleted.statusCode, deleted.json()._rev]).toEqual([200, 4]);
    expect((await inject('GET', '/v1/resources/org/proj/_/cell/tags')).json().tags).toEqual([{ rev: 1, tag: 'kept' }]);
    expect((await inject('GET', '/v1/resources/org/proj/_/cell?tag=draft')).statusCode).toBe(404);
    expect((await inject('GET', '/v1/resources/org/proj/_/cell?tag=kept')).json().name).toBe('a');
    expect((await inject('GET', '/v1/resources/org/proj/_/cell?rev=1')).statusCode).toBe(200);
  });

  test('that does not exist is 404 TagNotFound, a stale rev 409, and nothing is written', async () => {
    await inject('PUT', '/v1/resources/org/proj/_/plain', { name: 'p' });
    const missing = await inject('DELETE', '/v1/resources/org/proj/_/plain/tags/nope?rev=1');
    expect([missing.statusCode, missing.json()['@type']]).toEqual([404, 'TagNotFound']);
    await inject('POST', '/v1/resources/org/proj/_/plain/tags?rev=1', { tag: 't', rev: 1 });
    expect((await inject('DELETE', '/v1/resources/org/proj/_/plain/tags/t?rev=1')).statusCode).toBe(409);
    expect((await inject('GET', '/v1/resources/org/proj/_/plain')).json()._rev).toBe(2);
  });

  test('of a file: its content stays reachable by revision, no longer by the tag', async () => {
    const upload = await multipart('a.txt', 'first', 'text/plain');
    await server().app.inject({ method: 'PUT', url: '/v1/files/org/proj/f', headers: { ...alice, ...upload.headers }, payload: upload.payload });
    await inject('POST', '/v1/files/org/proj/f/tags?rev=1', { tag: 'v1', rev: 1 });
    const deleted = await inject('DELETE', '/v1/files/org/proj/f/tags/v1?rev=2');
    expect([deleted.statusCode, deleted.json()._rev]).toEqual([200, 3]);
    expect((await inject('GET', '/v1/files/org/proj/f/tags')).json().tags).toEqual([]);
    expect((await server().app.inject({ method: 'GET', url: '/v1/files/org/proj/f?tag=v1', headers: alice })).statusCode).toBe(404);
    expect((await server().app.inject({ method: 'GET', url: '/v1/files/org/proj/f?rev=1', headers: alice })).body).toBe('first');
  });
});
