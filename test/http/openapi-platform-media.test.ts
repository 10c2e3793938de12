/**
 * /openapi.json tells the truth about the /v1 routes whose answers are not always JSON: every status and
 * media type a request draws from them is declared, and every success status declared is drawn. Archive
 * creation had declared only its 201 JSON (its default answer is a 303 to the download), an archive's
 * download only JSON (its default answer is a ZIP), a file's download JSON for its bytes and no 304, a
 * resource's read JSON only (it answers JSON-LD, or RDF as text by Accept).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { fixtureApp, type Fixture } from './app-fixture.js';
import { DEFAULT_AUTH, TOKENS, bearer, createProject, multipart } from '../platform/helpers.js';

interface Declared {
  content?: Record<string, unknown>;
}
type Operation = { responses: Record<string, Declared> };

const alice = bearer(TOKENS.alice);
const FILE = '/v1/files/org/proj/notes';
const DEFINITION = { resources: [{ '@type': 'Resource', resourceId: 'r1' }] };

/** One request and the operation of the document it answers to. */
interface Probe {
  operation: [method: string, path: string];
  request: InjectOptions;
}

const CREATE: Probe['operation'] = ['post', '/v1/archives/{org}/{project}'];
const CREATE_WITH_ID: Probe['operation'] = ['put', '/v1/archives/{org}/{project}/{id}'];
const ARCHIVE: Probe['operation'] = ['get', '/v1/archives/{org}/{project}/{id}'];
const DOWNLOAD: Probe['operation'] = ['get', '/v1/files/{org}/{project}/{id}'];
const RESOURCE: Probe['operation'] = ['get', '/v1/resources/{org}/{project}/{schema}/{id}'];

function probes(etag: string): Probe[] {
  const create = (accept?: string): InjectOptions => ({
    method: 'POST',
    url: '/v1/archives/org/proj',
    headers: { ...alice, ...(accept && { accept }) },
    payload: DEFINITION,
  });
  const createWithId = (id: string, accept?: string): InjectOptions => ({ ...create(accept), method: 'PUT', url: `/v1/archives/org/proj/${id}` });
  const read = (url: string, headers: Record<string, string> = {}): InjectOptions => ({ method: 'GET', url, headers: { ...alice, ...headers } });
  return [
    { operation: CREATE, request: create() },
    { operation: CREATE, request: create('application/json') },
    { operation: CREATE, request: create('application/ld+json') },
    { operation: CREATE_WITH_ID, request: createWithId('by-default') },
    { operation: CREATE_WITH_ID, request: createWithId('as-json', 'application/json') },
    { operation: ARCHIVE, request: read('/v1/archives/org/proj/as-json') },
    { operation: ARCHIVE, request: read('/v1/archives/org/proj/as-json', { accept: 'application/json' }) },
    { operation: ARCHIVE, request: read('/v1/archives/org/proj/as-json', { accept: 'application/ld+json' }) },
    { operation: DOWNLOAD, request: read(FILE) },
    { operation: DOWNLOAD, request: read(FILE, { accept: 'application/ld+json' }) },
    { operation: DOWNLOAD, request: read(FILE, { range: 'bytes=0-3' }) },
    { operation: DOWNLOAD, request: read(FILE, { 'if-none-match': etag }) },
    ...['application/ld+json', 'application/json', 'application/n-triples', 'application/n-quads', 'text/vnd.graphviz'].map((accept) => ({
      operation: RESOURCE,
      request: read('/v1/resources/org/proj/_/r1', { accept }),
    })),
    { operation: RESOURCE, request: read('/v1/resources/org/proj/_/r1?format=expanded') },
  ];
}

let fixture: Fixture;
let paths: Record<string, Record<string, Operation>>;
/** Per operation, the statuses its probes drew. */
const drawn = new Map<string, Set<string>>();
/** Each probe's answer: what it drew and what the document declares for it. */
const answers: { name: string; status: string; mediaType: string | null; declared: Declared | undefined }[] = [];

beforeAll(async () => {
  fixture = await fixtureApp(undefined, {}, { auth: DEFAULT_AUTH });
  await createProject(fixture.app, 'org', 'proj');
  await fixture.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/r1', headers: alice, payload: { name: 'First' } });
  const upload = await multipart('notes.txt', 'some notes', 'text/plain');
  const uploaded = await fixture.app.inject({ method: 'PUT', url: FILE, headers: { ...alice, ...upload.headers }, payload: upload.payload });
  expect(uploaded.statusCode).toBe(201);
  const etag = (await fixture.app.inject({ method: 'GET', url: FILE, headers: alice })).headers.etag as string;
  paths = (await fixture.app.inject({ url: '/openapi.json' })).json().paths;
  for (const { operation, request } of probes(etag)) {
    const response = await fixture.app.inject(request);
    const [method, path] = operation;
    const status = String(response.statusCode);
    const key = `${method.toUpperCase()} ${path}`;
    drawn.set(key, (drawn.get(key) ?? new Set()).add(status));
    const contentType = response.headers['content-type'];
    answers.push({
      name: `${key} (${JSON.stringify(request.headers)})`,
      status,
      mediaType: typeof contentType === 'string' ? contentType.split(';')[0]!.trim() : null,
      declared: paths[path]?.[method]?.responses[status],
    });
  }
});
afterAll(() => fixture.close());

describe('OpenAPI media types of the /v1 downloads', () => {
  it('declares the status and media type of every answer', () => {
    for (const { name, status, mediaType, declared } of answers) {
      expect(declared, `${name} answers ${status}, which is declared`).toBeDefined();
      const types = Object.keys(declared!.content ?? {});
      if (mediaType === null) expect(types, `${name} answers ${status} without a body`).toEqual([]);
      else expect(types.includes(mediaType) || types.includes('*/*'), `${name} answers ${status} ${mediaType}; declared: ${types.join(', ')}`).toBe(true);
    }
  });

  it.each([CREATE, CREATE_WITH_ID, ARCHIVE, DOWNLOAD, RESOURCE])('%s %s declares no success its requests do not draw', (method, path) => {
    const successes = Object.keys(paths[path]![method]!.responses).filter((status) => /^[23]\d\d$/.test(status));
    expect(successes.sort()).toEqual([...drawn.get(`${method.toUpperCase()} ${path}`)!].sort());
  });

  it('serialises the archive metadata alike under both JSON types', async () => {
    const metadata = async (accept: string) => {
      const response = await fixture.app.inject({ method: 'GET', url: '/v1/archives/org/proj/as-json', headers: { ...alice, accept } });
      expect(response.headers['content-type']).toBe(`${accept}; charset=utf-8`);
      // The remaining lifetime may tick between the two requests.
      return response.body.replace(/"_expiresInSeconds":\d+/, '"_expiresInSeconds":0');
    };
    const asJson = await metadata('application/json');
    expect(asJson).toContain('"resources":[');
    expect(await metadata('application/ld+json')).toBe(asJson);
  });
});
