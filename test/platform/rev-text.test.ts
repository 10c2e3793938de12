/**
 * `rev` (and the listings' `from` and `size`) are read as Nexus reads them, as an Int parsed from the text:
 * `rev=1.0` or `rev=1e0` is `400 MalformedQueryParam` on every /v1 route that takes a revision, and
 * changes nothing, where the schemas' coercion read them as 1. Leading zeros are digits, as in Nexus.
 */
import { describe, expect, test } from 'vitest';
import { TOKENS, bearer, multipart, serverWithProject } from './helpers.js';

const server = serverWithProject();
const alice = bearer(TOKENS.alice);

type Method = 'GET' | 'PUT' | 'POST' | 'PATCH' | 'DELETE';

function inject(method: Method, url: string, payload?: object) {
  return server().app.inject({ method, url, headers: alice, ...(payload && { payload }) });
}

async function fileUpload(method: Method, url: string) {
  const upload = await multipart('a.txt', `content at ${url}`, 'text/plain');
  return server().app.inject({ method, url, headers: { ...alice, ...upload.headers }, payload: upload.payload });
}

/** The revision each entity the routes below address is at. */
async function revisions(): Promise<Record<string, number>> {
  const revOf = async (url: string) => (await inject('GET', url)).json()._rev as number;
  return {
    org: await revOf('/v1/orgs/org'),
    project: await revOf('/v1/projects/org/proj'),
    acl: (await inject('GET', '/v1/acls/org/proj')).json()._results[0]._rev,
    resource: await revOf('/v1/resources/org/proj/_/cell'),
    file: await revOf('/v1/resources/org/proj/_/f'),
  };
}

/** Every /v1 route taking `?rev=`: method, URL with `{rev}` for the revision, the entity it addresses, and a body. */
const ROUTES: [Method, string, string, object?][] = [
  ['GET', '/v1/orgs/org?rev={rev}', 'org'],
  ['PUT', '/v1/orgs/org?rev={rev}', 'org', { description: 'changed' }],
  ['DELETE', '/v1/orgs/org?rev={rev}', 'org'],
  ['PUT', '/v1/orgs/org/undeprecate?rev={rev}', 'org'],
  ['GET', '/v1/projects/org/proj?rev={rev}', 'project'],
  ['PUT', '/v1/projects/org/proj?rev={rev}', 'project', { description: 'changed' }],
  ['DELETE', '/v1/projects/org/proj?rev={rev}', 'project'],
  ['PUT', '/v1/projects/org/proj/undeprecate?rev={rev}', 'project'],
  ['PUT', '/v1/acls/org/proj?rev={rev}', 'acl', { acl: [{ identity: { '@type': 'Anonymous' }, permissions: ['resources/read'] }] }],
  ['PATCH', '/v1/acls/org/proj?rev={rev}', 'acl', { '@type': 'Append', acl: [{ identity: { '@type': 'Anonymous' }, permissions: ['resources/read'] }] }],
  ['DELETE', '/v1/acls/org/proj?rev={rev}', 'acl'],
  ['GET', '/v1/resources/org/proj/_/cell?rev={rev}', 'resource'],
  ['GET', '/v1/resources/org/proj/_/cell/source?rev={rev}', 'resource'],
  ['GET', '/v1/resources/org/proj/_/cell/tags?rev={rev}', 'resource'],
  ['PUT', '/v1/resources/org/proj/_/cell?rev={rev}', 'resource', { name: 'changed' }],
  ['POST', '/v1/resources/org/proj/_/cell/tags?rev={rev}', 'resource', { tag: 'new', rev: 1 }],
  ['DELETE', '/v1/resources/org/proj/_/cell/tags/kept?rev={rev}', 'resource'],
  ['DELETE', '/v1/resources/org/proj/_/cell?rev={rev}', 'resource'],
  ['PUT', '/v1/resources/org/proj/_/cell/undeprecate?rev={rev}', 'resource'],
  ['GET', '/v1/files/org/proj/f?rev={rev}', 'file'],
  ['GET', '/v1/files/org/proj/f/tags?rev={rev}', 'file'],
  ['PUT', '/v1/files/org/proj/f?rev={rev}', 'file'],
  ['POST', '/v1/files/org/proj/f/tags?rev={rev}', 'file', { tag: 'new', rev: 1 }],
  ['DELETE', '/v1/files/org/proj/f/tags/kept?rev={rev}', 'file'],
  ['DELETE', '/v1/files/org/proj/f?rev={rev}', 'file'],
  ['PUT', '/v1/files/org/proj/f/undeprecate?rev={rev}', 'file'],
];

async function send(method: Method, url: string, body: object | undefined) {
  return url.startsWith('/v1/files/') && method === 'PUT' && !url.includes('/undeprecate') ? fileUpload(method, url) : inject(method, url, body);
}

describe('rev written otherwise than in decimal digits', () => {
  test('is 400 MalformedQueryParam naming rev on every route that takes it, and changes nothing', async () => {
    await inject('PUT', '/v1/resources/org/proj/_/cell', { name: 'cell' });
    await inject('POST', '/v1/resources/org/proj/_/cell/tags?rev=1', { tag: 'kept', rev: 1 });
    await fileUpload('PUT', '/v1/files/org/proj/f');
    await inject('POST', '/v1/files/org/proj/f/tags?rev=1', { tag: 'kept', rev: 1 });
    const before = await revisions();
    expect(Object.values(before).every((rev) => Number.isInteger(rev) && rev >= 1)).toBe(true);

    const answers: unknown[][] = [];
    const expected: unknown[][] = [];
    for (const [method, url, entity, body] of ROUTES) {
      // The current revision, so the request would be taken were it written in digits.
      const current = before[entity]!;
      for (const written of [`${current}.0`, `${current}e0`, `${current * 10}e-1`, `+${current}`]) {
        const response = await send(method, url.replace('{rev}', encodeURIComponent(written)), body);
        answers.push([method, url, written, response.statusCode, response.json()['@type'], response.json().reason]);
        expected.push([method, url, written, 400, 'MalformedQueryParam', `querystring/rev must be an integer written in decimal digits, not '${written}'`]);
      }
    }
    expect(answers).toEqual(expected);
    expect(await revisions()).toEqual(before);
  });

  test("a '+' left unencoded is a space, and the refusal says so", async () => {
    // `rev=+1` arrives as ' 1': the message had quoted a space the user never typed, without a word on why.
    await inject('PUT', '/v1/resources/org/proj/_/plus', { name: 'plus' });
    const response = await send('GET', '/v1/resources/org/proj/_/plus?rev=+1', undefined);
    expect([response.statusCode, response.json()['@type'], response.json().reason]).toEqual([
      400,
      'MalformedQueryParam',
      "querystring/rev must be an integer written in decimal digits, not ' 1' (a '+' in a query string stands for a space; a plus sign is written %2B, and is refused too)",
    ]);
  });

  test('a revision in a tag body is a JSON number, not a text', async () => {
    await inject('PUT', '/v1/resources/org/proj/_/texts', { name: 'texts' });
    const response = await inject('POST', '/v1/resources/org/proj/_/texts/tags?rev=1', { tag: 't', rev: '1' });
    expect([response.statusCode, response.json()['@type']]).toEqual([400, 'DecodingFailed']);
    expect((await inject('GET', '/v1/resources/org/proj/_/texts')).json()._rev).toBe(1);
  });

  test('leading zeros are digits, as in Nexus: rev=01 is revision 1', async () => {
    await inject('PUT', '/v1/resources/org/proj/_/zeros', { name: 'first' });
    const updated = await inject('PUT', '/v1/resources/org/proj/_/zeros?rev=01', { name: 'second' });
    expect([updated.statusCode, updated.json()._rev]).toEqual([200, 2]);
    expect((await inject('GET', '/v1/resources/org/proj/_/zeros?rev=001')).json().name).toBe('first');
  });

  test('a negative revision is refused by its bound, as before', async () => {
    const response = await inject('GET', '/v1/orgs/org?rev=-1');
    expect([response.statusCode, response.json()['@type'], response.json().reason]).toEqual([400, 'MalformedQueryParam', "querystring/rev must be at least 1, not '-1'"]);
  });
});

describe('listing pages', () => {
  test.each([
    ['/v1/resources/org/proj?size=2e1', 'size'],
    ['/v1/files/org/proj?size=20.0', 'size'],
    ['/v1/projects?from=0.0', 'from'],
  ])('%s is 400 MalformedQueryParam: from and size are integers written in digits too', async (url, name) => {
    const response = await inject('GET', url);
    expect([response.statusCode, response.json()['@type']]).toEqual([400, 'MalformedQueryParam']);
    expect(response.json().reason).toContain(`querystring/${name} must be an integer written in decimal digits`);
  });
});
