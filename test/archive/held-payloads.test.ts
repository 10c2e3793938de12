/**
 * A download is prepared before its first byte and then lives as long as its client reads, which
 * a slow client may make last for hours. What a prepared download holds must not grow with its
 * resources' payloads: each prepared download had kept every payload its entries were resolved
 * with (up to the 128 MiB an archive may render), so a dozen slow anonymous readers of one archive
 * of large revisions held 1.4 GiB (measured on a server: 0.7 GiB before, 2.1 GiB with 12 readers).
 * The check allows less than one download's payloads (8 downloads of 24 MiB each: 168 MiB were held
 * before the fix on LMDB; now well under 1 MiB on either store, once freed buffers are counted out).
 */
import { randomBytes } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Download } from '../../src/archive/download.js';
import { userIdentity } from '../../src/platform/identities.js';
import { TOKENS, type TestServer, bearer, createProject, startServer } from '../platform/helpers.js';
import { unzip } from './unzip.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const REVISIONS = 16;
const PAYLOAD_CHARACTERS = 1.5 * 1024 ** 2;
const DOWNLOADS = 8;

let server: TestServer;
const alice = bearer(TOKENS.alice);
const payloads: string[] = [];

beforeAll(async () => {
  server = await startServer();
  await createProject(server.app, 'org', 'proj');
  for (let rev = 0; rev < REVISIONS; rev++) {
    // Random text: nothing shares or compresses it.
    const blob = randomBytes((PAYLOAD_CHARACTERS * 3) / 4).toString('base64');
    payloads.push(blob);
    const url = `/v1/resources/org/proj/_/large${rev === 0 ? '' : `?rev=${rev}`}`;
    const response = await server.app.inject({ method: 'PUT', url, headers: alice, payload: { blob } });
    expect(response.statusCode).toBeLessThan(300);
  }
  const resources = Array.from({ length: REVISIONS }, (_, i) => ({ '@type': 'Resource', resourceId: 'large', rev: i + 1, format: 'source', path: `/large/${i + 1}.json` }));
  const created = await server.app.inject({ method: 'PUT', url: '/v1/archives/org/proj/large', headers: { ...alice, accept: 'application/json' }, payload: { resources } });
  expect(created.statusCode).toBe(201);
}, 120_000);
afterAll(() => server.close());

/**
 * V8 frees the backing stores of collected buffers on a background thread, so right after one
 * collection `external` and `arrayBuffers` may still count up to ~70 MiB of PostgreSQL reads
 * already dropped: collect, then yield, a few times before reading.
 */
async function heldBytes(): Promise<number> {
  for (let round = 0; round < 3; round++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const { heapUsed, external, arrayBuffers } = process.memoryUsage();
  return heapUsed + external + arrayBuffers;
}

const prepare = () => server.archives.download({ org: 'org', project: 'proj' }, 'large', userIdentity('local', 'alice', []), false);

test('prepared downloads waiting for their readers hold none of their payloads', async () => {
  await prepare();
  const before = await heldBytes();
  const waiting: Download[] = [];
  for (let i = 0; i < DOWNLOADS; i++) waiting.push(await prepare());
  const grownMiB = ((await heldBytes()) - before) / 1024 ** 2;
  expect(waiting).toHaveLength(DOWNLOADS);
  expect(grownMiB).toBeLessThan(REVISIONS * PAYLOAD_CHARACTERS / 1024 ** 2);
}, 120_000);

test('each entry still holds the payload of the revision it was pinned to', async () => {
  const response = await server.app.inject({ method: 'GET', url: '/v1/archives/org/proj/large', headers: alice });
  expect(response.statusCode).toBe(200);
  const { entries } = await unzip(response.rawPayload);
  for (let rev = 1; rev <= REVISIONS; rev++) expect(JSON.parse(entries.get(`large/${rev}.json`)!.toString()).blob).toBe(payloads[rev - 1]);
}, 120_000);
