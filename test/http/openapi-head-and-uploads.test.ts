/**
 * /openapi.json lists what the server answers and takes beyond its validation schemas: the HEAD fastify
 * answers for every GET (it had listed none), each answering as its GET does without a body, and the
 * multipart body of a file upload (the upload routes had shown no request body, as fastify must not
 * validate one). The document stays well-formed OpenAPI 3.0 with these additions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureApp, type Fixture } from './app-fixture.js';
import { DEFAULT_AUTH, TOKENS, bearer, createProject, multipart } from '../platform/helpers.js';

interface Response {
  description?: unknown;
  content?: Record<string, { schema?: Record<string, unknown> }>;
}
interface Operation {
  operationId?: string;
  parameters?: unknown[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: { type?: string; required?: string[]; properties?: Record<string, object> } }> };
  responses: Record<string, Response>;
}
type Document = { openapi: string; paths: Record<string, Record<string, Operation>> };

const alice = bearer(TOKENS.alice);
const FILE = '/v1/files/org/proj/notes';
const UPLOADS = [
  ['post', '/v1/files/{org}/{project}'],
  ['put', '/v1/files/{org}/{project}/{id}'],
] as const;
/** The query a literature GET needs to answer 200. */
const GOOD_QUERIES: Record<string, string> = { '/retrieval/': 'query=cells', '/suggestions/author': 'name=ada', '/suggestions/journal': 'keywords=neuron' };
/** What each placeholder of a documented path stands for: things the fixture holds. */
const IDS: Record<string, string> = { '/v1/resources/': 'r1', '/v1/files/': 'notes', '/v1/archives/': 'a1' };

/** A documented path with its placeholders filled in by things that exist. */
function urlOf(path: string): string {
  const id = Object.entries(IDS).find(([prefix]) => path.startsWith(prefix))?.[1] ?? 'x';
  const url = path.replace('{org}', 'org').replace('{project}', 'proj').replace('{schema}', '_').replace('{id}', id);
  return GOOD_QUERIES[path] ? `${url}?${GOOD_QUERIES[path]}` : url;
}

/** The declared answer for a status: its own entry or its class (4XX). */
function declaredFor(operation: Operation, status: number): Response | undefined {
  return operation.responses[String(status)] ?? operation.responses[`${String(status)[0]}XX`];
}

let fixture: Fixture;
let document: Document;
beforeAll(async () => {
  fixture = await fixtureApp(undefined, {}, { auth: DEFAULT_AUTH });
  await createProject(fixture.app, 'org', 'proj');
  const setup = [
    await fixture.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/r1', headers: alice, payload: { name: 'First' } }),
    await fixture.app.inject({
      method: 'PUT',
      url: '/v1/archives/org/proj/a1',
      headers: { ...alice, accept: 'application/json' },
      payload: { resources: [{ '@type': 'Resource', resourceId: 'r1' }] },
    }),
  ];
  const upload = await multipart('notes.txt', 'some notes', 'text/plain');
  setup.push(await fixture.app.inject({ method: 'PUT', url: FILE, headers: { ...alice, ...upload.headers }, payload: upload.payload }));
  for (const response of setup) expect(response.statusCode, response.body).toBe(201);
  document = (await fixture.app.inject({ url: '/openapi.json' })).json();
});
afterAll(() => fixture.close());

describe('HEAD in /openapi.json', () => {
  it('is listed for every GET listed, and for nothing else', () => {
    const heads = Object.keys(document.paths).filter((path) => document.paths[path]!.head);
    const gets = Object.keys(document.paths).filter((path) => document.paths[path]!.get);
    expect(heads).toEqual(gets);
    expect(heads).toEqual(expect.arrayContaining(['/v1/files/{org}/{project}/{id}', '/v1/archives/{org}/{project}/{id}', '/retrieval/', '/healthz']));
  });

  it('leaves the hidden routes hidden, the document itself among them', () => {
    expect(Object.keys(document.paths).filter((path) => ['/openapi.json', '/docs', '/ui'].some((hidden) => path.startsWith(hidden)))).toEqual([]);
  });

  it('answers at each path listed as the GET does, without a body, with a status declared', async () => {
    const heads = Object.entries(document.paths).filter(([, operations]) => operations.head);
    expect(heads.length).toBeGreaterThan(20);
    for (const [path, operations] of heads) {
      const url = urlOf(path);
      const get = await fixture.app.inject({ method: 'GET', url, headers: alice });
      const head = await fixture.app.inject({ method: 'HEAD', url, headers: alice });
      expect({ path, get: get.statusCode, head: head.statusCode }).toEqual({ path, get: 200, head: 200 });
      expect({ path, body: head.body, type: head.headers['content-type'] }).toEqual({ path, body: '', type: get.headers['content-type'] });
      expect(declaredFor(operations.head!, head.statusCode), `HEAD ${path} declares ${head.statusCode}`).toBeDefined();
    }
  });

  it("declares no body in a HEAD's answers, and no 206 (Range is for GET only)", async () => {
    for (const [path, operations] of Object.entries(document.paths).filter(([, operations]) => operations.head)) {
      const withContent = Object.entries(operations.head!.responses).filter(([, response]) => response.content !== undefined);
      expect({ path, withContent }).toEqual({ path, withContent: [] });
    }
    const download = document.paths['/v1/files/{org}/{project}/{id}']!;
    expect(Object.keys(download.get!.responses)).toContain('206');
    expect(Object.keys(download.head!.responses).sort()).toEqual(['200', '304', '4XX', '5XX']);
    const ranged = await fixture.app.inject({ method: 'HEAD', url: FILE, headers: { ...alice, range: 'bytes=0-3' } });
    expect([ranged.statusCode, ranged.headers['content-length']]).toEqual([200, String('some notes'.length)]);
  });
});

describe('the file uploads in /openapi.json', () => {
  it.each(UPLOADS)('%s %s takes a multipart body with a binary part `file`', (method, path) => {
    const body = document.paths[path]![method]!.requestBody;
    expect(body?.required).toBe(true);
    expect(Object.keys(body?.content ?? {})).toEqual(['multipart/form-data']);
    const schema = body!.content!['multipart/form-data']!.schema!;
    expect(schema.type).toBe('object');
    expect(schema.required).toEqual(['file']);
    expect(schema.properties?.file).toMatchObject({ type: 'string', format: 'binary' });
  });

  it('is what the routes take: a body as documented is stored, one without its `file` part refused', async () => {
    const documented = await multipart('data.csv', 'a,b\n1,2\n', 'text/csv');
    const created = await fixture.app.inject({ method: 'POST', url: '/v1/files/org/proj', headers: { ...alice, ...documented.headers }, payload: documented.payload });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()._self).toMatch(/\/v1\/files\/org\/proj\//);
    const updated = await fixture.app.inject({ method: 'PUT', url: `${FILE}?rev=1`, headers: { ...alice, ...documented.headers }, payload: documented.payload });
    expect([updated.statusCode, updated.json()._rev]).toEqual([200, 2]);
    const download = await fixture.app.inject({ method: 'GET', url: FILE, headers: alice });
    expect([download.body, download.headers['content-type']]).toEqual(['a,b\n1,2\n', 'text/csv']);
    const misnamed = await multipart('data.csv', 'a,b\n', 'text/csv', 'attachment');
    const refused = await fixture.app.inject({ method: 'PUT', url: '/v1/files/org/proj/other', headers: { ...alice, ...misnamed.headers }, payload: misnamed.payload });
    expect([refused.statusCode, refused.json()['@type']]).toEqual([400, 'InvalidFile']);
  });
});

describe('the JSON bodies of /v1 in /openapi.json', () => {
  it('are declared in both media types /v1 takes, JSON and JSON-LD, and a JSON-LD one is stored', async () => {
    const bodies = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([, operation]) => path.startsWith('/v1/') && operation.requestBody?.content?.['multipart/form-data'] === undefined && operation.requestBody)
        .map(([method, operation]) => [`${method} ${path}`, Object.keys(operation.requestBody!.content ?? {})]),
    );
    expect(bodies.length).toBeGreaterThan(10);
    for (const [operation, types] of bodies) expect([operation, types]).toEqual([operation, ['application/json', 'application/ld+json']]);
    const stored = await fixture.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/ld1', headers: { ...alice, 'content-type': 'application/ld+json' }, payload: '{"name": "JSON-LD"}' });
    expect(stored.statusCode).toBe(201);
    // The literature API takes JSON alone, and says so.
    expect(Object.keys(document.paths['/qa/generative']!.post!.requestBody!.content!)).toEqual(['application/json']);
  });
});

describe('the headers /openapi.json declares', () => {
  it('are x-request-id on every answer, and Retry-After on every 429 and 503 (and /v1\'s 5XX), as the server sends them', async () => {
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        for (const [status, response] of Object.entries(operation.responses) as [string, Response & { headers?: Record<string, unknown> }][]) {
          const where = `${method} ${path} ${status}`;
          expect([where, Object.keys(response.headers ?? {}).includes('x-request-id')]).toEqual([where, true]);
          if (['429', '503', '5XX'].includes(status)) expect([where, Object.keys(response.headers ?? {}).includes('retry-after')]).toEqual([where, true]);
        }
      }
    }
    const limited = await fixtureApp(undefined, {}, { flags: ['--rate-limit', '1'] });
    try {
      await limited.app.inject({ url: '/retrieval/article_count' });
      const refused = await limited.app.inject({ url: '/retrieval/article_count' });
      expect(refused.statusCode).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(refused.headers['x-request-id']).toBeTruthy();
    } finally {
      await limited.close();
    }
  });
});

describe('/openapi.json with these additions', () => {
  const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
  const operations = () => Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ method, path, operation })));

  it('is OpenAPI 3.0 whose operations are all of known methods, with responses described', () => {
    expect(document.openapi).toMatch(/^3\.0\.\d+$/);
    for (const { method, path, operation } of operations()) {
      expect({ path, method, known: METHODS.includes(method) }).toEqual({ path, method, known: true });
      const statuses = Object.keys(operation.responses);
      expect(statuses.length, `${method} ${path} has responses`).toBeGreaterThan(0);
      for (const status of statuses) {
        expect({ path, method, status, valid: /^(default|[1-5]XX|[1-5]\d\d)$/.test(status) }).toEqual({ path, method, status, valid: true });
        expect(typeof operation.responses[status]!.description, `${method} ${path} ${status} is described`).toBe('string');
      }
      if (operation.requestBody) expect(Object.keys(operation.requestBody.content ?? {}).length, `${method} ${path} names its body's media types`).toBeGreaterThan(0);
    }
  });

  it('gives no two operations one operationId', () => {
    const ids = operations().flatMap(({ operation }) => (operation.operationId === undefined ? [] : [operation.operationId]));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('leaks no documentation-only marker into an operation', () => {
    for (const { method, path, operation } of operations()) {
      expect({ path, method, keys: Object.keys(operation).filter((key) => !['operationId', 'summary', 'description', 'tags', 'parameters', 'requestBody', 'responses', 'deprecated', 'security'].includes(key)) }).toEqual({
        path,
        method,
        keys: [],
      });
    }
  });
});
