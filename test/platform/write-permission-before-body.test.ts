/**
 * The JSON writes of organizations, projects, resources, ACLs, archives and files (tags, deprecations) refuse a caller who lacks the write's
 * permission before its body is read: sent with `Expect: 100-continue`, such a write gets its 403 without
 * a 100 Continue, so the client never uploads the body, and the 403 is the one the write's own check gives.
 * Over a real socket, with the server answering `Expect` as the app does (expect-continue.ts).
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { continueWhenBodyIsRead } from '../../src/http/expect-continue.js';
import { toErrorReply } from '../../src/http/platform/errors.js';
import { AuthorizationError } from '../../src/platform/errors.js';
import { DEFAULT_AUTH, TOKENS, type TestServer, bearer, createProject, startServer } from './helpers.js';

/** As DEFAULT_AUTH, but anonymous may not read: creating an archive needs `resources/read`, which nobody but alice holds. */
const AUTH = { ...DEFAULT_AUTH, acls: { '/': { 'local/alice': ['*'] } } };

let server: TestServer;
let port: number;

beforeAll(async () => {
  server = await startServer({ auth: AUTH });
  await createProject(server.app, 'org', 'proj');
  const resource = await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/thing', headers: bearer(TOKENS.alice), payload: { name: 'thing' } });
  expect(resource.statusCode).toBe(201);
  continueWhenBodyIsRead(server.app.server);
  await server.app.listen({ host: '127.0.0.1', port: 0 });
  port = (server.app.server.address() as net.AddressInfo).port;
});
afterAll(() => server.close());

interface Exchange {
  /** Status lines of the interim (1xx) responses. */
  interim: string[];
  /** Whether the body was sent: only after a 100, as a client waiting for it does. */
  bodySent: boolean;
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends the request's head with `Expect: 100-continue`, its body only once a 100 comes, and reads the final answer. */
function expecting(method: string, url: string, body: string, headers: Record<string, string>): Promise<Exchange> {
  const head =
    `${method} ${url} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\n` +
    Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('') +
    '\r\n';
  return new Promise((resolve, reject) => {
    const result: Exchange = { interim: [], bodySent: false, status: 0, headers: {}, body: '' };
    const socket = net.connect(port, '127.0.0.1', () => socket.write(head));
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer to ${method} ${url} within 10 s (interim ${result.interim.join(', ')})`));
    }, 10_000);
    let received = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      for (;;) {
        const end = received.indexOf('\r\n\r\n');
        if (end < 0) return;
        const [statusLine, ...lines] = received.subarray(0, end).toString('latin1').split('\r\n');
        const status = Number(statusLine!.split(' ')[1]);
        if (status < 200) {
          result.interim.push(statusLine!);
          received = received.subarray(end + 4);
          if (status === 100 && !result.bodySent) {
            result.bodySent = true;
            socket.write(body);
          }
          continue;
        }
        const headerPairs = lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]);
        result.headers = Object.fromEntries(headerPairs);
        const length = Number(result.headers['content-length'] ?? 0);
        if (received.length < end + 4 + length) return;
        result.status = status;
        result.body = received.subarray(end + 4, end + 4 + length).toString('utf8');
        clearTimeout(giveUp);
        socket.destroy();
        resolve(result);
        return;
      }
    });
    socket.on('error', reject);
  });
}

const aclOf = (subject: string) => ({ acl: [{ identity: { '@type': 'User', realm: 'local', subject }, permissions: ['resources/read'] }] });
/** A valid resource payload of about 500 KB. */
const largePayload = JSON.stringify({ name: 'large', padding: 'p'.repeat(500_000) });
/** A valid archive definition of about 750 KB, under the archives' 1 MiB body limit. */
const largeDefinition = JSON.stringify({
  resources: Array.from({ length: 8_000 }, (_, i) => ({ '@type': 'Resource', resourceId: 'thing', path: `/copies/thing-${i}-${'c'.repeat(20)}.json` })),
});

/** Writes that anonymous callers and bob (who holds no write permission) may not make, with the permission each lacks. */
const REFUSED = [
  { who: 'anonymous', method: 'PUT', url: '/v1/orgs/neworg', body: JSON.stringify({ description: 'd'.repeat(9_000) }), permission: 'organizations/create', address: '/' },
  { who: 'bob', method: 'PUT', url: '/v1/orgs/org?rev=1', body: JSON.stringify({ description: 'changed' }), permission: 'organizations/write', address: '/org' },
  { who: 'anonymous', method: 'PUT', url: '/v1/projects/org/newproj', body: JSON.stringify({ description: 'd'.repeat(9_000) }), permission: 'projects/create', address: '/org' },
  { who: 'bob', method: 'PUT', url: '/v1/projects/org/proj?rev=1', body: JSON.stringify({ description: 'changed' }), permission: 'projects/write', address: '/org/proj' },
  { who: 'anonymous', method: 'POST', url: '/v1/resources/org/proj', body: largePayload, permission: 'resources/write', address: '/org/proj' },
  { who: 'bob', method: 'POST', url: '/v1/resources/org/proj/_', body: largePayload, permission: 'resources/write', address: '/org/proj' },
  { who: 'anonymous', method: 'PUT', url: '/v1/resources/org/proj/_/large', body: largePayload, permission: 'resources/write', address: '/org/proj' },
  { who: 'bob', method: 'PUT', url: '/v1/resources/org/proj/_/thing?rev=1', body: largePayload, permission: 'resources/write', address: '/org/proj' },
  { who: 'bob', method: 'POST', url: '/v1/resources/org/proj/_/thing/tags?rev=1', body: JSON.stringify({ tag: 'v1', rev: 1 }), permission: 'resources/write', address: '/org/proj' },
  { who: 'anonymous', method: 'PUT', url: '/v1/acls/org', body: JSON.stringify(aclOf('carol')), permission: 'acls/write', address: '/org' },
  { who: 'bob', method: 'PATCH', url: '/v1/acls/org/proj', body: JSON.stringify({ '@type': 'Append', ...aclOf('carol') }), permission: 'acls/write', address: '/org/proj' },
  { who: 'anonymous', method: 'POST', url: '/v1/archives/org/proj', body: largeDefinition, permission: 'resources/read', address: '/org/proj' },
  { who: 'bob', method: 'PUT', url: '/v1/archives/org/proj/archived', body: largeDefinition, permission: 'resources/read', address: '/org/proj' },
  { who: 'bob', method: 'PUT', url: '/v1/archives/org/missing/archived', body: largeDefinition, permission: 'resources/read', address: '/org/missing' },
  { who: 'bob', method: 'POST', url: '/v1/files/org/proj/f/tags?rev=1', body: JSON.stringify({ tag: 'v1', rev: 1 }), permission: 'files/write', address: '/org/proj' },
  // The writes that take no payload still read a JSON body when one is sent.
  { who: 'bob', method: 'DELETE', url: '/v1/orgs/org?rev=1', body: '{}', permission: 'organizations/write', address: '/org' },
  { who: 'anonymous', method: 'PUT', url: '/v1/projects/org/proj/undeprecate?rev=1', body: '{}', permission: 'projects/write', address: '/org/proj' },
  { who: 'bob', method: 'DELETE', url: '/v1/resources/org/proj/_/thing/tags/v1?rev=1', body: '{}', permission: 'resources/write', address: '/org/proj' },
  { who: 'anonymous', method: 'DELETE', url: '/v1/acls/org/proj?rev=1', body: '{}', permission: 'acls/write', address: '/org/proj' },
  { who: 'anonymous', method: 'DELETE', url: '/v1/files/org/proj/f/tags/v1?rev=1', body: '{}', permission: 'files/write', address: '/org/proj' },
  { who: 'bob', method: 'DELETE', url: '/v1/files/org/proj/f?rev=1', body: '{}', permission: 'files/write', address: '/org/proj' },
  { who: 'anonymous', method: 'PUT', url: '/v1/files/org/proj/f/undeprecate?rev=1', body: '{}', permission: 'files/write', address: '/org/proj' },
] as const;

const authorizationOf = (who: 'anonymous' | 'bob' | 'alice'): Record<string, string> => (who === 'anonymous' ? {} : bearer(TOKENS[who]));

describe('a JSON write refused for want of permission', () => {
  test.each(REFUSED)('$who $method $url: 403 without a 100 Continue, the body never sent', async ({ who, method, url, body, permission, address }) => {
    const refused = await expecting(method, url, body, authorizationOf(who));
    expect({ interim: refused.interim, bodySent: refused.bodySent, status: refused.status }).toEqual({ interim: [], bodySent: false, status: 403 });
    // The client may still send the body: on a connection kept, it would be read as the next request.
    expect(refused.headers.connection).toBe('close');
    // The 403 of the write's own check (AuthorizationError of the service), as a write sent with its body gets it.
    expect(JSON.parse(refused.body)).toEqual(toErrorReply(new AuthorizationError(permission, address)).body);
    const withBody = await server.app.inject({ method, url, headers: { ...authorizationOf(who), 'content-type': 'application/json' }, payload: body });
    expect(withBody.statusCode).toBe(403);
    expect(withBody.json()).toEqual(JSON.parse(refused.body));
  });

  test('a schema other than the unconstrained one is still 404 before the permission, without a 100', async () => {
    const refused = await expecting('POST', '/v1/resources/org/proj/other-schema', largePayload, {});
    expect({ interim: refused.interim, status: refused.status }).toEqual({ interim: [], status: 404 });
    expect(JSON.parse(refused.body)['@type']).toBe('SchemaNotFound');
  });

  test.each([
    { url: '/v1/resources/org/proj', permission: 'resources/write' },
    { url: '/v1/archives/org/proj', permission: 'resources/read' },
  ])('$url: comes before any refusal of the body: malformed JSON, another media type, a length over the limit', async ({ url, permission }) => {
    const forbidden = toErrorReply(new AuthorizationError(permission, '/org/proj')).body;
    for (const [contentType, payload] of [['application/json', '{"unclosed": '], ['text/plain', 'text']] as const) {
      const refused = await server.app.inject({ method: 'POST', url, headers: { ...bearer(TOKENS.bob), 'content-type': contentType }, payload });
      expect({ contentType, status: refused.statusCode, body: refused.json() }).toEqual({ contentType, status: 403, body: forbidden });
    }
    const overLimit = await expecting('POST', url, 'x'.repeat(3 * 1024 * 1024), bearer(TOKENS.bob));
    expect({ interim: overLimit.interim, status: overLimit.status, body: JSON.parse(overLimit.body) }).toEqual({ interim: [], status: 403, body: forbidden });
  });

  test('a bad token is still 401 without a 100', async () => {
    const refused = await expecting('POST', '/v1/resources/org/proj', largePayload, { authorization: 'Bearer nobody-has-this' });
    expect({ interim: refused.interim, status: refused.status }).toEqual({ interim: [], status: 401 });
    expect(JSON.parse(refused.body)['@type']).toBe('InvalidAccessToken');
  });
});

describe('a permitted JSON write', () => {
  test('gets its 100 Continue, then its write', async () => {
    const writes = [
      { method: 'PUT', url: '/v1/orgs/org2', body: JSON.stringify({ description: 'second' }), status: 201 },
      { method: 'PUT', url: '/v1/projects/org/proj2', body: JSON.stringify({ description: 'second' }), status: 201 },
      { method: 'POST', url: '/v1/resources/org/proj', body: largePayload, status: 201 },
      { method: 'POST', url: '/v1/resources/org/proj/_/thing/tags?rev=1', body: JSON.stringify({ tag: 'v1', rev: 1 }), status: 201 },
      { method: 'PATCH', url: '/v1/acls/org/proj?rev=1', body: JSON.stringify({ '@type': 'Append', ...aclOf('carol') }), status: 200 },
      // Without Accept, a ZIP is wanted: the answer is a redirect to the archive.
      { method: 'PUT', url: '/v1/archives/org/proj/archived', body: largeDefinition, status: 303 },
    ];
    for (const { method, url, body, status } of writes) {
      const written = await expecting(method, url, body, bearer(TOKENS.alice));
      expect({ url, interim: written.interim, bodySent: written.bodySent, status: written.status }).toEqual({
        url,
        interim: ['HTTP/1.1 100 Continue'],
        bodySent: true,
        status,
      });
    }
    const large = await server.app.inject({ method: 'GET', url: '/v1/resources/org/proj?size=50', headers: bearer(TOKENS.alice) });
    expect(large.json()._total).toBe(2);
    const archive = await server.app.inject({ method: 'GET', url: '/v1/archives/org/proj/archived', headers: { ...bearer(TOKENS.alice), accept: 'application/json' } });
    expect(archive.json().resources).toHaveLength(8_000);
  });
});
