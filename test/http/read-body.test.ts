/**
 * A GET of the literature API with a body is refused: a body of filters had been ignored, the whole corpus
 * counted as if no filter had been given. The same GETs without a body answer as before.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureApp, type Fixture } from './app-fixture.js';

let fixture: Fixture;
beforeAll(async () => {
  fixture = await fixtureApp();
});
afterAll(() => fixture.close());

describe('a literature GET with a body', () => {
  it('is 400 code 8 saying the body is not read, whatever its media type', async () => {
    for (const [type, payload] of [['application/json', '{"authors":["x"]}'], ['text/plain', 'authors=x']]) {
      const response = await fixture.app.inject({ method: 'GET', url: '/retrieval/article_count', headers: { 'content-type': type }, payload });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ detail: { code: 8, detail: "a GET request's body is not read: give its parameters in the query string (?topics=…&regions=…)" } });
    }
    // A route that takes no parameter says so, rather than asking for them in the query string.
    for (const url of ['/healthz', '/settings', '/suggestions/article_types']) {
      const response = await fixture.app.inject({ method: 'GET', url, headers: { 'content-type': 'application/json' }, payload: '{"a":1}' });
      expect([url, response.statusCode, response.json().detail.detail]).toEqual([url, 400, "a GET request's body is not read: this route takes no parameters; send it without one"]);
    }
    const plain = await fixture.app.inject({ method: 'GET', url: '/retrieval/article_count' });
    expect(plain.statusCode).toBe(200);
    // An empty body declared as such is no body.
    expect((await fixture.app.inject({ method: 'GET', url: '/retrieval/article_count', headers: { 'content-length': '0' } })).statusCode).toBe(200);
  });

  it('closes the connection when the body is still coming, rather than reading it', async () => {
    await fixture.app.listen({ host: '127.0.0.1', port: 0 });
    const port = (fixture.app.server.address() as net.AddressInfo).port;
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1');
      let text = '';
      socket.on('data', (chunk) => (text += chunk));
      socket.on('error', reject);
      socket.on('close', () => resolve(text));
      socket.write('GET /retrieval/article_count HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"auth');
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer.toLowerCase()).toContain('connection: close');
  });
});
