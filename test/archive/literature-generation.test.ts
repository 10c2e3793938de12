/**
 * An archive download reads literature articles from one index generation: the one served when the download was
 * prepared, held until its ZIP closes. An ingestion between preparing and streaming had given a 200 ZIP mixing
 * old and new articles, and a deletion had cut the ZIP short (an exploratory round's findings).
 */
import { Readable } from 'node:stream';
import path from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { LiveIndex } from '../../src/live/live-index.js';
import { userIdentity } from '../../src/platform/identities.js';
import { IndexWriter } from '../../src/search/index-writer.js';
import { article, tempDir, writeIndex } from '../search/helpers.js';
import { TOKENS, bearer, createProject, startServer, type TestServer } from '../platform/helpers.js';
import { unzip } from './unzip.js';

const ARTICLES = 40;
const SEARCH = { threads: 0, k1: 0.9, b: 0.4, titleWeight: 0, filterCacheSize: 4 };
const alice = userIdentity('local', 'alice', []);
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function versioned(version: string) {
  return Array.from({ length: ARTICLES }, (_, i) => article(`art-${i}`, [`place cells fire in one place, ${version}`], { title: `${version} of article ${i}` }));
}

/** A live index of version A, a server over it, and an archive of every article, prepared for download. */
async function prepared(): Promise<{ index: LiveIndex; indexDir: string; released: number[]; server: TestServer; download: Awaited<ReturnType<TestServer['archives']['download']>> }> {
  const { dir, cleanup } = await tempDir();
  cleanups.push(cleanup);
  const indexDir = path.join(dir, 'index');
  await writeIndex(indexDir, versioned('Version A'));
  const released: number[] = [];
  const index = await LiveIndex.open(indexDir, SEARCH, {
    info: (fields: { generation?: number }, message: string) => void (message === 'index generation released' && released.push(fields.generation!)),
    warn: () => {},
  });
  cleanups.push(() => index.close());
  const server = await startServer({ literature: index });
  cleanups.push(() => server.close());
  await createProject(server.app, 'org', 'proj');
  const resources = Array.from({ length: ARTICLES }, (_, i) => ({ '@type': 'Resource', project: 'literature/articles', resourceId: `art-${i}`, path: `/a/${i}.json` }));
  const created = await server.app.inject({
    method: 'PUT',
    url: '/v1/archives/org/proj/articles',
    headers: { ...bearer(TOKENS.alice), accept: 'application/json' },
    payload: { resources },
  });
  expect(created.statusCode).toBe(201);
  const download = await server.archives.download({ org: 'org', project: 'proj' }, 'articles', alice, false);
  return { index, indexDir, released, server, download };
}

async function zipOf(stream: Readable): Promise<Map<string, Buffer>> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return (await unzip(Buffer.concat(chunks))).entries;
}

test('articles replaced by an ingestion after the download was prepared: the ZIP holds every article as it was', async () => {
  const { index, indexDir, released, download } = await prepared();
  const first = index.current.generation;
  const writer = await IndexWriter.open(indexDir);
  for (const replaced of versioned('Version B')) await writer.add(replaced);
  await writer.commit();
  expect((await index.reload()).switched).toBe(true);
  // The replaced generation is held by the download, not released.
  expect(released).toEqual([]);
  const entries = await zipOf(download.stream(() => {}));
  expect(entries.size).toBe(ARTICLES);
  const read = [...entries.values()].map((bytes) => bytes.toString('utf8'));
  expect(read.filter((text) => text.includes('Version B'))).toEqual([]);
  expect(read.filter((text) => text.includes('Version A')).length).toBe(ARTICLES);
  // Let go once the ZIP has closed.
  await expect.poll(() => released).toEqual([first]);
});

test('articles deleted by an ingestion after the download was prepared: the ZIP is whole', async () => {
  const { index, indexDir, download } = await prepared();
  const writer = await IndexWriter.open(indexDir);
  for (let i = 0; i < ARTICLES; i++) writer.delete(`art-${i}`);
  await writer.commit();
  expect((await index.reload()).switched).toBe(true);
  expect(index.current.searcher.statistics().articles).toBe(0);
  let failure: Error | null = null;
  const entries = await zipOf(download.stream((error) => (failure = error)));
  expect(failure).toBeNull();
  expect(entries.size).toBe(ARTICLES);
});

test('a download abandoned, as HEAD abandons it, lets the generation go', async () => {
  const { index, indexDir, released, server, download } = await prepared();
  const first = index.current.generation;
  download.abandon();
  const head = await server.app.inject({ method: 'HEAD', url: '/v1/archives/org/proj/articles', headers: { ...bearer(TOKENS.alice), accept: 'application/zip' } });
  expect([head.statusCode, head.headers['content-type']]).toEqual([200, 'application/zip']);
  const writer = await IndexWriter.open(indexDir);
  writer.delete('art-0');
  await writer.commit();
  expect((await index.reload()).switched).toBe(true);
  // Nothing holds the replaced generation any more: released at the switch.
  await expect.poll(() => released).toEqual([first]);
});
