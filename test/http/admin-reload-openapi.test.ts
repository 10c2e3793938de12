/**
 * What /openapi.json says of POST /admin/reload is what it answers: its body may be left out (@fastify/swagger
 * writes every body as required), and the refusals answered before any route, over a socket, and the rate
 * limit are declared with the literature error body.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureApp, type Fixture } from './app-fixture.js';
import { rawExchange, type RawAnswer } from './raw-exchange.js';

const TOKEN = 'admin-reload-openapi';
const AUTH = { tokens: { [TOKEN]: { realm: 'local', subject: 'admin' } }, acls: { '/': { 'local/admin': ['*'] } } };

interface Operation {
  requestBody?: { required?: boolean };
  responses: Record<string, { content?: Record<string, { schema: { properties?: Record<string, { required?: string[] }> } }> }>;
  [extension: string]: unknown;
}

let fixture: Fixture;
let port: number;
let paths: Record<string, Record<string, Operation>>;

beforeAll(async () => {
  fixture = await fixtureApp(undefined, {}, { auth: AUTH, flags: ['--request-timeout', '1s'] });
  await fixture.app.listen({ host: '127.0.0.1', port: 0 });
  port = (fixture.app.server.address() as net.AddressInfo).port;
  paths = (await fixture.app.inject({ method: 'GET', url: '/openapi.json' })).json().paths;
});
afterAll(() => fixture.close());

const reload = () => paths['/admin/reload']!.post!;

/** Writes `request` on a connection of its own; the answer's status and body, read until the server closes it. */
function exchange(request: string): Promise<RawAnswer> {
  return rawExchange(port, request);
}

describe('POST /admin/reload in the OpenAPI document', () => {
  it('says its body is optional, as a reload without one is answered', async () => {
    expect(reload().requestBody?.required).toBe(false);
    // The mark that carried it from the route to the document is not left in it.
    expect(Object.keys(reload()).filter((key) => key.startsWith('x-'))).toEqual([]);
    const answer = await fixture.app.inject({ method: 'POST', url: '/admin/reload', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(answer.statusCode).toBe(200);
    // A body the route needs stays required.
    expect(paths['/qa/generative']!.post!.requestBody?.required).toBe(true);
  });

  it('declares, with the literature error body, the refusals it answers before it is routed', async () => {
    const head = `POST /admin/reload HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\n`;
    const requests = [
      `${head}Content-Length: 2\r\nExpect: 200-ok\r\n\r\n{}`,
      `${head}Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n`,
      `${head}X-Filler: ${'x'.repeat(20_000)}\r\n\r\n`,
      head,
    ];
    const answers = await Promise.all(requests.map(exchange));
    expect(answers.map((answer) => answer.status)).toEqual([417, 501, 431, 408]);
    for (const { status, body } of answers) {
      expect(JSON.parse(body)).toEqual({ detail: { code: expect.any(Number), detail: expect.any(String) } });
      const declared = reload().responses[String(status)];
      expect(declared, `${status} is declared`).toBeDefined();
      expect(declared!.content!['application/json']!.schema.properties!['detail']!.required).toEqual(['code', 'detail']);
    }
  });

  it('declares the 429 of the rate limit, which counts reloads as any other request', async () => {
    const limited = await fixtureApp(undefined, {}, { auth: AUTH, flags: ['--rate-limit', '1'] });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 2; i++) statuses.push((await limited.app.inject({ method: 'POST', url: '/admin/reload', headers: { authorization: `Bearer ${TOKEN}` } })).statusCode);
      expect(statuses).toEqual([200, 429]);
      expect(Object.keys(reload().responses)).toContain('429');
    } finally {
      await limited.close();
    }
  });

  it('declares the 413 it answers a body over the server\'s body limit', async () => {
    const tooLarge = await fixture.app.inject({
      method: 'POST',
      url: '/admin/reload',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ x: 'a'.repeat(3_000_000) }),
    });
    expect([tooLarge.statusCode, tooLarge.json().detail.code]).toEqual([413, 4]);
    expect(Object.keys(reload().responses)).toContain('413');
  });

  it("describes its 403 with the permission it needs, which is not the other routes' resources/read", async () => {
    const reader = 'admin-reload-reader';
    const readerOnly = { tokens: { ...AUTH.tokens, [reader]: { realm: 'local', subject: 'reader' } }, acls: { '/': { ...AUTH.acls['/'], 'local/reader': ['resources/read'] } } };
    const guarded = await fixtureApp(undefined, {}, { auth: readerOnly });
    try {
      const refused = await guarded.app.inject({ method: 'POST', url: '/admin/reload', headers: { authorization: `Bearer ${reader}` } });
      expect(refused.statusCode).toBe(403);
    } finally {
      await guarded.close();
    }
    for (const status of ['401', '403', '503']) expect((reload().responses[status] as { description?: string }).description, status).toBeTruthy();
    expect((reload().responses['403'] as { description: string }).description).toContain('resources/write');
  });
});
