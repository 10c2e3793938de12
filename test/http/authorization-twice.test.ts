/**
 * Node keeps the first of two Authorization headers and drops the other, so a request carrying two
 * would be served as whichever came first (a proxy adding its own, a client sending a stale one):
 * it is refused as a malformed one, on both APIs, whatever the order.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureApp, type Fixture } from './app-fixture.js';
import { rawExchange, type RawAnswer } from './raw-exchange.js';

const READER = 'reader-token';
const AUTH = {
  tokens: { [READER]: { realm: 'local', subject: 'reader' } },
  acls: { '/': { 'local/reader': ['resources/read'] }, '/literature/articles': { 'local/reader': ['resources/read'] } },
};

let fixture: Fixture;
let port: number;
beforeAll(async () => {
  fixture = await fixtureApp(undefined, {}, { auth: AUTH });
  await fixture.app.listen({ port: 0, host: '127.0.0.1' });
  port = (fixture.app.server.address() as AddressInfo).port;
});
afterAll(() => fixture.close());

/** The status line and body of a GET sent byte for byte, with these header lines. */
function rawGet(target: string, headerLines: string[]): Promise<RawAnswer> {
  return rawExchange(port, [`GET ${target} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close', ...headerLines, '', ''].join('\r\n'));
}

describe('two Authorization headers', () => {
  const twice = [`Authorization: Bearer ${READER}`, 'Authorization: Bearer someone-else'];

  it.each([
    ['/v1/projects', /InvalidAccessTokenFormat/],
    ['/retrieval/article_count', /"code":9/],
  ])('%s: 401, whichever comes first', async (target, vocabulary) => {
    for (const lines of [twice, [...twice].reverse()]) {
      const answer = await rawGet(target, lines);
      expect(answer.status).toBe(401);
      expect(answer.body).toMatch(vocabulary);
      expect(answer.body).toContain('The Authorization header must be sent once.');
    }
  });

  it('one Authorization header still identifies its caller', async () => {
    expect((await rawGet('/v1/projects', [twice[0]!])).status).toBe(200);
    expect((await rawGet('/retrieval/article_count', [twice[0]!])).status).toBe(200);
  });
});
