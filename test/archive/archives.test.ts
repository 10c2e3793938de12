import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MAX_CONTEXT_DEFINITIONS, MAX_CONTEXT_WORK } from '../../src/platform/context-bound.js';
import { flatEncode } from '../../src/archive/paths.js';
import { BASE, DEFAULT_AUTH, TOKENS, type TestServer, bearer, createProject, multipart, startServer } from '../platform/helpers.js';
import { unzip } from './unzip.js';

const AUTH = {
  tokens: DEFAULT_AUTH.tokens,
  acls: {
    '/': { 'local/alice': ['*'] },
    '/org/proj': { 'local/bob': ['resources/read'] },
    '/org': { 'local/carol': ['resources/read'] },
  },
};

let now = Date.parse('2025-06-01T00:00:00Z');
let server: TestServer;
const alice = bearer(TOKENS.alice);
const base = `${BASE}/v1/resources/org/proj/_/`;
const ids: Record<string, string> = {};

async function uploadFile(id: string, filename: string, content: string, rev?: number) {
  const body = await multipart(filename, content, 'text/plain');
  const url = `/v1/files/org/proj/${id}${rev ? `?rev=${rev}` : ''}`;
  const response = await server.app.inject({ method: 'PUT', url, headers: { ...alice, ...body.headers }, payload: body.payload });
  if (response.statusCode >= 300) throw new Error(response.body);
  return response.json();
}

beforeAll(async () => {
  server = await startServer({ auth: AUTH, clock: () => now });
  await createProject(server.app, 'org', 'proj');
  await createProject(server.app, 'org', 'secret');
  await createProject(server.app, 'org', 'mapped', { apiMappings: [{ prefix: 'test-resource', namespace: 'https://dev.nexus.test.com/simplified-resource/' }] });
  const put = (url: string, payload: object) => server.app.inject({ method: url.includes('tags') ? 'POST' : 'PUT', url, headers: alice, payload });
  await put('/v1/resources/org/proj/_/r1', { '@type': 'Person', name: 'First', knows: { '@id': 'r2' } });
  await put('/v1/resources/org/proj/_/r1?rev=1', { '@type': 'Person', name: 'Second', knows: { '@id': 'r2' }, empty: null });
  await put('/v1/resources/org/proj/_/r1/tags?rev=2', { tag: 'v1', rev: 1 });
  await put('/v1/resources/org/secret/_/hidden', { name: 'Hidden' });
  await uploadFile('f1', 'hello.txt', 'hello, version one');
  await uploadFile('f1', 'hello.txt', 'hello, version two', 1);
  await server.app.inject({ method: 'POST', url: '/v1/files/org/proj/f1/tags?rev=2', headers: alice, payload: { tag: 'first', rev: 1 } });
  ids.f1Self = `${BASE}/v1/files/org/proj/${encodeURIComponent(`${base}f1`)}`;
});
afterAll(() => server.close());

function create(payload: object, options: { accept?: string; token?: string; id?: string; project?: string } = {}) {
  const project = options.project ?? 'org/proj';
  return server.app.inject({
    method: options.id ? 'PUT' : 'POST',
    url: `/v1/archives/${project}${options.id ? `/${options.id}` : ''}`,
    headers: { ...bearer(options.token ?? TOKENS.alice), ...(options.accept !== undefined && { accept: options.accept }) },
    payload,
  });
}

/** Creates an archive as alice and returns its URL path. */
async function archivePath(resources: object[], project = 'org/proj'): Promise<string> {
  const response = await create({ resources }, { accept: 'application/json', project });
  if (response.statusCode !== 201) throw new Error(response.body);
  return new URL(response.json()._self).pathname;
}

function download(path: string, token = TOKENS.alice, accept?: string) {
  return server.app.inject({ method: 'GET', url: path, headers: { ...bearer(token), ...(accept && { accept }) } });
}

const someResource = [{ '@type': 'Resource', resourceId: 'r1' }];

describe('creating archives: content negotiation', () => {
  test.each([[undefined], ['*/*'], ['application/zip'], ['application/x-zip'], ['text/html,application/xhtml+xml,*/*;q=0.8']])(
    'Accept %s: 303 to the archive',
    async (accept) => {
      const response = await create({ resources: someResource }, accept === undefined ? {} : { accept });
      expect(response.statusCode).toBe(303);
      expect(response.headers.location).toMatch(new RegExp(`^${BASE}/v1/archives/org/proj/${encodeURIComponent(base)}[0-9a-f-]{36}$`));
      // The archive exists and is the ZIP at that location.
      const zip = await download(new URL(response.headers.location as string).pathname);
      expect(zip.statusCode).toBe(200);
      expect(zip.headers['content-type']).toBe('application/zip');
    },
  );

  test.each([['application/json'], ['application/ld+json'], ['application/json, */*']])('Accept %s: 201 with metadata', async (accept) => {
    const response = await create({ resources: someResource }, { accept });
    expect(response.statusCode).toBe(201);
    const body = response.json();
    expect(body).toMatchObject({
      '@context': ['https://bluebrain.github.io/nexus/contexts/archives-metadata.json', 'https://bluebrain.github.io/nexus/contexts/metadata.json'],
      '@type': 'Archive',
      _constrainedBy: 'https://bluebrain.github.io/nexus/schemas/archives.json',
      _project: 'org/proj',
      _rev: 1,
      _deprecated: false,
      _expiresInSeconds: 18000,
      _createdBy: `${BASE}/v1/realms/local/users/alice`,
      _updatedBy: `${BASE}/v1/realms/local/users/alice`,
      _createdAt: new Date(now).toISOString(),
    });
    expect(body._self).toBe(`${BASE}/v1/archives/org/proj/${encodeURIComponent(body['@id'])}`);
    expect(body.resources).toBeUndefined();
  });
});

describe('archive ids', () => {
  test('PUT names the archive; the same id again is 409; a different payload @id is 400 UnexpectedId', async () => {
    const created = await create({ resources: someResource }, { id: 'named', accept: 'application/json' });
    expect(created.statusCode).toBe(201);
    expect(created.json()['@id']).toBe(`${base}named`);
    const again = await create({ resources: someResource }, { id: 'named', accept: 'application/json' });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({
      '@context': 'https://bluebrain.github.io/nexus/contexts/error.json',
      '@type': 'ResourceAlreadyExists',
      reason: `Resource '${base}named' already exists in project 'org/proj'.`,
    });
    const mismatch = await create({ '@id': 'other', resources: someResource }, { id: 'third', accept: 'application/json' });
    expect(mismatch.statusCode).toBe(400);
    expect(mismatch.json()).toMatchObject({ '@type': 'UnexpectedId', reason: "Id 'third' does not match the id on payload 'other'." });
    const matching = await create({ '@id': 'fourth', resources: someResource }, { id: 'fourth', accept: 'application/json' });
    expect(matching.statusCode).toBe(201);
  });

  test('PUT redirects ZIP callers too', async () => {
    const response = await create({ resources: someResource }, { id: 'put-redirect' });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe(`${BASE}/v1/archives/org/proj/${encodeURIComponent(`${base}put-redirect`)}`);
  });

  test('POST uses a payload @id, resolved against the project base', async () => {
    const response = await create({ '@id': 'from-payload', resources: someResource }, { accept: 'application/json' });
    expect(response.json()['@id']).toBe(`${base}from-payload`);
  });

  test('segments expand with the project API mappings; unusable segments are 400 InvalidArchiveId', async () => {
    const mapped = await create({ resources: [{ '@type': 'Resource', resourceId: 'r1', project: 'org/proj' }] }, { project: 'org/mapped', id: 'test-resource:archive', accept: 'application/json' });
    expect(mapped.json()['@id']).toBe('https://dev.nexus.test.com/simplified-resource/archive');
    const byFullId = await download(`/v1/archives/org/mapped/${encodeURIComponent('https://dev.nexus.test.com/simplified-resource/archive')}`, TOKENS.alice, 'application/json');
    expect(byFullId.json()['@id']).toBe('https://dev.nexus.test.com/simplified-resource/archive');
    const invalid = await create({ resources: someResource }, { id: 'bad%20id', accept: 'application/json' });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json()).toMatchObject({ '@type': 'InvalidArchiveId', reason: "Archive identifier 'bad id' cannot be expanded to an Iri." });
  });

  test('an unknown archive is 404 ResourceNotFound', async () => {
    const response = await download('/v1/archives/org/proj/nothing');
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ '@type': 'ResourceNotFound', reason: `Archive '${base}nothing' not found in project 'org/proj'.` });
  });
});

describe('validation at creation', () => {
  test('all problems in one 400 DecodingFailed; nothing is stored', async () => {
    const response = await create(
      {
        resources: [
          { '@type': 'Resource', resourceId: 'r1', rev: 1, tag: 'v1' },
          { '@type': 'File', resourceId: 'f1', path: 'relative/path' },
          { '@type': 'Resource', resourceId: 'r1', path: '/a/../b' },
        ],
      },
      { id: 'broken', accept: 'application/json' },
    );
    expect(response.statusCode).toBe(400);
    expect(response.json()['@type']).toBe('DecodingFailed');
    expect(response.json().reason.split('\n')).toHaveLength(3);
    expect((await download('/v1/archives/org/proj/broken', TOKENS.alice, 'application/json')).statusCode).toBe(404);
  });

  test('duplicate default paths are found at creation (two files with the same name), with the other problems', async () => {
    await uploadFile('twin', 'hello.txt', 'another hello');
    const resources = [{ '@type': 'File', resourceId: 'f1' }, { '@type': 'Resource', resourceId: 'r1', fromat: 'source' }, { '@type': 'FileSelf', value: `${BASE}/v1/files/org/proj/twin` }];
    const response = await create({ resources }, { accept: 'application/json' });
    expect(response.statusCode).toBe(400);
    expect(response.json().reason).toBe(
      "resources[1]: unknown field 'fromat'.\nresources[0], resources[2]: The paths 'org/proj/file/hello.txt' have been used multiple times in the archive.",
    );
  });

  test('a remote @context is 400 InvalidJsonLdFormat; the bundled archives context is fine', async () => {
    const remote = await create({ '@context': 'https://example.org/ctx.json', resources: someResource }, { accept: 'application/json' });
    expect(remote.statusCode).toBe(400);
    expect(remote.json()['@type']).toBe('InvalidJsonLdFormat');
    const bundled = await create({ '@context': 'https://bluebrain.github.io/nexus/contexts/archives.json', resources: someResource }, { accept: 'application/json' });
    expect(bundled.statusCode).toBe(201);
  });

  test('a client @context is bounded in contexts, since processing them takes time growing with the square of their number', async () => {
    const contexts = (count: number) => Array.from({ length: count - 1 }, (_, i) => ({ [`term${i}`]: `https://example.org/${i}` })).concat({ '@vocab': 'https://example.org/' } as never);
    const tooMany = await create({ '@id': 'context-too-large', '@context': contexts(MAX_CONTEXT_DEFINITIONS + 1), resources: someResource }, { accept: 'application/json' });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json()).toMatchObject({ '@type': 'DecodingFailed', reason: expect.stringContaining(`defines ${MAX_CONTEXT_DEFINITIONS + 1} JSON-LD contexts`) });
    expect((await download(`/v1/archives/org/proj/context-too-large`, TOKENS.alice, 'application/json')).statusCode).toBe(404);
    const withinBound = await create({ '@context': contexts(MAX_CONTEXT_DEFINITIONS), resources: someResource }, { accept: 'application/json' });
    expect(withinBound.statusCode).toBe(201);
  });

  test('a client @context is bounded in terms times processings too, since each processing copies the terms defined before it', async () => {
    // 200 contexts (the bound on their number), the first defining most terms: each later one copies them.
    const contexts = (firstTerms: number) => [
      Object.fromEntries(Array.from({ length: firstTerms }, (_, i) => [`term${i}`, `https://example.org/${i}`])),
      ...Array.from({ length: MAX_CONTEXT_DEFINITIONS - 1 }, (_, i) => ({ [`other${i}`]: `https://example.org/other/${i}` })),
    ];
    const largestAllowed = MAX_CONTEXT_WORK / MAX_CONTEXT_DEFINITIONS - (MAX_CONTEXT_DEFINITIONS - 1);
    const tooCostly = await create({ '@id': 'context-too-costly', '@context': contexts(largestAllowed + 1), resources: someResource }, { accept: 'application/json' });
    expect(tooCostly.statusCode).toBe(400);
    expect(tooCostly.json()).toMatchObject({ '@type': 'DecodingFailed', reason: expect.stringContaining('too costly to process') });
    expect((await download(`/v1/archives/org/proj/context-too-costly`, TOKENS.alice, 'application/json')).statusCode).toBe(404);
    const withinBound = await create({ '@context': contexts(largestAllowed), resources: someResource }, { accept: 'application/json' });
    expect(withinBound.statusCode).toBe(201);
  });

  test('a body that is not an object, or not JSON, is 400', async () => {
    const notObject = await create([1, 2] as never, { accept: 'application/json' });
    expect(notObject.statusCode).toBe(400);
    expect(notObject.json()['@type']).toBe('DecodingFailed');
  });
});

describe('metadata', () => {
  test('GET with JSON returns the definition and the remaining lifetime', async () => {
    const created = await create(
      {
        resources: [
          { '@type': 'Resource', resourceId: 'r1', originalSource: true, tag: 'v1' },
          { '@type': 'File', resourceId: 'f1', path: '/x/y.txt', rev: 1 },
          { '@type': 'FileSelf', value: ids.f1Self },
          { '@type': 'Resource', resourceId: 'r1', project: 'org/proj', format: 'n-triples' },
          { '@type': 'Resource', resourceId: 'r1', rev: 1 },
        ],
      },
      { id: 'described', accept: 'application/json' },
    );
    expect(created.statusCode).toBe(201);
    now += 1_000_000;
    const fetched = (await download('/v1/archives/org/proj/described', TOKENS.alice, 'application/ld+json')).json();
    expect(fetched['@context']).toEqual(['https://bluebrain.github.io/nexus/contexts/archives.json', 'https://bluebrain.github.io/nexus/contexts/metadata.json']);
    expect(fetched._expiresInSeconds).toBe(18000 - 1000);
    expect(fetched.resources).toEqual([
      // Only what the creator wrote: the archive's project and the default format are not listed.
      { '@type': 'Resource', resourceId: `${base}r1`, tag: 'v1', originalSource: true },
      { '@type': 'File', resourceId: `${base}f1`, path: '/x/y.txt', rev: 1 },
      { '@type': 'FileSelf', value: ids.f1Self },
      { '@type': 'Resource', resourceId: `${base}r1`, project: 'org/proj', format: 'n-triples' },
      { '@type': 'Resource', resourceId: `${base}r1`, rev: 1 },
    ]);
  });

  test('GET for a type neither ZIP nor JSON answers the metadata, as the reference does', async () => {
    await create({ resources: someResource }, { id: 'plain', accept: 'application/json' });
    const response = await download('/v1/archives/org/proj/plain', TOKENS.alice, 'text/html');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/ld\+json/);
    expect(response.json()['@id']).toBe(`${base}plain`);
  });
});

describe('downloading', () => {
  test('resources by latest, rev and tag; files by latest, rev, tag and _self; in path order', async () => {
    const path = await archivePath([
      { '@type': 'Resource', resourceId: 'r1', format: 'source' },
      { '@type': 'Resource', resourceId: 'r1', rev: 1, format: 'source', path: '/pinned/r1-rev1.json' },
      { '@type': 'Resource', resourceId: 'r1', tag: 'v1', originalSource: true, path: '/pinned/r1-v1.json' },
      { '@type': 'File', resourceId: 'f1' },
      { '@type': 'File', resourceId: 'f1', rev: 1, path: '/pinned/f1-rev1.txt' },
      { '@type': 'FileSelf', value: `${ids.f1Self}?tag=first`, path: '/pinned/f1-first.txt' },
      { '@type': 'FileSelf', value: `${BASE}/v1/files/org/proj/f1?rev=2`, path: '/pinned/f1-rev2.txt' },
    ]);
    const response = await download(path);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-disposition']).toBe('attachment; filename="archive.zip"');
    const zip = await unzip(response.rawPayload);
    const latestName = `org/proj/source/${flatEncode(`${base}r1`)}.json`;
    expect(zip.names).toEqual([...zip.names].sort());
    expect(zip.names).toEqual([
      'org/proj/file/hello.txt',
      latestName,
      'pinned/f1-first.txt',
      'pinned/f1-rev1.txt',
      'pinned/f1-rev2.txt',
      'pinned/r1-rev1.json',
      'pinned/r1-v1.json',
    ]);
    const text = (name: string) => zip.entries.get(name)!.toString('utf8');
    expect(JSON.parse(text(latestName))).toEqual({ '@type': 'Person', name: 'Second', knows: { '@id': 'r2' }, empty: null });
    expect(JSON.parse(text('pinned/r1-rev1.json')).name).toBe('First');
    expect(JSON.parse(text('pinned/r1-v1.json')).name).toBe('First');
    expect(text('org/proj/file/hello.txt')).toBe('hello, version two');
    expect(text('pinned/f1-rev1.txt')).toBe('hello, version one');
    expect(text('pinned/f1-first.txt')).toBe('hello, version one');
    expect(text('pinned/f1-rev2.txt')).toBe('hello, version two');
  });

  test('every format of a resource', async () => {
    const formats = ['source', 'annotated-source', 'compacted', 'expanded', 'n-triples', 'n-quads', 'dot'];
    const path = await archivePath(formats.map((format) => ({ '@type': 'Resource', resourceId: 'r1', format })));
    const zip = await unzip((await download(path)).rawPayload);
    const vocab = `${BASE}/v1/vocabs/org/proj/`;
    const named = (format: string, ext: string) => zip.entries.get(`org/proj/${format}/${flatEncode(`${base}r1`)}${ext}`)!.toString('utf8');

    expect(JSON.parse(named('source', '.json'))).toEqual({ '@type': 'Person', name: 'Second', knows: { '@id': 'r2' }, empty: null });

    const annotated = JSON.parse(named('annotated-source', '.json'));
    expect(annotated).toMatchObject({ '@id': `${base}r1`, name: 'Second', _rev: 3, _project: 'org/proj', _self: `${BASE}/v1/resources/org/proj/_/${encodeURIComponent(`${base}r1`)}` });

    const compactedText = named('compacted', '.json');
    // Printed for people: 2-space indentation, @context/@id/@type first, _-keys last.
    expect(Object.keys(JSON.parse(compactedText))).toEqual(['@context', '@id', '@type', 'knows', 'name', '_constrainedBy', '_createdAt', '_createdBy', '_deprecated', '_project', '_rev', '_self', '_updatedAt', '_updatedBy']);
    expect(compactedText).toMatch(/^\{\n {2}"@context"/);
    expect(JSON.parse(compactedText)).toMatchObject({ knows: { '@id': `${base}r2` }, _rev: 3 });

    const expanded = JSON.parse(named('expanded', '.json'));
    expect(expanded[0]['@id']).toBe(`${base}r1`);
    expect(expanded[0][`${vocab}name`]).toEqual([{ '@value': 'Second' }]);
    expect(expanded[0]['https://bluebrain.github.io/nexus/vocabulary/rev']).toEqual([{ '@type': 'http://www.w3.org/2001/XMLSchema#long', '@value': 3 }]);

    const nt = named('n-triples', '.nt');
    expect(nt).toContain(`<${base}r1> <${vocab}name> "Second" .\n`);
    expect(nt).toContain(`<${base}r1> <${vocab}knows> <${base}r2> .\n`);
    expect(nt).toContain(`<${base}r1> <https://bluebrain.github.io/nexus/vocabulary/rev> "3"^^<http://www.w3.org/2001/XMLSchema#long> .\n`);
    expect(nt.trim().split('\n').every((line) => line.endsWith(' .'))).toBe(true);

    expect(named('n-quads', '.nq')).toBe(nt); // no named graphs in this resource: the same statements
    const dot = named('dot', '.dot');
    expect(dot).toMatch(new RegExp(`^digraph "${base}r1" \\{\\n`));
    expect(dot).toContain(`"${base}r1" -> "Second" [label = "${vocab}name"]`);
  });

  test('n-quads keep named graphs, n-triples merge them', async () => {
    await server.app.inject({
      method: 'PUT',
      url: '/v1/resources/org/proj/_/graphs',
      headers: alice,
      payload: { '@id': 'graphs', '@graph': [{ '@id': 'inner', name: 'In a graph' }] },
    });
    const path = await archivePath([
      { '@type': 'Resource', resourceId: 'graphs', format: 'n-quads', path: '/g.nq' },
      { '@type': 'Resource', resourceId: 'graphs', format: 'n-triples', path: '/g.nt' },
    ]);
    const zip = await unzip((await download(path)).rawPayload);
    const vocab = `${BASE}/v1/vocabs/org/proj/`;
    expect(zip.entries.get('g.nq')!.toString()).toContain(`<${base}inner> <${vocab}name> "In a graph" <${base}graphs> .\n`);
    expect(zip.entries.get('g.nt')!.toString()).toContain(`<${base}inner> <${vocab}name> "In a graph" .\n`);
  });

  test('articles of the literature project can be packed', async () => {
    const path = await archivePath(
      [
        { '@type': 'Resource', resourceId: 'demo-000', project: 'literature/articles' },
        { '@type': 'Resource', resourceId: 'demo-001', project: 'literature/articles', format: 'n-triples', path: '/articles/demo-001.nt' },
      ],
      'literature/articles',
    );
    const zip = await unzip((await download(path)).rawPayload);
    const article = JSON.parse(zip.entries.get(`literature/articles/compacted/${flatEncode(`${BASE}/v1/resources/literature/articles/_/demo-000`)}.json`)!.toString());
    expect(article).toMatchObject({ '@type': 'ScholarlyArticle', identifier: 'demo-000', name: 'Title of demo-000' });
    expect(zip.entries.get('articles/demo-001.nt')!.toString()).toContain('<https://schema.org/identifier> "demo-001" .');
  });

  test('a Resource entry may name a file: its metadata is packed', async () => {
    const path = await archivePath([{ '@type': 'Resource', resourceId: 'f1', path: '/f1.json' }]);
    const zip = await unzip((await download(path)).rawPayload);
    expect(JSON.parse(zip.entries.get('f1.json')!.toString())).toMatchObject({ '@type': 'File', _filename: 'hello.txt', _bytes: 18 });
  });
});

describe('missing entries', () => {
  test('404 ResourceNotFound, unless ignoreNotFound=true skips them', async () => {
    const path = await archivePath([
      { '@type': 'Resource', resourceId: 'r1', rev: 9, path: '/missing-rev.json' },
      { '@type': 'Resource', resourceId: 'r1', path: '/present.json' },
      { '@type': 'File', resourceId: 'nofile', path: '/missing.txt' },
    ]);
    const failed = await download(path);
    expect(failed.statusCode).toBe(404);
    expect(failed.json()).toEqual({
      '@context': 'https://bluebrain.github.io/nexus/contexts/error.json',
      '@type': 'ResourceNotFound',
      reason: `The resource '${base}r1?rev=9' was not found in project 'org/proj'.`,
    });
    // The spellings the reference's clients send (akka's boolean parameters): true, yes, on, 1.
    for (const value of ['true', '1', 'yes', 'on']) {
      const skipped = await download(`${path}?ignoreNotFound=${value}`);
      expect(skipped.statusCode).toBe(200);
      expect((await unzip(skipped.rawPayload)).names).toEqual(['present.json']);
    }
    for (const value of ['false', '0', 'no', 'off']) expect((await download(`${path}?ignoreNotFound=${value}`)).statusCode).toBe(404);
  });

  test('an entry in a project marked for deletion is skipped with ignoreNotFound=true, and reported as such without', async () => {
    await createProject(server.app, 'org', 'doomed');
    await server.app.inject({ method: 'PUT', url: '/v1/resources/org/doomed/_/d1', headers: alice, payload: { name: 'Doomed' } });
    const path = await archivePath([{ '@type': 'Resource', resourceId: 'r1', path: '/kept.json' }, { '@type': 'Resource', resourceId: 'd1', project: 'org/doomed', path: '/doomed.json' }]);
    expect((await unzip((await download(`${path}?ignoreNotFound=true`)).rawPayload)).names.sort()).toEqual(['doomed.json', 'kept.json']);
    for (const query of ['rev=1', 'rev=2&prune=true']) {
      expect((await server.app.inject({ method: 'DELETE', url: `/v1/projects/org/doomed?${query}`, headers: alice })).statusCode).toBe(200);
    }
    const skipped = await download(`${path}?ignoreNotFound=true`);
    expect(skipped.statusCode).toBe(200);
    expect((await unzip(skipped.rawPayload)).names).toEqual(['kept.json']);
    const refused = await download(path);
    expect([refused.statusCode, refused.json()['@type']]).toEqual([400, 'ProjectIsMarkedForDeletion']);
  });

  test('an archive whose entries were all skipped is a valid empty ZIP', async () => {
    const path = await archivePath([{ '@type': 'File', resourceId: 'gone' }, { '@type': 'Resource', resourceId: 'r1', project: 'org/nowhere' }]);
    const response = await download(`${path}?ignoreNotFound=true`);
    expect(response.statusCode).toBe(200);
    expect((await unzip(response.rawPayload)).names).toEqual([]);
  });

  test('a malformed ignoreNotFound is 400', async () => {
    const path = await archivePath(someResource);
    const response = await download(`${path}?ignoreNotFound=maybe`);
    expect(response.statusCode).toBe(400);
    expect(response.json()['@type']).toBe('MalformedQueryParam');
  });

  test('a default name that became a duplicate after creation is refused before the first byte', async () => {
    await uploadFile('renamed', 'before.txt', 'renamed file');
    const path = await archivePath([
      { '@type': 'File', resourceId: 'renamed' },
      { '@type': 'File', resourceId: 'f1', path: '/org/proj/file/after.txt' },
    ]);
    await uploadFile('renamed', 'after.txt', 'renamed file', 1);
    const response = await download(path);
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({ '@type': 'ArchivePathConflict', reason: "The paths 'org/proj/file/after.txt' have been used multiple times in the archive." });
  });
});

describe('permissions', () => {
  test('creating and reading need resources/read on the archive project; 403 comes before 404', async () => {
    const bobElsewhere = await create({ resources: someResource }, { token: TOKENS.bob, project: 'org/secret', accept: 'application/json' });
    expect(bobElsewhere.statusCode).toBe(403);
    expect(bobElsewhere.json()).toMatchObject({ '@type': 'AuthorizationFailed', details: "Permission 'resources/read' is missing on '/org/secret'." });
    const missingProjectNoRight = await create({ resources: someResource }, { token: TOKENS.bob, project: 'org/missing', accept: 'application/json' });
    expect(missingProjectNoRight.statusCode).toBe(403);
    const missingProject = await create({ resources: someResource }, { project: 'org/missing', accept: 'application/json' });
    expect(missingProject.statusCode).toBe(404);
    expect(missingProject.json()['@type']).toBe('ProjectNotFound');
    const bobHere = await create({ resources: someResource }, { token: TOKENS.bob, accept: 'application/json' });
    expect(bobHere.statusCode).toBe(201);
  });

  test('the caller of the download needs resources/read on every referenced project, even with ignoreNotFound', async () => {
    const path = await archivePath([
      { '@type': 'Resource', resourceId: 'r1', path: '/visible.json' },
      { '@type': 'Resource', resourceId: 'hidden', project: 'org/secret', path: '/hidden.json' },
    ]);
    for (const query of ['', '?ignoreNotFound=true']) {
      const denied = await download(`${path}${query}`, TOKENS.bob);
      expect(denied.statusCode).toBe(403);
      expect(denied.json().details).toBe("Permission 'resources/read' is missing on '/org/secret'.");
    }
    const carol = await download(path, TOKENS.carol);
    expect(carol.statusCode).toBe(200);
    expect((await unzip(carol.rawPayload)).names).toEqual(['hidden.json', 'visible.json']);
    // Anonymous has no right at all here.
    expect((await server.app.inject({ method: 'GET', url: path })).statusCode).toBe(403);
  });

  test('archives may be created in a deprecated project', async () => {
    await createProject(server.app, 'org', 'retired');
    await server.app.inject({ method: 'DELETE', url: '/v1/projects/org/retired?rev=1', headers: alice });
    const response = await create({ resources: [{ '@type': 'Resource', resourceId: 'r1', project: 'org/proj' }] }, { project: 'org/retired', accept: 'application/json' });
    expect(response.statusCode).toBe(201);
  });
});

describe('time to live', () => {
  test('expired archives are 404 at once, purged later, and their id is free again', async () => {
    const created = await create({ resources: someResource }, { id: 'short-lived', accept: 'application/json' });
    expect(created.statusCode).toBe(201);
    now += 5 * 3_600_000 - 1000;
    expect((await download('/v1/archives/org/proj/short-lived', TOKENS.alice, 'application/json')).json()._expiresInSeconds).toBe(1);
    now += 1000;
    expect((await download('/v1/archives/org/proj/short-lived')).statusCode).toBe(404);
    expect(await server.archives.purgeExpired()).toBeGreaterThanOrEqual(1);
    expect(await server.archives.purgeExpired()).toBe(0);
    const again = await create({ resources: someResource }, { id: 'short-lived', accept: 'application/json' });
    expect(again.statusCode).toBe(201);
  });
});
