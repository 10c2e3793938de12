/**
 * /openapi.json (and so /docs, which renders it) says what each operation does and what each of its
 * parameters means: every operation has a summary and a description, every parameter a description.
 * The /v1 half had none (63 operations, 238 parameters), the literature half 19 operations and 16 parameters
 * without one. The request headers /v1 reads (a download's
 * Range and conditions, the preconditions of every write) are listed as parameters. The headers of the
 * downloads and refusals are declared on the responses that send them, and the server sends what is
 * declared: a file's content, a part of it, a 304, a 416, an archive's ZIP and its creation's 303, and
 * a 405 (listed among the components, as no operation answers it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { fixtureApp, type Fixture } from './app-fixture.js';
import { DEFAULT_AUTH, TOKENS, bearer, createProject, multipart } from '../platform/helpers.js';

interface Header {
  description?: unknown;
  schema?: unknown;
  $ref?: string;
}
interface Response {
  headers?: Record<string, Header>;
}
interface Operation {
  summary?: unknown;
  description?: unknown;
  parameters?: { name: string; in: string; description?: unknown }[];
  responses: Record<string, Response>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { responses?: Record<string, Response>; headers?: Record<string, Header> };
}

/** A declared header, its reference to the document's shared headers followed. */
function resolved(header: Header): Header {
  const name = header.$ref?.match(/^#\/components\/headers\/(.+)$/)?.[1];
  return name === undefined ? header : (document.components.headers?.[name] ?? {});
}

const alice = bearer(TOKENS.alice);
const FILE = '/v1/files/org/proj/notes';
const CONTENT = 'some notes';
const ARCHIVE = '/v1/archives/org/proj/a1';
const DOWNLOAD = '/v1/files/{org}/{project}/{id}';
const ARCHIVE_READ = '/v1/archives/{org}/{project}/{id}';

/**
 * The headers whose declaration this file checks both ways: declared where sent, sent where declared. Content-Length
 * is declared where it means something of its own (a download's size), not wherever it frames a body.
 */
const WATCHED = ['etag', 'accept-ranges', 'content-range', 'content-disposition', 'vary', 'allow', 'location', 'x-request-id'];
const RATE_LIMIT = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];

let fixture: Fixture;
let document: Document;
let etag: string;
beforeAll(async () => {
  // The rate limit of a server started without --rate-limit (the fixture's default turns it off), so its headers are sent.
  fixture = await fixtureApp(undefined, {}, { auth: DEFAULT_AUTH, flags: ['--rate-limit', '600'] });
  await createProject(fixture.app, 'org', 'proj');
  const upload = await multipart('notes.txt', CONTENT, 'text/plain');
  const stored = await fixture.app.inject({ method: 'PUT', url: FILE, headers: { ...alice, ...upload.headers }, payload: upload.payload });
  expect(stored.statusCode, stored.body).toBe(201);
  etag = `"${(stored.json() as { _digest: { _value: string } })._digest._value}"`;
  document = (await fixture.app.inject({ url: '/openapi.json' })).json();
});
afterAll(() => fixture.close());

function operations(): [string, Operation][] {
  return Object.entries(document.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => [`${method.toUpperCase()} ${path}`, operation] as [string, Operation]));
}

function described(text: unknown): boolean {
  return typeof text === 'string' && text.trim() !== '';
}

/** The declared header names of a response, lower-cased as Node gives the sent ones. */
function declaredNames(response: Response | undefined): string[] {
  return Object.keys(response?.headers ?? {})
    .map((name) => name.toLowerCase())
    .sort();
}

/** What a checked answer sends of the headers that are declared or watched: each declared one must be sent, each watched one sent declared. */
async function compare(request: InjectOptions, status: number, declared: Response | undefined) {
  const answer = await fixture.app.inject(request);
  expect(answer.statusCode, answer.body).toBe(status);
  const names = declaredNames(declared);
  const sent = Object.keys(answer.headers).map((name) => name.toLowerCase());
  const label = `${request.method ?? 'GET'} ${request.url} ${status}`;
  expect({ label, declaredNotSent: names.filter((name) => !sent.includes(name)) }).toEqual({ label, declaredNotSent: [] });
  expect({ label, sentNotDeclared: sent.filter((name) => WATCHED.includes(name) && !names.includes(name)) }).toEqual({ label, sentNotDeclared: [] });
  return answer;
}

describe('the descriptions /openapi.json gives', () => {
  it('every operation has a summary and a description', () => {
    expect(operations().length).toBeGreaterThan(80);
    expect(operations().filter(([, operation]) => !described(operation.summary)).map(([name]) => name)).toEqual([]);
    expect(operations().filter(([, operation]) => !described(operation.description)).map(([name]) => name)).toEqual([]);
  });

  it('every parameter has a description', () => {
    const parameters = operations().flatMap(([name, operation]) => (operation.parameters ?? []).map((parameter) => ({ ...parameter, operation: name })));
    expect(parameters.filter((p) => p.operation.includes(' /v1')).length).toBeGreaterThan(200);
    expect(parameters.filter((parameter) => !described(parameter.description)).map((p) => `${p.operation} ${p.in} ${p.name}`)).toEqual([]);
  });

  it('every declared header has a description and a schema', () => {
    const responses = [
      ...operations().flatMap(([name, operation]) => Object.entries(operation.responses).map(([status, response]) => [`${name} ${status}`, response] as const)),
      ...Object.entries(document.components.responses ?? {}),
    ];
    const incomplete = responses.flatMap(([name, response]) =>
      Object.entries(response.headers ?? {})
        .filter(([, header]) => !described(resolved(header).description) || typeof resolved(header).schema !== 'object')
        .map(([header]) => `${name} ${header}`),
    );
    expect(incomplete).toEqual([]);
  });

  it('writes the headers of most responses once, among its components, and refers to them', async () => {
    const text = (await fixture.app.inject({ url: '/openapi.json' })).body;
    // Written out on each of some 400 responses, they had made half of an 840 KB document.
    for (const name of ['x-request-id', ...RATE_LIMIT, 'retry-after']) {
      expect(described(document.components.headers?.[name]?.description)).toBe(true);
      expect(text.split(`"${name}":{"description"`).length - 1).toBe(1);
    }
    const referring = operations().filter(([, operation]) => operation.responses['200']?.headers?.['x-request-id']?.$ref === '#/components/headers/x-request-id');
    expect(referring.length).toBeGreaterThan(40);
    expect(text.length).toBeLessThan(600_000);
  });
});

describe('the request headers /openapi.json lists', () => {
  const headerNames = (operation: Operation | undefined) => (operation?.parameters ?? []).filter((p) => p.in === 'header').map((p) => p.name).sort();

  it("the download's Range and conditions, a HEAD's without Range", () => {
    const { get, head } = document.paths[DOWNLOAD]!;
    expect(headerNames(get)).toEqual(['If-Match', 'If-None-Match', 'If-Range', 'If-Unmodified-Since', 'Range']);
    expect(headerNames(head)).toEqual(['If-Match', 'If-None-Match', 'If-Unmodified-Since']);
  });

  it('the preconditions on every /v1 write, and on no read', () => {
    for (const [name, operation] of operations().filter(([name]) => name.includes(' /v1') && name !== `GET ${DOWNLOAD}` && name !== `HEAD ${DOWNLOAD}`)) {
      const write = !/^(GET|HEAD) /.test(name);
      expect({ name, headers: headerNames(operation) }).toEqual({ name, headers: write ? ['If-Match', 'If-None-Match', 'If-Unmodified-Since'] : [] });
    }
  });

  it('a write whose If-None-Match: * finds its target is refused 412, as its description says', async () => {
    const upload = await multipart('again.txt', 'again', 'text/plain');
    const refused = await fixture.app.inject({ method: 'PUT', url: FILE, headers: { ...alice, ...upload.headers, 'if-none-match': '*' }, payload: upload.payload });
    expect(refused.statusCode, refused.body).toBe(412);
  });
});

describe('the download headers /openapi.json declares', () => {
  it("on a file's content: ETag, Accept-Ranges, Content-Disposition, and Content-Range on a part or an unsatisfiable range", () => {
    const { get, head } = document.paths[DOWNLOAD]!;
    const content = ['accept-ranges', 'content-disposition', 'content-length', 'etag', 'vary'];
    expect(declaredNames(get!.responses['200'])).toEqual(expect.arrayContaining(content));
    expect(declaredNames(get!.responses['206'])).toEqual(expect.arrayContaining([...content, 'content-range']));
    expect(declaredNames(get!.responses['304'])).toEqual(expect.arrayContaining(['etag', 'vary']));
    expect(declaredNames(get!.responses['416'])).toEqual(expect.arrayContaining(['content-range']));
    expect(declaredNames(head!.responses['200'])).toEqual(declaredNames(get!.responses['200']));
    expect(Object.keys(head!.responses)).not.toContain('416');
  });

  it("on an archive's ZIP: Content-Disposition", () => {
    for (const method of ['get', 'head']) {
      expect(declaredNames(document.paths[ARCHIVE_READ]![method]!.responses['200'])).toEqual(expect.arrayContaining(['content-disposition', 'vary']));
    }
  });

  it('the rate limit on every operation but the health probes, Retry-After on its 429', () => {
    for (const [name, operation] of operations()) {
      const probe = / \/(healthz)?$/.test(name);
      for (const [status, response] of Object.entries(operation.responses)) {
        const names = declaredNames(response);
        expect({ name, status, rateLimit: RATE_LIMIT.every((header) => names.includes(header)) }).toEqual({ name, status, rateLimit: !probe });
        if (status === '429') expect({ name, names }).toEqual({ name, names: expect.arrayContaining(['retry-after']) });
      }
    }
  });
});

describe('the headers the server sends are those declared', () => {
  const get = (status: string) => document.paths[DOWNLOAD]!.get!.responses[status];

  it("on a file's whole content, GET and HEAD", async () => {
    const whole = await compare({ method: 'GET', url: FILE, headers: alice }, 200, get('200'));
    expect(whole.headers).toMatchObject({ etag, 'accept-ranges': 'bytes', 'content-length': String(CONTENT.length), vary: 'Accept' });
    expect(whole.headers['content-disposition']).toMatch(/^attachment; filename="notes.txt"; filename\*=UTF-8''notes.txt$/);
    await compare({ method: 'HEAD', url: FILE, headers: alice }, 200, document.paths[DOWNLOAD]!.head!.responses['200']);
  });

  it('on a part of it (206) and on a range past its end (416)', async () => {
    const part = await compare({ method: 'GET', url: FILE, headers: { ...alice, range: 'bytes=0-3' } }, 206, get('206'));
    expect(part.headers).toMatchObject({ 'content-range': `bytes 0-3/${CONTENT.length}`, 'content-length': '4' });
    const past = await compare({ method: 'GET', url: FILE, headers: { ...alice, range: 'bytes=100-' } }, 416, get('416'));
    expect(past.headers['content-range']).toBe(`bytes */${CONTENT.length}`);
  });

  it('on a client holding the content already (304)', async () => {
    const held = await compare({ method: 'GET', url: FILE, headers: { ...alice, 'if-none-match': etag } }, 304, get('304'));
    expect(held.headers.etag).toBe(etag);
  });

  it("on an archive's creation (303) and ZIP (200)", async () => {
    const created = await compare(
      { method: 'PUT', url: ARCHIVE, headers: alice, payload: { resources: [{ '@type': 'File', resourceId: 'notes' }] } },
      303,
      document.paths['/v1/archives/{org}/{project}/{id}']!.put!.responses['303'],
    );
    expect(created.headers.location).toMatch(/\/v1\/archives\/org\/proj\//);
    const zip = await compare({ method: 'GET', url: ARCHIVE, headers: alice }, 200, document.paths[ARCHIVE_READ]!.get!.responses['200']);
    expect(zip.headers['content-disposition']).toBe('attachment; filename="archive.zip"');
  });

  it('on the refusals of an operation that negotiates by Accept, those before its handler as those within it (4XX)', async () => {
    // Vary had been set as the handler started: a 404 or a 406 carried it, a 401 or a 400 of the query did not, so it
    // could be declared on neither.
    const refusals: [InjectOptions, number, Response | undefined][] = [
      [{ url: FILE, headers: bearer('not-a-known-token') }, 401, get('4XX')],
      [{ url: `${FILE}?rev=abc`, headers: alice }, 400, get('4XX')],
      [{ url: `${FILE}-missing`, headers: alice }, 404, get('4XX')],
      [{ url: FILE, headers: { ...alice, accept: 'image/png' } }, 406, get('4XX')],
      [{ url: '/v1/resources/org/proj/_/missing', headers: alice }, 404, document.paths['/v1/resources/{org}/{project}/{schema}/{id}']!.get!.responses['4XX']],
      [{ url: `${ARCHIVE}-missing`, headers: alice }, 404, document.paths[ARCHIVE_READ]!.get!.responses['4XX']],
    ];
    for (const [request, status, declared] of refusals) {
      expect(declaredNames(declared)).toContain('vary');
      const refused = await compare(request, status, declared);
      expect(refused.headers.vary).toBe('Accept');
    }
  });

  it('on a method a path does not take (405), in either API', async () => {
    const declared = document.components.responses?.['MethodNotAllowed'];
    expect(declaredNames(declared)).toEqual(['allow', 'x-request-id']);
    // The 405 is answered before any route, so before the rate limit counts it: none of its headers.
    for (const url of [FILE, '/retrieval/article_count']) {
      const refused = await compare({ method: 'PATCH', url, headers: alice }, 405, declared);
      expect(refused.headers.allow).toMatch(/GET/);
    }
  });
});

describe('the servers /openapi.json names', () => {
  it('is the --public-url when one is set, its path prefix kept, and none otherwise (paths resolve against the document)', async () => {
    // Behind a proxy serving under /lit, an API tool had called /retrieval/… on the host, without the prefix.
    const behindProxy = await fixtureApp(undefined, {}, { flags: ['--public-url', 'https://lit.example.org/lit/'] });
    try {
      const spec = (await behindProxy.app.inject({ url: '/openapi.json' })).json();
      expect(spec.servers).toEqual([{ url: 'https://lit.example.org/lit', description: 'This server, as --public-url names it' }]);
    } finally {
      await behindProxy.close();
    }
    expect((await fixture.app.inject({ url: '/openapi.json' })).json().servers).toBeUndefined();
  });
});
