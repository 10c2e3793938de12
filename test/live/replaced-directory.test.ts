/**
 * An index directory replaced while serving (rebuilt elsewhere and moved into
 * place, restored from a backup) can publish the generation the server
 * serves, with segment names the server already holds but other contents.
 * The server must load the new index, not keep the removed one, and must
 * never lend a held segment to a file of the same name with other contents.
 * A hand-broken manifest is refused with a message naming the file.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { rename, rm, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { LiveIndex } from '../../src/live/live-index.js';
import { watchIndex } from '../../src/live/index-watcher.js';
import { compileFilterSpec } from '../../src/search/query/filter-spec.js';
import { readManifest, segmentFile } from '../../src/search/manifest.js';
import { IndexSnapshot } from '../../src/search/snapshot.js';
import { IndexWriter } from '../../src/search/index-writer.js';
import { article, tempDir, writeIndex } from '../search/helpers.js';

const options = { threads: 0, k1: 0.9, b: 0.4, titleWeight: 0.5, filterCacheSize: 4 };
const all = compileFilterSpec({});
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const articles = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => article(`${prefix}-${i}`, [`${prefix}marker paragraph ${i}`]));

async function servedIds(index: LiveIndex): Promise<string[]> {
  return index.read(({ library }) => library.listArticleIds(0, 1000).sort());
}

/** A temporary directory, removed after the test. */
async function scratchDir(): Promise<string> {
  const { dir, cleanup } = await tempDir();
  cleanups.push(cleanup);
  return dir;
}

/** An index of `count` articles written in `dir`, served until the test ends. */
async function servedIndex(dir: string, prefix: string, count: number): Promise<LiveIndex> {
  await writeIndex(dir, articles(prefix, count));
  const index = await LiveIndex.open(dir, options);
  cleanups.unshift(() => index.close());
  return index;
}

/** Far longer than any test: a generation picked up while watching was noticed by the directory watch, not the poll. */
const NO_POLL_MS = 3_600_000;
const silent = { info: () => {}, warn: () => {} };

describe('an index directory replaced or damaged while serving', () => {
  it('watches the directory the path names after a replacement, not the one moved away', async () => {
    const dir = await scratchDir();
    const served = path.join(dir, 'index');
    const index = await servedIndex(served, 'old', 3);
    const stopWatching = watchIndex(index, NO_POLL_MS, silent);
    cleanups.unshift(async () => stopWatching());
    const servedBecomes = (expected: string[]) => expect.poll(() => servedIds(index), { timeout: 20_000, interval: 20 }).toEqual(expected.sort());

    // Moved aside and replaced (mv index index.old && mv rebuilt index).
    await writeIndex(path.join(dir, 'rebuilt'), articles('new', 2));
    await rename(served, path.join(dir, 'index.old'));
    await rename(path.join(dir, 'rebuilt'), served);
    await servedBecomes(articles('new', 2).map((a) => a.article_id));
    // The next generation is published in the directory now named `index`.
    await writeIndex(served, articles('more', 1));
    await servedBecomes([...articles('new', 2), ...articles('more', 1)].map((a) => a.article_id));

    // Removed and replaced: the same again.
    await writeIndex(path.join(dir, 'second'), articles('second', 2));
    await rm(served, { recursive: true });
    await rename(path.join(dir, 'second'), served);
    await servedBecomes(articles('second', 2).map((a) => a.article_id));
    await writeIndex(served, articles('last', 1));
    await servedBecomes([...articles('second', 2), ...articles('last', 1)].map((a) => a.article_id));
  });

  it('serves the replacing index even at the same generation, and shares no segment by name alone', async () => {
    const dir = await scratchDir();
    const served = path.join(dir, 'index');
    const rebuilt = path.join(dir, 'rebuilt');
    const index = await servedIndex(served, 'old', 3);

    // Same generation (1) and same segment name as the served index, other articles.
    await writeIndex(rebuilt, articles('new', 5));
    expect((await readManifest(rebuilt)).segments.map((s) => s.name)).toEqual((await readManifest(served)).segments.map((s) => s.name));
    await rm(served, { recursive: true });
    await rename(rebuilt, served);
    expect(await index.reload()).toMatchObject({ switched: true, generation: 1 });
    expect(await servedIds(index)).toEqual(articles('new', 5).map((a) => a.article_id).sort());

    // The next ingest keeps the replacing index's first segment: it must be read from its file, not lent by name.
    await writeIndex(served, articles('more', 2));
    expect(await index.reload()).toMatchObject({ switched: true, generation: 2 });
    expect(await servedIds(index)).toEqual([...articles('new', 5), ...articles('more', 2)].map((a) => a.article_id).sort());
    expect(await index.read(async ({ searcher }) => (await searcher.search('newmarker', 10, all)).length)).toBe(5);
    expect(await index.reload()).toMatchObject({ switched: false, generation: 2 });
  });

  it('does not lend a held segment to another file of the same name', async () => {
    const dir = await scratchDir();
    const served = path.join(dir, 'index');
    const rebuilt = path.join(dir, 'rebuilt');
    await writeIndex(served, articles('old', 3));
    const old = await IndexSnapshot.open(served);
    cleanups.unshift(async () => old.close());
    await writeIndex(rebuilt, articles('new', 5));
    await rm(served, { recursive: true });
    await rename(rebuilt, served);
    const next = await IndexSnapshot.open(served, old);
    cleanups.unshift(async () => next.close());
    expect(next.segments[0]!.name).toBe(old.segments[0]!.name);
    expect(next.segments[0]!.segment).not.toBe(old.segments[0]!.segment);
    expect(next.liveArticleCount).toBe(5);
    expect(next.segments[0]!.stored.paragraphText(0)).toBe('newmarker paragraph 0');
  });

  it('refuses a truncated or hand-edited manifest naming the file, and keeps serving', async () => {
    const dir = await scratchDir();
    const index = await servedIndex(dir, 'kept', 2);
    const manifestFile = path.join(dir, 'manifest.json');
    const good = await readManifest(dir);

    await writeFile(manifestFile, JSON.stringify(good).slice(0, 40));
    await expect(index.reload()).rejects.toThrow(`${manifestFile} is not valid JSON`);

    const edited = [
      { ...good, generation: 2, segments: [{ ...good.segments[0]!, name: '../../elsewhere' }] },
      { ...good, generation: 2, segments: null },
      { ...good, generation: -1 },
      { ...good, generation: 2, segments: [{ ...good.segments[0]!, deletions: '/etc/passwd' }] },
    ];
    for (const manifest of edited) {
      await writeFile(manifestFile, JSON.stringify(manifest));
      await expect(index.reload()).rejects.toThrow(`${manifestFile} is not a valid index manifest`);
    }
    expect(index.current.generation).toBe(1);
    expect(await servedIds(index)).toEqual(['kept-0', 'kept-1']);
  });

  it('names the segment file a published generation cannot load from, and keeps serving', async () => {
    const dir = await scratchDir();
    const index = await servedIndex(dir, 'kept', 2);
    await writeIndex(dir, articles('added', 2));
    const added = (await readManifest(dir)).segments.at(-1)!.name;
    const file = segmentFile(dir, added);
    await truncate(file, 2000);
    await expect(index.reload()).rejects.toThrow(file);
    expect(index.current.generation).toBe(1);
    expect(await servedIds(index)).toEqual(['kept-0', 'kept-1']);
  });

  it('refuses a truncated deletions file instead of bringing deleted articles back, in the server and in the next writer', async () => {
    const dir = await scratchDir();
    const index = await servedIndex(dir, 'kept', 40);
    const writer = await IndexWriter.open(dir);
    writer.delete('kept-39');
    await writer.commit();
    const { deletions } = (await readManifest(dir)).segments[0]!;
    const file = path.join(dir, deletions!);
    await truncate(file, 0);
    await expect(index.reload()).rejects.toThrow(file);
    expect(index.current.generation).toBe(1);
    await expect(IndexWriter.open(dir)).rejects.toThrow(file);
  });
});
