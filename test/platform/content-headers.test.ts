/** Responses that carry user content (file downloads of any type, renderings, archives, errors) tell browsers not to sniff or run it. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { TOKENS, type TestServer, bearer, createProject, multipart, startServer } from './helpers.js';

let server: TestServer;
const alice = bearer(TOKENS.alice);

beforeAll(async () => {
  server = await startServer();
  await createProject(server.app, 'org', 'proj');
  for (const [id, name, type, content] of [
    ['page', 'page.html', 'text/html', '<script>alert(document.cookie)</script>'],
    ['drawing', 'drawing.svg', 'image/svg+xml', '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'],
  ] as const) {
    const body = await multipart(name, content, type);
    const response = await server.app.inject({ method: 'PUT', url: `/v1/files/org/proj/${id}`, headers: { ...alice, ...body.headers }, payload: body.payload });
    expect(response.statusCode).toBe(201);
  }
  await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/r1', headers: alice, payload: { name: '<img src=x onerror=alert(1)>' } });
  await server.app.inject({ method: 'PUT', url: '/v1/archives/org/proj/a1', headers: { ...alice, accept: 'application/json' }, payload: { resources: [{ '@type': 'File', resourceId: 'page' }] } });
});
afterAll(() => server.close());

function expectGuarded(headers: Record<string, unknown>): void {
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['content-security-policy']).toMatch(/default-src 'none'.*sandbox/);
}

describe('responses echoing user content', () => {
  test.each([
    ['an HTML file', '/v1/files/org/proj/page', 'text/html'],
    ['an SVG file', '/v1/files/org/proj/drawing', 'image/svg+xml'],
  ])('%s is served with nosniff and a sandboxing CSP', async (_, url, type) => {
    const response = await server.app.inject({ method: 'GET', url, headers: alice });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain(type);
    expectGuarded(response.headers);
  });

  test.each([
    ['a rendering', '/v1/resources/org/proj/_/r1', 'text/vnd.graphviz'],
    ['a source', '/v1/resources/org/proj/_/r1/source', 'application/json'],
    ['an archive', '/v1/archives/org/proj/a1', 'application/zip'],
    ['an error naming user input', '/v1/resources/org/proj/_/%3Cscript%3E', 'application/json'],
  ])('%s carries the same headers', async (_, url, accept) => {
    const response = await server.app.inject({ method: 'GET', url, headers: { ...alice, accept } });
    expectGuarded(response.headers);
  });
});
