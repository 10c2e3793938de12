/**
 * A file's download (bytes or metadata), a resource's read (JSON-LD or RDF) and an archive's (ZIP or metadata) depend on the request's
 * Accept: they say so in `Vary`, so that a cache does not give one representation to a client asking for
 * another. CORS's `Vary: Origin` stays.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { enableCors } from '../../src/http/cors.js';
import { PLATFORM_MAX_PARAM_LENGTH, platformApi } from '../../src/http/platform/index.js';
import { TOKENS, type TestServer, bearer, createProject, multipart, serverApiOptions, startServer } from './helpers.js';

let server: TestServer;
/** The platform API behind the server's CORS hook, as the real server runs it with --cors-origins. */
let sharedApp: FastifyInstance;
const alice = bearer(TOKENS.alice);
const ORIGIN = 'https://front.example';

beforeAll(async () => {
  server = await startServer();
  await createProject(server.app, 'org', 'proj');
  await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/r1', headers: alice, payload: { name: 'r1' } });
  const body = await multipart('data.txt', 'some text', 'text/plain');
  await server.app.inject({ method: 'PUT', url: '/v1/files/org/proj/f1', headers: { ...alice, ...body.headers }, payload: body.payload });
  await server.app.inject({
    method: 'PUT',
    url: '/v1/archives/org/proj/a1',
    headers: { ...alice, accept: 'application/json' },
    payload: { resources: [{ '@type': 'Resource', resourceId: 'r1' }] },
  });
  sharedApp = Fastify({ logger: false, routerOptions: { maxParamLength: PLATFORM_MAX_PARAM_LENGTH } });
  enableCors(sharedApp, [ORIGIN]);
  await sharedApp.register(platformApi, serverApiOptions(server));
  await sharedApp.ready();
});
afterAll(async () => {
  await sharedApp.close();
  await server.close();
});

const varyNames = (header: string | string[] | number | undefined) =>
  String(header ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);

const negotiated: [string, string, string, number][] = [
  ['a file download', '/v1/files/org/proj/f1', '*/*', 200],
  ['a file as metadata', '/v1/files/org/proj/f1', 'application/ld+json', 200],
  ['a file download refused as not acceptable', '/v1/files/org/proj/f1', 'image/png', 406],
  ['a resource as JSON-LD', '/v1/resources/org/proj/_/r1', 'application/ld+json', 200],
  ['a resource as N-Triples', '/v1/resources/org/proj/_/r1', 'application/n-triples', 200],
  ['an archive as a ZIP', '/v1/archives/org/proj/a1', 'application/zip', 200],
  ['an archive as metadata', '/v1/archives/org/proj/a1', 'application/json', 200],
];

describe('negotiated answers vary on Accept', () => {
  test.each(negotiated)('%s', async (_kind, url, accept, status) => {
    const response = await server.app.inject({ method: 'GET', url, headers: { ...alice, accept } });
    expect(response.statusCode).toBe(status);
    expect(varyNames(response.headers.vary)).toEqual(['accept']);
  });

  test('a file download answered 304 varies on Accept too', async () => {
    const first = await server.app.inject({ method: 'GET', url: '/v1/files/org/proj/f1', headers: alice });
    const again = await server.app.inject({ method: 'GET', url: '/v1/files/org/proj/f1', headers: { ...alice, 'if-none-match': first.headers.etag as string } });
    expect(again.statusCode).toBe(304);
    expect(varyNames(again.headers.vary)).toEqual(['accept']);
  });

  test.each(negotiated)('%s, cross-origin: Origin is kept and Accept appended', async (_kind, url, accept, status) => {
    const response = await sharedApp.inject({ method: 'GET', url, headers: { ...alice, accept, origin: ORIGIN } });
    expect(response.statusCode).toBe(status);
    expect(varyNames(response.headers.vary)).toEqual(['origin', 'accept']);
  });
});
