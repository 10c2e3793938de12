/**
 * --max-archive-downloads-per-client reaches the archive route of the server (app.ts), and /openapi.json
 * declares the 429 it answers beyond it. The bound itself: test/archive/download-slots.test.ts.
 */
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import type { Download } from '../../src/archive/download.js';
import { fixtureApp, type Fixture } from './app-fixture.js';
import { DEFAULT_AUTH, TOKENS, bearer, createProject } from '../platform/helpers.js';

const alice = bearer(TOKENS.alice);
const ARCHIVE = '/v1/archives/org/proj/one';
let fixture: Fixture;
/** The ZIP stream of the download in progress, open until the test ends it. */
const held: PassThrough[] = [];

beforeAll(async () => {
  fixture = await fixtureApp(undefined, {}, { auth: DEFAULT_AUTH, flags: ['--max-archive-downloads-per-client', '1'] });
  await createProject(fixture.app, 'org', 'proj');
  await fixture.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/r1', headers: alice, payload: { name: 'r1' } });
  const created = await fixture.app.inject({ method: 'PUT', url: ARCHIVE, headers: { ...alice, accept: 'application/json' }, payload: { resources: [{ '@type': 'Resource', resourceId: 'r1' }] } });
  expect(created.statusCode).toBe(201);
  const archives = fixture.archives!;
  const download = archives.download.bind(archives);
  vi.spyOn(archives, 'download').mockImplementation(async (...args) => {
    const prepared: Download = await download(...args);
    const stream = new PassThrough();
    // The first download stays in progress; any later one is sent at once.
    if (held.length === 0) held.push(stream);
    else stream.end('PK');
    return { ...prepared, stream: () => stream };
  });
});
afterAll(() => fixture.close());

test('with the setting at 1, a second download of the client is refused while the first is in progress', async () => {
  const first = fixture.app.inject({ method: 'GET', url: ARCHIVE, headers: alice });
  await expect.poll(() => held.length).toBe(1);
  const second = await fixture.app.inject({ method: 'GET', url: ARCHIVE, headers: alice });
  expect(second.statusCode).toBe(429);
  expect(second.json()['@type']).toBe('TooManyRequests');
  held[0]!.end('PK');
  expect((await first).statusCode).toBe(200);
});

test('/openapi.json declares the 429 of the archive download', async () => {
  const paths = (await fixture.app.inject({ url: '/openapi.json' })).json().paths;
  expect(paths['/v1/archives/{org}/{project}/{id}'].get.responses['429'].description).toContain('--max-archive-downloads-per-client');
});
