/**
 * Names that are properties of every JavaScript object (`constructor`, `toString`, `valueOf`, `__proto__`) given as a
 * tag or a media type: they had been found on the prototype of the tags or aliases looked up, a 500 on reads
 * (`?tag=constructor`, an archive entry's tag, `Accept: constructor`) and a tag deletion that made a revision for a
 * tag that did not exist (an exploratory round's findings).
 */
import { describe, expect, test } from 'vitest';
import { TOKENS, bearer, multipart, serverWithProject } from './helpers.js';

const server = serverWithProject();
const alice = bearer(TOKENS.alice);
const PROTOTYPE_NAMES = ['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__proto__'];

function inject(method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, payload?: object, headers: Record<string, string> = {}) {
  return server().app.inject({ method, url, headers: { ...alice, ...headers }, ...(payload && { payload }) });
}

describe('a tag named as a property of every object', () => {
  test('read where no such tag exists: 404 TagNotFound, on resources, their sources, files and their contents', async () => {
    await inject('PUT', '/v1/resources/org/proj/_/plain', { name: 'plain' });
    const upload = await multipart('a.txt', 'a', 'text/plain');
    await server().app.inject({ method: 'PUT', url: '/v1/files/org/proj/plain-file', headers: { ...alice, ...upload.headers }, payload: upload.payload });
    const answers = [];
    for (const name of PROTOTYPE_NAMES) {
      for (const url of ['/v1/resources/org/proj/_/plain', '/v1/resources/org/proj/_/plain/source', '/v1/files/org/proj/plain-file']) {
        for (const accept of ['application/json', '*/*']) {
          const response = await inject('GET', `${url}?tag=${encodeURIComponent(name)}`, undefined, { accept });
          answers.push([name, url, accept, response.statusCode, response.json()['@type']]);
        }
      }
    }
    expect(answers.filter(([, , , status, type]) => status !== 404 || type !== 'TagNotFound')).toEqual([]);
  });

  test('deleted where no such tag exists: 404 TagNotFound, and no revision is made', async () => {
    await inject('PUT', '/v1/resources/org/proj/_/untagged', { name: 'untagged' });
    for (const name of PROTOTYPE_NAMES) {
      const response = await inject('DELETE', `/v1/resources/org/proj/_/untagged/tags/${encodeURIComponent(name)}?rev=1`);
      expect([name, response.statusCode, response.json()['@type']]).toEqual([name, 404, 'TagNotFound']);
    }
    expect((await inject('GET', '/v1/resources/org/proj/_/untagged')).json()._rev).toBe(1);
  });

  test('given as a tag, other than __proto__, is stored, read, listed and deleted as any other', async () => {
    await inject('PUT', '/v1/resources/org/proj/_/named', { name: 'first' });
    await inject('PUT', '/v1/resources/org/proj/_/named?rev=1', { name: 'second' });
    expect((await inject('POST', '/v1/resources/org/proj/_/named/tags?rev=2', { tag: 'constructor', rev: 1 })).statusCode).toBe(201);
    expect((await inject('GET', '/v1/resources/org/proj/_/named?tag=constructor')).json().name).toBe('first');
    expect((await inject('GET', '/v1/resources/org/proj/_/named/tags')).json().tags).toEqual([{ tag: 'constructor', rev: 1 }]);
    expect((await inject('DELETE', '/v1/resources/org/proj/_/named/tags/constructor?rev=3')).statusCode).toBe(200);
    expect((await inject('GET', '/v1/resources/org/proj/_/named?tag=constructor')).statusCode).toBe(404);
  });

  test("in an archive entry where no such tag exists: the download is 404 naming the entry (as for any missing tag), or leaves it out with ignoreNotFound", async () => {
    await inject('PUT', '/v1/resources/org/proj/_/archived', { name: 'archived' });
    const created = await inject(
      'PUT',
      '/v1/archives/org/proj/prototype-tag',
      { resources: [{ '@type': 'Resource', resourceId: 'archived', tag: 'constructor', path: '/a.json' }] },
      { accept: 'application/json' },
    );
    expect(created.statusCode).toBe(201);
    const download = await inject('GET', '/v1/archives/org/proj/prototype-tag', undefined, { accept: 'application/zip' });
    expect([download.statusCode, download.json()]).toMatchObject([404, { '@type': 'ResourceNotFound', reason: expect.stringContaining('/archived?tag=constructor') }]);
    const skipping = await inject('GET', '/v1/archives/org/proj/prototype-tag?ignoreNotFound=true', undefined, { accept: 'application/zip' });
    expect([skipping.statusCode, skipping.headers['content-type']]).toEqual([200, 'application/zip']);
  });
});

describe('an Accept naming a property of every object', () => {
  test.each(['constructor', '__proto__', 'toString, application/json'])('%s: a negotiating /v1 route answers 406 or its JSON, not 500', async (accept) => {
    await inject('PUT', '/v1/resources/org/proj/_/negotiated', { name: 'negotiated' });
    const read = await inject('GET', '/v1/resources/org/proj/_/negotiated', undefined, { accept });
    expect([accept, read.statusCode]).toEqual([accept, accept.includes('application/json') ? 200 : 406]);
  });
});
