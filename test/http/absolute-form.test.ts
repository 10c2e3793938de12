/**
 * A request target in absolute form (`GET http://host/path HTTP/1.1`), which servers must accept, is
 * handled as its path: the health probe stays outside the rate limit, and /v1 answers in its vocabulary.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { fixtureApp, type Fixture } from './app-fixture.js';
import { originForm } from '../../src/http/request-target.js';

let fixture: Fixture | null = null;
afterEach(async () => {
  await fixture?.close();
  fixture = null;
});

/** Sends `target` as the request line's target over a raw socket; the status and body of the answer. */
async function rawGet(target: string): Promise<{ status: number; body: string }> {
  const { port } = fixture!.app.server.address() as AddressInfo;
  const socket = connect(port, '127.0.0.1');
  socket.end(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
  let text = '';
  for await (const chunk of socket) text += String(chunk);
  const [head = '', body = ''] = text.split('\r\n\r\n');
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), body };
}

describe('a request target in absolute form', () => {
  it('is its path: /healthz stays outside the rate limit, and /v1 answers in its own vocabulary', async () => {
    fixture = await fixtureApp(undefined, {}, { auth: null, flags: ['--rate-limit', '1'] });
    await fixture.app.listen({ host: '127.0.0.1', port: 0 });
    for (let i = 0; i < 3; i++) expect((await rawGet('http://literature.example/healthz')).status).toBe(200);
    const missing = await rawGet('http://literature.example/v1/orgs/no-such-org');
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body)['@type']).toBe('OrganizationNotFound');
  });

  it('keeps the rest of the target as it is', () => {
    expect(originForm('http://h:8080/v1/a/../b?x=%2F#f')).toBe('/v1/a/../b?x=%2F#f');
    expect(originForm('https://h?q=1')).toBe('/?q=1');
    expect(originForm('/healthz')).toBe('/healthz');
    expect(originForm('*')).toBe('*');
  });
});
