/**
 * A download reads a resource revision's payload once for the entries of that revision that follow each
 * other in the ZIP (one revision in several formats): each entry had read it again when it was written.
 * Resolving shares one read among them already; what is counted here are the reads while the ZIP is written.
 */
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { userIdentity } from '../../src/platform/identities.js';
import { TOKENS, type TestServer, bearer, createProject, startServer } from '../platform/helpers.js';
import { createArchive } from './archive-fixture.js';
import { unzip } from './unzip.js';

let server: TestServer;
const alice = bearer(TOKENS.alice);

beforeAll(async () => {
  server = await startServer();
  await createProject(server.app, 'org', 'proj');
  await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/r1', headers: alice, payload: { name: 'first' } });
  await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/r1?rev=1', headers: alice, payload: { name: 'second' } });
  await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/r2', headers: alice, payload: { name: 'other' } });
  const resources = [
    // In path order: r1's latest revision three times, then its first revision, then r2 twice around r1 again.
    { '@type': 'Resource', resourceId: 'r1', format: 'compacted', path: '/a/r1.compacted.json' },
    { '@type': 'Resource', resourceId: 'r1', format: 'expanded', path: '/a/r1.expanded.json' },
    { '@type': 'Resource', resourceId: 'r1', format: 'source', path: '/a/r1.source.json' },
    { '@type': 'Resource', resourceId: 'r1', rev: 1, format: 'source', path: '/a/r1.v1.json' },
    { '@type': 'Resource', resourceId: 'r2', format: 'source', path: '/b/r2.json' },
    { '@type': 'Resource', resourceId: 'r1', format: 'source', path: '/c/r1.json' },
    { '@type': 'Resource', resourceId: 'r2', format: 'compacted', path: '/d/r2.json' },
  ];
  await createArchive(server.app, 'formats', resources);
});
afterAll(() => server.close());

test('entries of one revision that follow each other share one read of its payload; apart, each reads it', async () => {
  const prepared = await server.archives.download({ org: 'org', project: 'proj' }, 'formats', userIdentity('local', 'alice', []), false);
  const lookup = vi.spyOn(server.platform.resources, 'lookup');
  const chunks: Buffer[] = [];
  for await (const chunk of prepared.stream((error) => expect.unreachable(error.message))) chunks.push(chunk as Buffer);
  // Every read while writing names its revision by number (the one the entry was pinned to).
  const reads = lookup.mock.calls.map(([, id, selector]) => `${id.split('/').at(-1)}@${(selector as { rev: number }).rev}`);
  lookup.mockRestore();
  // r1@2 once for its three neighbouring entries; r1@2 and r2@1 again where another revision lies between.
  expect(reads).toEqual(['r1@2', 'r1@1', 'r2@1', 'r1@2', 'r2@1']);

  const { entries } = await unzip(Buffer.concat(chunks));
  const nameOf = (name: string) => JSON.parse(entries.get(name)!.toString());
  expect(nameOf('a/r1.compacted.json').name).toBe('second');
  expect(nameOf('a/r1.source.json').name).toBe('second');
  expect(JSON.stringify(nameOf('a/r1.expanded.json'))).toContain('second');
  expect(nameOf('a/r1.v1.json').name).toBe('first');
  expect(nameOf('b/r2.json').name).toBe('other');
  expect(nameOf('c/r1.json').name).toBe('second');
  expect(nameOf('d/r2.json').name).toBe('other');
});
