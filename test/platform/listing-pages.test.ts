/**
 * Resource and file listings as Nexus pages them: `_next` links to the following page, and the filters
 * `deprecated`, `type`, `createdBy` and `updatedBy`, whose `_total` counts the entities they keep. The
 * resource listing holds the project's files too, among the resources in id order; the file listing only files.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { nextPageLink } from '../../src/http/platform/listing-pages.js';
import { MAX_LISTING_FROM } from '../../src/http/platform/schemas.js';
import { NXV } from '../../src/platform/contexts.js';
import { OPERATOR } from '../../src/platform/identities.js';
import { RevisionStore } from '../../src/platform/revisions.js';
import type { Store, Table, TableName } from '../../src/platform/store/store.js';
import { BASE, DEFAULT_AUTH, TOKENS, type TestServer, bearer, createProject, multipart, startServer } from './helpers.js';

const alice = bearer(TOKENS.alice);
const bob = bearer(TOKENS.bob);
const vocab = `${BASE}/v1/vocabs/org/proj/`;
const base = `${BASE}/v1/resources/org/proj/_/`;
const ALICE = `${BASE}/v1/realms/local/users/alice`;
const BOB = `${BASE}/v1/realms/local/users/bob`;

let server: TestServer;

async function call(method: 'GET' | 'PUT' | 'DELETE', url: string, headers: Record<string, string>, payload?: object) {
  const response = await server.app.inject({ method, url, headers, ...(payload && { payload }) });
  if (response.statusCode >= 300) throw new Error(`${method} ${url}: ${response.statusCode} ${response.body}`);
  return response.json();
}

async function upload(id: string, headers: Record<string, string>, project = 'proj') {
  const body = await multipart(`${id}.txt`, id, 'text/plain');
  const response = await server.app.inject({ method: 'PUT', url: `/v1/files/org/${project}/${id}`, headers: { ...headers, ...body.headers }, payload: body.payload });
  if (response.statusCode !== 201) throw new Error(`upload ${id}: ${response.statusCode} ${response.body}`);
}

beforeAll(async () => {
  server = await startServer({
    auth: { ...DEFAULT_AUTH, acls: { ...DEFAULT_AUTH.acls, '/org': { 'local/bob': ['resources/read', 'resources/write', 'files/write'] } } },
  });
  await createProject(server.app, 'org', 'proj', { apiMappings: [{ prefix: 'ex', namespace: 'https://example.org/things/' }] });
  await call('PUT', '/v1/resources/org/proj/_/a-person', alice, { '@type': 'Person' });
  await call('PUT', '/v1/resources/org/proj/_/b-neuron', alice, { '@context': { ex: 'https://example.org/things/' }, '@type': ['ex:Neuron', 'Person'] });
  await call('PUT', '/v1/resources/org/proj/_/c-cell', bob, { '@type': 'https://example.org/things/Cell' });
  await call('PUT', '/v1/resources/org/proj/_/d-untyped', bob, { name: 'first' });
  await call('PUT', '/v1/resources/org/proj/_/d-untyped?rev=1', alice, { name: 'second' });
  await call('PUT', '/v1/resources/org/proj/_/e-gone', alice, { '@type': 'Person' });
  await call('DELETE', '/v1/resources/org/proj/_/e-gone?rev=1', bob);
  await upload('f1', alice);
  await upload('f2', bob);
  await call('DELETE', '/v1/files/org/proj/f2?rev=1', alice);
  await createProject(server.app, 'org', 'many');
  await createProject(server.app, 'org', 'other');
  for (let i = 0; i < 7; i++) await call('PUT', `/v1/resources/org/many/_/r${i}`, alice, { i });
  // Files and resources whose ids alternate, written in another order than their ids'.
  await createProject(server.app, 'org', 'mixed');
  await upload('m6-file', alice, 'mixed');
  await call('PUT', '/v1/resources/org/mixed/_/m1-resource', alice, { '@type': 'Person' });
  await upload('m2-file', bob, 'mixed');
  await call('PUT', '/v1/resources/org/mixed/_/m5-resource', bob, { '@type': 'Person' });
  await upload('m4-file', alice, 'mixed');
  await call('PUT', '/v1/resources/org/mixed/_/m3-resource', alice, { name: 'untyped' });
  await call('DELETE', '/v1/files/org/mixed/m4-file?rev=1', alice);
});
afterAll(() => server.close());

/** The ids listed at `url`, the base left out, with the answer. */
async function listed(url: string) {
  const body = await call('GET', url, alice);
  return { body, ids: (body._results as { '@id': string }[]).map((entry) => entry['@id'].replace(base, '').replace(`${BASE}/v1/resources/org/many/_/`, '')) };
}

describe('_next', () => {
  test('a middle page links the next one, with the same path and parameters; the last page links none', async () => {
    const first = await listed('/v1/resources/org/many?size=3');
    expect(first.body._total).toBe(7);
    expect(first.body._next).toBe(`${BASE}/v1/resources/org/many?from=3&size=3`);
    const middle = await listed('/v1/resources/org/many?from=3&size=3');
    expect(middle.ids).toEqual(['r3', 'r4', 'r5']);
    expect(middle.body._next).toBe(`${BASE}/v1/resources/org/many?from=6&size=3`);
    const last = await listed('/v1/resources/org/many?from=6&size=3');
    expect(last.ids).toEqual(['r6']);
    expect(last.body).not.toHaveProperty('_next');
    expect((await listed('/v1/resources/org/many?from=4&size=3')).body).not.toHaveProperty('_next');
  });

  test('following _next pages through every entry exactly once, in order', async () => {
    const seen: string[] = [];
    let next: string | undefined = `${BASE}/v1/resources/org/many?size=2`;
    while (next !== undefined) {
      expect(next.startsWith(BASE)).toBe(true);
      const page = await listed(next.slice(BASE.length));
      seen.push(...page.ids);
      next = page.body._next;
    }
    expect(seen).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6']);
  });

  test('a filtered page links the next with its filters', async () => {
    const first = await listed('/v1/resources/org/proj?type=Person&size=2');
    expect(first.ids).toEqual(['a-person', 'b-neuron']);
    expect(first.body._total).toBe(3);
    const next = new URL(first.body._next);
    expect(`${next.origin}${next.pathname}`).toBe(`${BASE}/v1/resources/org/proj`);
    expect(Object.fromEntries(next.searchParams)).toEqual({ type: 'Person', from: '2', size: '2' });
    const last = await listed(first.body._next.slice(BASE.length));
    expect(last.ids).toEqual(['e-gone']);
    expect(last.body).not.toHaveProperty('_next');
  });

  test('the file listing and the project listing link their next pages too', async () => {
    const files = await call('GET', '/v1/files/org/proj?size=1', alice);
    expect(files._next).toBe(`${BASE}/v1/files/org/proj?from=1&size=1`);
    expect((await call('GET', '/v1/files/org/proj?from=1&size=1', alice))).not.toHaveProperty('_next');
    const projects = await call('GET', '/v1/projects?size=1', alice);
    expect(projects._total).toBeGreaterThan(1);
    expect(projects._next).toBe(`${BASE}/v1/projects?from=1&size=1&permission=resources%2Fread`);
  });

  test('no _next leads past the deepest page start a listing takes', () => {
    expect(nextPageLink(BASE, '/v1/x', { from: MAX_LISTING_FROM - 10, size: 10 }, 5_000_000)).toBe(`${BASE}/v1/x?from=${MAX_LISTING_FROM}&size=10`);
    expect(nextPageLink(BASE, '/v1/x', { from: MAX_LISTING_FROM - 9, size: 10 }, 5_000_000)).toBeUndefined();
    expect(nextPageLink(BASE, '/v1/x', { from: MAX_LISTING_FROM, size: 10 }, 5_000_000)).toBeUndefined();
  });
});

describe('filters of the resource listing', () => {
  test.each([
    ['deprecated=true', ['e-gone', 'f2']],
    ['deprecated=false', ['a-person', 'b-neuron', 'c-cell', 'd-untyped', 'f1']],
    ['type=Person', ['a-person', 'b-neuron', 'e-gone']],
    ['type=nxv:File', ['f1', 'f2']],
    [`type=${encodeURIComponent(`${NXV}File`)}`, ['f1', 'f2']],
    [`type=${encodeURIComponent(`${vocab}Person`)}`, ['a-person', 'b-neuron', 'e-gone']],
    ['type=ex:Neuron', ['b-neuron']],
    ['type=ex:Cell', ['c-cell']],
    [`type=${encodeURIComponent('https://example.org/things/Cell')}`, ['c-cell']],
    ['type=Nothing', []],
    [`createdBy=${encodeURIComponent(BOB)}`, ['c-cell', 'd-untyped', 'f2']],
    [`createdBy=${encodeURIComponent(ALICE)}`, ['a-person', 'b-neuron', 'e-gone', 'f1']],
    [`updatedBy=${encodeURIComponent(ALICE)}`, ['a-person', 'b-neuron', 'd-untyped', 'f1', 'f2']],
    [`updatedBy=${encodeURIComponent(BOB)}`, ['c-cell', 'e-gone']],
    [`createdBy=${encodeURIComponent(`${BASE}/v1/realms/local/users/carol`)}`, []],
  ])('%s lists %j, and _total counts them', async (query, ids) => {
    const page = await listed(`/v1/resources/org/proj?${query}`);
    expect(page.ids).toEqual(ids);
    expect(page.body._total).toBe(ids.length);
  });

  test.each([
    ['type=Person&deprecated=false', ['a-person', 'b-neuron']],
    [`createdBy=${encodeURIComponent(ALICE)}&updatedBy=${encodeURIComponent(BOB)}`, ['e-gone']],
    [`deprecated=false&createdBy=${encodeURIComponent(BOB)}&type=ex:Cell`, ['c-cell']],
    [`deprecated=true&createdBy=${encodeURIComponent(BOB)}`, ['f2']],
    [`deprecated=false&createdBy=${encodeURIComponent(BOB)}`, ['c-cell', 'd-untyped']],
    ['type=nxv:File&deprecated=false', ['f1']],
  ])('combined: %s lists %j', async (query, ids) => {
    const page = await listed(`/v1/resources/org/proj?${query}`);
    expect(page.ids).toEqual(ids);
    expect(page.body._total).toBe(ids.length);
  });

  test('a filtered page is cut from the filtered entries: _total counts them all', async () => {
    const page = await listed('/v1/resources/org/proj?deprecated=false&from=1&size=2');
    expect(page.ids).toEqual(['b-neuron', 'c-cell']);
    expect(page.body._total).toBe(5);
  });

  describe('types not recorded at write', () => {
    const otherBase = `${BASE}/v1/resources/org/other/_/`;
    const otherIds = async (query: string) =>
      ((await call('GET', `/v1/resources/org/other?${query}`, alice))._results as { '@id': string }[]).map((entry) => entry['@id'].replace(otherBase, ''));

    test('a revision written before types were recorded is matched by its type as written', async () => {
      const revisions = await RevisionStore.open(server.platform.store, Date.now);
      await revisions.create('org/other', `${otherBase}old`, 'resource', { source: { '@type': ['Person', 'https://example.org/things/Cell'] } }, OPERATOR);
      expect(await otherIds('type=Person')).toEqual(['old']);
      expect(await otherIds(`type=${encodeURIComponent('https://example.org/things/Cell')}`)).toEqual(['old']);
    });

    test('a payload changed without recording types is matched by its new type, never the old one', async () => {
      const revisions = await RevisionStore.open(server.platform.store, Date.now);
      await revisions.create('org/other', `${otherBase}changed`, 'resource', { source: { '@type': 'Neuron' }, types: [`${BASE}/v1/vocabs/org/other/Neuron`] }, OPERATOR);
      await revisions.update('org/other', `${otherBase}changed`, 'resource', 1, OPERATOR, () => ({ source: { '@type': 'Glia' } }));
      expect(await otherIds('type=Neuron')).toEqual([]);
      expect(await otherIds('type=Glia')).toEqual(['changed']);
    });
  });
});

describe('files in the resource listing', () => {
  const mixedPath = '/v1/resources/org/mixed';
  const mixedBase = `${BASE}${mixedPath}/_/`;
  const EVERY = ['m1-resource', 'm2-file', 'm3-resource', 'm4-file', 'm5-resource', 'm6-file'];
  const mixed = async (url: string) => {
    const body = await call('GET', url, alice);
    return { body, ids: (body._results as { '@id': string }[]).map((entry) => entry['@id'].replace(mixedBase, '')) };
  };

  test('files are listed among the resources in id order, each as the file listing shows it', async () => {
    const { body, ids } = await mixed(mixedPath);
    expect(ids).toEqual(EVERY);
    expect(body._total).toBe(6);
    const files = (await call('GET', '/v1/files/org/mixed', alice))._results as { '@id': string }[];
    expect(body._results.filter((entry: { '@type'?: unknown }) => entry['@type'] === 'File')).toEqual(files);
    const encoded = (id: string) => encodeURIComponent(`${mixedBase}${id}`);
    expect(body._results[1]).toMatchObject({ '@type': 'File', _self: `${BASE}/v1/files/org/mixed/${encoded('m2-file')}`, _filename: 'm2-file.txt', _createdBy: BOB });
    expect(body._results[0]).toMatchObject({ '@type': 'Person', _self: `${mixedBase}${encoded('m1-resource')}` });
  });

  test.each([1, 2, 4])('following _next at size %i pages through resources and files once each, in id order', async (size) => {
    const seen: string[] = [];
    let next: string | undefined = `${BASE}${mixedPath}?size=${size}`;
    while (next !== undefined) {
      const page = await mixed(next.slice(BASE.length));
      expect(page.body._total).toBe(6);
      seen.push(...page.ids);
      next = page.body._next;
    }
    expect(seen).toEqual(EVERY);
  });

  test('a page is cut from the mix: from and size count files and resources alike', async () => {
    const page = await mixed(`${mixedPath}?from=1&size=3`);
    expect(page.ids).toEqual(['m2-file', 'm3-resource', 'm4-file']);
    expect(page.body._next).toBe(`${BASE}${mixedPath}?from=4&size=3`);
  });

  test('type=nxv:File pages through the files alone; other filters keep files and resources alike', async () => {
    const first = await mixed(`${mixedPath}?type=nxv:File&size=2`);
    expect(first.ids).toEqual(['m2-file', 'm4-file']);
    expect(first.body._total).toBe(3);
    const last = await mixed(first.body._next.slice(BASE.length));
    expect(last.ids).toEqual(['m6-file']);
    expect(last.body).not.toHaveProperty('_next');
    const live = await mixed(`${mixedPath}?deprecated=false&size=3`);
    expect(live.ids).toEqual(['m1-resource', 'm2-file', 'm3-resource']);
    expect(live.body._total).toBe(5);
    expect((await mixed(live.body._next.slice(BASE.length))).ids).toEqual(['m5-resource', 'm6-file']);
    expect((await mixed(`${mixedPath}?createdBy=${encodeURIComponent(BOB)}`)).ids).toEqual(['m2-file', 'm5-resource']);
    expect((await mixed(`${mixedPath}?type=Person`)).ids).toEqual(['m1-resource', 'm5-resource']);
  });

  test('the file listing of the same project holds its files only', async () => {
    const files = await mixed('/v1/files/org/mixed');
    expect(files.ids).toEqual(['m2-file', 'm4-file', 'm6-file']);
    expect(files.body._total).toBe(3);
    expect((await mixed('/v1/files/org/mixed?type=Person')).ids).toEqual([]);
  });

  test("a filtered listing's bound counts the files it reads with the resources", async () => {
    // org/mixed holds 3 resources and 3 files: a store filtering at most 6 lists them, one filtering at most 5 refuses.
    const within = await RevisionStore.open(server.platform.store, Date.now, 6);
    expect((await within.list('org/mixed', 'any', 0, 10, (state) => state.kind === 'file')).total).toBe(3);
    const beyond = await RevisionStore.open(server.platform.store, Date.now, 5);
    await expect(beyond.list('org/mixed', 'any', 0, 10, () => true)).rejects.toMatchObject({
      status: 400,
      type: 'FilteredListingTooLarge',
      reason: expect.stringContaining("'org/mixed' holds 6 resources and files"),
    });
    // The file listing reads the files alone.
    expect((await beyond.list('org/mixed', 'file', 0, 10, () => true)).total).toBe(3);
  });
});

describe('filters of the file listing', () => {
  const fileIds = async (query: string) =>
    ((await call('GET', `/v1/files/org/proj?${query}`, alice)) as { _total: number; _results: { '@id': string }[] });

  test.each([
    ['deprecated=true', ['f2']],
    ['deprecated=false', ['f1']],
    ['type=nxv:File', ['f1', 'f2']],
    ['type=Person', []],
    [`createdBy=${encodeURIComponent(BOB)}`, ['f2']],
    [`updatedBy=${encodeURIComponent(ALICE)}`, ['f1', 'f2']],
    [`createdBy=${encodeURIComponent(BOB)}&deprecated=false`, []],
    [`updatedBy=${encodeURIComponent(ALICE)}&deprecated=true&type=nxv:File`, ['f2']],
  ])('%s lists %j', async (query, ids) => {
    const page = await fileIds(query);
    expect(page._results.map((entry) => entry['@id'].replace(base, ''))).toEqual(ids);
    expect(page._total).toBe(ids.length);
  });
});

describe('refused filters', () => {
  test.each([
    ['/v1/resources/org/proj?deprecated=maybe', 'deprecated'],
    ['/v1/files/org/proj?deprecated=maybe', 'deprecated'],
    ['/v1/resources/org/proj?type=', 'type'],
    ['/v1/resources/org/proj?createdBy=', 'createdBy'],
    ['/v1/resources/org/proj?sort=_createdAt', 'sort'],
    ['/v1/files/org/proj?rev=1', 'rev'],
  ])('%s is 400 MalformedQueryParam naming %s', async (url, name) => {
    const response = await server.app.inject({ method: 'GET', url, headers: alice });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ '@type': 'MalformedQueryParam' });
    expect(response.json().reason).toContain(name);
  });

  test('a type that expands to no IRI is 400 MalformedQueryParam', async () => {
    const response = await server.app.inject({ method: 'GET', url: `/v1/resources/org/proj?type=${encodeURIComponent('a b')}`, headers: alice });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ '@type': 'MalformedQueryParam' });
    expect(response.json().reason).toContain("'a b'");
  });

  test.each(['createdBy', 'updatedBy'])('a %s that is not an IRI is 400 MalformedQueryParam', async (name) => {
    const response = await server.app.inject({ method: 'GET', url: `/v1/resources/org/proj?${name}=alice`, headers: alice });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ '@type': 'MalformedQueryParam' });
    expect(response.json().reason).toContain(`'${name}' filter 'alice'`);
  });

  test('the read-only literature project lists its resources without filters', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/v1/resources/literature/articles?deprecated=false', headers: alice });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ '@type': 'MalformedQueryParam' });
    const unfiltered = await call('GET', '/v1/resources/literature/articles?size=1', alice);
    expect(unfiltered._total).toBe(2);
    expect(unfiltered._next).toBe(`${BASE}/v1/resources/literature/articles?from=1&size=1`);
  });

  test('a project holding more entities of the kind than a filtered listing reads is refused, not walked', async () => {
    // org/many holds 7 resources; a store that filters at most 7 lists them, one that filters at most 6 refuses.
    const within = await RevisionStore.open(server.platform.store, Date.now, 7);
    expect((await within.list('org/many', 'resource', 0, 10, (state) => state.id.endsWith('r3'))).total).toBe(1);
    // Its revisions are never read: refused on the index's count alone.
    const { store } = server.platform;
    let revisionsRead = 0;
    const counting: Store = {
      ...store,
      table: <V>(name: TableName): Table<V> => {
        const table = store.table<V>(name);
        if (name !== 'revisions') return table;
        const read = <A extends unknown[], R>(method: (...args: A) => R) => (...args: A) => (revisionsRead++, method(...args));
        return { ...table, get: read(table.get), getMany: read(table.getMany), range: read(table.range) };
      },
    };
    const beyond = await RevisionStore.open(counting, Date.now, 6);
    revisionsRead = 0;
    await expect(beyond.list('org/many', 'resource', 0, 10, () => true)).rejects.toMatchObject({
      status: 400,
      type: 'FilteredListingTooLarge',
      reason: expect.stringContaining("'org/many' holds 7 resources"),
    });
    expect(revisionsRead).toBe(0);
    // Without a filter the listing pages through its index: never refused.
    expect((await beyond.list('org/many', 'resource', 5, 10)).total).toBe(7);
  });
});
