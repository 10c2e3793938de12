/**
 * Every documented route (taken from the OpenAPI document, so a new route is
 * fuzzed without anyone remembering to) under random and malformed path
 * segments, query strings, headers, content types and bodies, as every kind
 * of caller, /v1 routes under conditional fields too (If-Match, If-None-Match,
 * If-Unmodified-Since: true, false and malformed), which its writes evaluate
 * (412) and its file downloads answer (304). A second property sends /v1
 * requests as the admin to the fixture's own entities, so that writes get as
 * far as their preconditions, which random segments and callers seldom do.
 * Expected: only documented 4xx bodies in the route's API vocabulary, never a
 * 5xx, and a rejected request changes nothing: the whole store and the file
 * contents fingerprint the same before and after it.
 *
 * FUZZ_RUNS sets the cases per route (CI default below); FUZZ_REPORT=FILE
 * writes the cases tried and statuses seen per route (`npm run bench:fuzz`).
 */
import { createHash } from 'node:crypto';
import { readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { open, type RootDatabase } from 'lmdb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureApp, type Fixture } from '../http/app-fixture.js';
import { multipart } from '../platform/helpers.js';
import { TABLE_NAMES } from '../../src/platform/store/store.js';
import { positiveFromEnv } from '../../bench/lib/settings.js';
import { routeReport, type StatusesByRoute } from './route-report.js';

const RUNS = positiveFromEnv(process.env, 'FUZZ_RUNS', 40, true);
const ADMIN = 'fuzz-admin';
const STRANGER = 'fuzz-stranger';
const AUTH = {
  tokens: { [ADMIN]: { realm: 'local', subject: 'admin' }, [STRANGER]: { realm: 'local', subject: 'stranger' } },
  acls: { '/': { 'local/admin': ['*'] } },
};
const V1_STATUSES = [200, 201, 303, 304, 400, 401, 403, 404, 405, 406, 409, 412, 413, 415];
const LITERATURE_STATUSES = [200, 400, 401, 403, 404, 405, 413, 415, 422];

let fixture: Fixture;
let store: RootDatabase;
/** The ETag of the fixture file f1's content: the one entity tag an If-Match can name truly. */
let fileEtag: string;
/** A well-formed upload, for the file writes of the fixture-directed property. */
let fileUpload: { payload: Buffer; headers: Record<string, string> };
const tried: StatusesByRoute = new Map();
/** How many of the two properties held for every route: the report says they held only when both did. */
let propertiesHeld = 0;

beforeAll(async () => {
  fixture = await fixtureApp(undefined, {}, { auth: AUTH });
  const admin = { authorization: `Bearer ${ADMIN}` };
  const json = { ...admin, 'content-type': 'application/json' };
  const setup = [
    await fixture.app.inject({ method: 'PUT', url: '/v1/orgs/lab', headers: json, payload: '{}' }),
    await fixture.app.inject({ method: 'PUT', url: '/v1/projects/lab/a', headers: json, payload: '{}' }),
    await fixture.app.inject({ method: 'PUT', url: '/v1/orgs/own', headers: json, payload: '{}' }),
    await fixture.app.inject({ method: 'PUT', url: '/v1/projects/own/p', headers: json, payload: '{}' }),
    await fixture.app.inject({ method: 'PUT', url: '/v1/resources/lab/a/_/r1', headers: json, payload: '{"@type":"Thing","name":"r1"}' }),
    await fixture.app.inject({ method: 'PUT', url: '/v1/files/lab/a/f1', ...(await withHeaders(multipart('f1.txt', 'file one', 'text/plain'), admin)) }),
    await fixture.app.inject({ method: 'PUT', url: '/v1/archives/lab/a/ar1', headers: { ...json, accept: 'application/json' }, payload: '{"resources":[{"@type":"Resource","resourceId":"r1"}]}' }),
  ];
  for (const response of setup) expect(response.statusCode, response.body).toBe(201);
  fileEtag = (await fixture.app.inject({ method: 'GET', url: '/v1/files/lab/a/f1', headers: admin })).headers.etag as string;
  expect(fileEtag).toMatch(/^"/);
  fileUpload = await multipart('f2.txt', 'file two', 'text/plain');
  store = open({ path: path.join(fixture.dataDir, 'platform', 'store'), maxDbs: 16 });
});

afterAll(async () => {
  if (process.env.FUZZ_REPORT) await writeFile(process.env.FUZZ_REPORT, routeReport(RUNS, tried, propertiesHeld === 2));
  await store?.close();
  await fixture?.close();
});

async function withHeaders(body: Promise<{ payload: Buffer; headers: Record<string, string> }>, headers: Record<string, string>) {
  const { payload, headers: own } = await body;
  return { payload, headers: { ...own, ...headers } };
}

/** Everything the platform persists: every entry of every store database, and every stored file with its size. */
async function fingerprint(): Promise<string> {
  const hash = createHash('sha256');
  for (const name of TABLE_NAMES) {
    for (const { key, value } of store.openDB({ name }).getRange()) hash.update(JSON.stringify([name, key, value]));
  }
  const files = path.join(fixture.dataDir, 'platform', 'files');
  for (const entry of await readdir(files, { recursive: true }).catch(() => [] as string[])) {
    const info = await stat(path.join(files, entry));
    hash.update(`${entry}:${info.isFile() ? info.size : 'dir'}`);
  }
  return hash.digest('hex');
}

// --- what random requests are made of ------------------------------------

const nasty = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('', '.', '..', '../..', '..%2F..%2Fetc%2Fpasswd', '%2e%2e', '%00', '%ZZ', '%', '%C0%AE%C0%AE', '%FF%FE', '\u0000', '_', '-', 'x'.repeat(5000),
    'http://evil.example/x', 'lab', 'a', 'r1', 'f1', 'ar1', '0', '-1', '1e400', 'NaN', 'true', '[]', '{}', '*', "'", '"', '<script>'),
  fc.integer().map(String),
);
/** A path segment: a real fixture name, or something nasty, sometimes sent raw (not percent-encoded). */
const segment = fc.oneof(
  fc.constantFrom('lab', 'a', 'r1', 'f1', 'ar1', '_', 'literature', 'articles'),
  nasty.map(encodeURIComponent),
  fc.constantFrom('..', '.', '%2e%2e', '%2F', '..%2F..', '%00', '%ZZ', '%C0%AE', 'a%2Fb'),
);
const QUERY_KEYS = ['rev', 'tag', 'format', 'annotate', 'ignoreNotFound', 'self', 'ancestors', 'from', 'size', 'storage', 'prune', 'query',
  'retriever_k', 'topics', 'regions', 'journals', 'date_from', 'date_to', 'number_results', 'page', 'name', 'keywords', 'limit', 'unknown'];
const queryString = fc.oneof(
  fc.array(fc.tuple(fc.constantFrom(...QUERY_KEYS), nasty), { maxLength: 6 }).map((pairs) => pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')),
  fc.string({ unit: 'binary', maxLength: 100 }).map((raw) => encodeURI(raw)),
  fc.constantFrom('rev=1', 'rev=2', 'tag=v1', 'rev=1&tag=v1', 'format=expanded', 'annotate=true', 'self=false', 'ignoreNotFound=true', 'query=cells'),
);
const authorization = fc.constantFrom<string | undefined>(undefined, `Bearer ${ADMIN}`, `Bearer ${STRANGER}`, 'Bearer unknown', 'Basic YTpi', 'Bearer', 'bearer  ' + ADMIN);
const contentType = fc.constantFrom<string | undefined>(
  undefined,
  'application/json',
  'application/ld+json',
  'application/json; charset=utf-16',
  'text/plain',
  'multipart/form-data',
  'multipart/form-data; boundary=xyz',
  'application/x-www-form-urlencoded',
  'application/octet-stream',
  '☃/☃',
);
const accept = fc.constantFrom<string | undefined>(undefined, '*/*', 'application/json', 'application/ld+json', 'application/zip', 'application/x-zip',
  'application/n-triples', 'application/n-quads', 'text/vnd.graphviz', 'text/html', 'garbage;;q=x');
const jsonBody = fc.oneof(
  fc.json({ maxDepth: 4 }),
  fc.record({ '@id': nasty, '@type': nasty, '@context': fc.oneof(nasty, fc.constant('http://example.org/remote-context')), name: nasty }, { requiredKeys: [] }).map((o) => JSON.stringify(o)),
  fc.record({ resources: fc.array(fc.record({ '@type': fc.constantFrom('Resource', 'File', 'FileSelf', 'Other'), resourceId: nasty, project: nasty, path: nasty, rev: fc.anything(), tag: nasty, format: nasty }, { requiredKeys: [] }), { maxLength: 4 }) }).map((o) => JSON.stringify(o)),
  fc.record({ tag: nasty, rev: fc.anything() }, { requiredKeys: [] }).map((o) => JSON.stringify(o)),
  fc.record({ acl: fc.anything(), '@type': fc.constantFrom('Append', 'Subtract', 'Replace') }, { requiredKeys: [] }).map((o) => JSON.stringify(o)),
  fc.constantFrom('[', '{"a":', '"unterminated', 'null', '0', '[]', '{}', '{"@context":{"@vocab":"http://x/"},"@id":"../../x"}', '['.repeat(10_000) + ']'.repeat(10_000)),
);
const multipartBody = fc.oneof(
  fc.constantFrom(
    '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nshort',
    '--xyz\r\nContent-Disposition: form-data; name="file"; filename="../../../etc/passwd"\r\nContent-Type: text/plain\r\n\r\nx\r\n--xyz--\r\n',
    '--xyz\r\nContent-Disposition: form-data; name="file"; filename=""\r\n\r\nx\r\n--xyz--\r\n',
    '--xyz\r\nContent-Disposition: form-data; name="other"\r\n\r\nx\r\n--xyz--\r\n',
    '--xyz--\r\n',
    '--xyz\r\n\r\n\r\n--xyz--\r\n',
    `${'--xyz\r\nContent-Disposition: form-data; name="f"\r\n\r\nx\r\n'.repeat(50)}--xyz--\r\n`,
    `--xyz\r\nContent-Disposition: form-data; name="${'n'.repeat(100_000)}"\r\n\r\nx\r\n--xyz--\r\n`,
  ),
  fc.string({ unit: 'binary', maxLength: 300 }).map((s) => `--xyz\r\nContent-Disposition: form-data; name="file"; filename="${s}"\r\n\r\n${s}\r\n--xyz--\r\n`),
);
const body = fc.oneof(jsonBody, multipartBody, fc.string({ unit: 'binary', maxLength: 200 }), fc.constant('x'.repeat(3 * 1024 * 1024)));
/** Path segments naming the fixture's entities, by route parameter, and sometimes missing ones or the literature's. */
const FIXTURE_SEGMENTS: Record<string, fc.Arbitrary<string>> = {
  '{org}': fc.constantFrom('lab', 'lab', 'lab', 'literature', 'missing'),
  '{project}': fc.constantFrom('a', 'a', 'a', 'articles', 'missing'),
  '{schema}': fc.constant('_'),
  '{tag}': fc.constantFrom('v1', 'missing'),
};
/** The ids a route's family holds mostly, by the first segment of its path (a file is read as a resource too). */
const FIXTURE_IDS: Record<string, fc.Arbitrary<string>> = {
  resources: fc.constantFrom('r1', 'r1', 'f1', 'new'),
  files: fc.constantFrom('f1', 'f1', 'r1', 'new'),
  archives: fc.constantFrom('ar1', 'ar1', 'new'),
};
/**
 * The organization and project routes address an organization and project of their own (`own/p`): once they
 * deprecated lab or lab/a, or marked it for deletion, every later route would meet only that refusal.
 */
const OWN_SEGMENTS: Record<string, fc.Arbitrary<string>> = {
  '{org}': fc.constantFrom('own', 'own', 'literature', 'missing'),
  '{project}': fc.constantFrom('p', 'p', 'articles', 'missing'),
};
function fixtureSegment(route: { path: string }, param: string): fc.Arbitrary<string> {
  const family = route.path.split('/')[2]!;
  if (family === 'orgs' || family === 'projects') return OWN_SEGMENTS[param] ?? segment;
  return (param === '{id}' ? FIXTURE_IDS[family] : FIXTURE_SEGMENTS[param]) ?? segment;
}
const fixtureQuery = fc.constantFrom('', 'rev=1', 'rev=2', 'rev=3', 'rev=9', 'rev=1&prune=true', 'rev=2&prune=true', 'tag=v1');
const GRANT = '[{"permissions":["resources/read"],"identity":{"@type":"User","realm":"local","subject":"stranger"}}]';
/** Bodies some /v1 write takes (an organization, a resource, a tag, an ACL change, an archive, an upload), with their content type. */
const writePayload = () =>
  fc.oneof(
    fc
      .constantFrom('{}', '{"description":"d"}', '{"name":"x"}', '{"tag":"v1","rev":1}', `{"acl":${GRANT}}`, `{"@type":"Append","acl":${GRANT}}`,
        `{"@type":"Subtract","acl":${GRANT}}`, '{"resources":[{"@type":"Resource","resourceId":"r1"}]}')
      .map((json) => ({ contentType: 'application/json', body: json })),
    fc.constant({ contentType: fileUpload.headers['content-type'], body: fileUpload.payload }),
  );

/** An If-Match or If-None-Match value: `*`, f1's entity tag (strong and weak), tags naming nothing, lists, malformed lists. */
const entityTags = () =>
  fc.oneof(
    fc.constantFrom('*', fileEtag, `W/${fileEtag}`, `"x", ${fileEtag}`, '"x"', 'W/"x"', '"a", "b"', '*, "x"', ' * ', '""', ',', ', ,', '"unterminated', 'W/', 'xyz'),
    fc.string({ maxLength: 40 }),
  );
/** An If-Unmodified-Since value: the three HTTP-date forms, before and after the fixture was written, and things that are no date. */
const httpDate = fc.oneof(
  fc.date({ min: new Date(0), max: new Date(Date.UTC(9999, 11, 31)), noInvalidDate: true }).map((date) => date.toUTCString()),
  fc.constantFrom('Sun, 06 Nov 1994 08:49:37 GMT', 'Sunday, 06-Nov-94 08:49:37 GMT', 'Sun Nov  6 08:49:37 1994', 'Fri, 31 Dec 9999 23:59:59 GMT', 'Thu, 31 Feb 2030 00:00:00 GMT', 'yesterday', ''),
  fc.string({ maxLength: 40 }),
);
/** The conditional fields of a request, each present or not. */
const conditions = () =>
  fc.record({ 'if-match': entityTags(), 'if-none-match': entityTags(), 'if-unmodified-since': httpDate }, { requiredKeys: [] });

// --- the property -------------------------------------------------------------

function documentedRoutes(): { method: string; path: string }[] {
  const { paths } = fixture.app.swagger() as { paths: Record<string, Record<string, unknown>> };
  return Object.entries(paths).flatMap(([route, operations]) => Object.keys(operations).map((method) => ({ method: method.toUpperCase(), path: route })));
}

function record(route: string, status: number): void {
  const statuses = tried.get(route) ?? new Map<number, number>();
  statuses.set(status, (statuses.get(status) ?? 0) + 1);
  tried.set(route, statuses);
}

/** A request as the properties draw it: its path segments (one per route parameter), query, headers and body. */
interface DrawnRequest {
  segments: string[];
  query: string;
  authorization: string | undefined;
  contentType: string | undefined;
  accept: string | undefined;
  body: string | Buffer;
  conditions: Record<string, string>;
}

/**
 * Sends `r` to `route` and checks the property: a documented status in the vocabulary of the URL requested,
 * never a 5xx, and a rejected request leaves the store and the file contents as they were.
 */
async function sendAndCheck(route: { method: string; path: string }, name: string, r: DrawnRequest): Promise<void> {
  const params = route.path.match(/\{[^}]+\}/g) ?? [];
  let url = route.path;
  params.forEach((param, i) => (url = url.replace(param, r.segments[i]!)));
  const headers: Record<string, string> = { ...r.conditions };
  if (r.authorization !== undefined) headers.authorization = r.authorization;
  if (r.accept !== undefined) headers.accept = r.accept;
  const withBody = route.method !== 'GET' && route.method !== 'DELETE';
  if (withBody && r.contentType !== undefined) headers['content-type'] = r.contentType;
  const before = await fingerprint();
  const response = await fixture.app.inject({ method: route.method as 'GET', url: `${url}?${r.query}`, headers, ...(withBody && { payload: r.body }) });
  record(name, response.statusCode);
  // Clients resolve dot segments ('/v1/files/../..' is '/'): the vocabulary is that of the URL actually requested.
  const requestedPath = new URL(url, 'http://host').pathname;
  const isV1 = requestedPath.startsWith('/v1');
  const context = `${name} -> ${route.method} ${url}?${r.query.slice(0, 200)} ${JSON.stringify(r.conditions)} (${response.statusCode}) ${response.body.slice(0, 300)}`;
  // GET / (however it was spelled) sends a browser (Accept: text/html) to the web page.
  const vocabulary = isV1 ? V1_STATUSES : requestedPath === '/' ? [...LITERATURE_STATUSES, 302] : LITERATURE_STATUSES;
  expect(vocabulary, context).toContain(response.statusCode);
  if (response.statusCode >= 400) {
    if (route.method === 'HEAD') {
      // A HEAD's answer has no body to show its vocabulary in.
      expect(response.body, context).toBe('');
    } else {
      const error = JSON.parse(response.body);
      if (isV1) {
        expect(typeof error['@type'], context).toBe('string');
        expect(typeof error.reason, context).toBe('string');
      } else {
        expect(typeof error.detail.code, context).toBe('number');
      }
    }
    expect(await fingerprint(), `a rejected request changed the store: ${context}`).toBe(before);
  }
}

describe('every documented route under random input', () => {
  it('covers at least the platform and literature routes', () => {
    const routes = documentedRoutes();
    expect(routes.filter((r) => r.path.startsWith('/v1')).length).toBeGreaterThanOrEqual(30);
    expect(routes.some((r) => r.path === '/qa/generative')).toBe(true);
  });

  it('answers only documented statuses in the route vocabulary, and a rejected request writes nothing', async () => {
    for (const route of documentedRoutes()) {
      const params = route.path.match(/\{[^}]+\}/g) ?? [];
      const request = fc.record({
        segments: fc.array(segment, { minLength: params.length, maxLength: params.length }),
        query: queryString,
        authorization,
        contentType,
        accept,
        body,
        conditions: route.path.startsWith('/v1') ? conditions() : fc.constant({}),
      });
      await fc.assert(
        fc.asyncProperty(request, (r) => sendAndCheck(route, `${route.method} ${route.path}`, r)),
        { numRuns: RUNS },
      );
    }
    propertiesHeld++;
  }, Math.max(60_000, RUNS * 1500));

  it("holds as well for /v1 requests its admin addresses to the fixture's own entities, under conditional fields", async () => {
    // Random segments and callers seldom get a write as far as its preconditions: these do, and those that succeed
    // change the fixture (tags, deprecations, new revisions), so later cases meet it in other states.
    for (const route of documentedRoutes().filter((r) => r.path.startsWith('/v1'))) {
      const params = route.path.match(/\{[^}]+\}/g) ?? [];
      const request = fc.record({
        segments: fc.tuple(...params.map((param) => fixtureSegment(route, param))),
        query: fixtureQuery,
        authorization: fc.constant(`Bearer ${ADMIN}`),
        accept: fc.constantFrom(undefined, 'application/json', '*/*'),
        payload: writePayload(),
        conditions: conditions(),
      });
      await fc.assert(
        fc.asyncProperty(request, ({ payload, ...r }) => sendAndCheck(route, `${route.method} ${route.path} (fixture's entities)`, { ...r, ...payload })),
        { numRuns: RUNS },
      );
    }
    propertiesHeld++;
  }, Math.max(60_000, RUNS * 1500));
});
