/**
 * Generation switching in-process: a read pinned before a switch finishes on
 * its generation while new reads see the new one, no read ever mixes two
 * generations (under many concurrent reads and repeated publishes, through
 * the worker pool), and a replaced generation is released only when its last
 * reader ends.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readdir, writeFile } from 'node:fs/promises';
import { LiveIndex } from '../../src/live/live-index.js';
import { IndexWriter } from '../../src/search/index-writer.js';
import { mergeAll } from '../../src/search/merge.js';
import { compileFilterSpec } from '../../src/search/query/filter-spec.js';
import { IndexSnapshot } from '../../src/search/snapshot.js';
import { PostingsCursor } from '../../src/search/segment/postings.js';
import { analyze } from '../../src/search/analysis/analyzer.js';
import { article, isOpen, tempDir, writeIndex } from '../search/helpers.js';

// Two worker threads and no minimum range: every search goes through the pool.
const options = { threads: 2, k1: 0.9, b: 0.4, titleWeight: 0.5, filterCacheSize: 4, minRangePerThread: 1 };
const all = compileFilterSpec({});
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function recordingLog() {
  const lines: { message: string; generation?: number }[] = [];
  const record = (details: object, message: string) => lines.push({ message, generation: (details as { generation?: number }).generation });
  return { lines, log: { info: record, warn: record } };
}

async function setup(initial = 2) {
  const { dir, cleanup } = await tempDir();
  cleanups.push(cleanup);
  await writeIndex(dir, Array.from({ length: initial }, (_, i) => article(`r0-${i}`, [`shared marker round0 number${i}`])));
  const { lines, log } = recordingLog();
  const index = await LiveIndex.open(dir, options, log);
  cleanups.unshift(() => index.close());
  return { dir, index, lines };
}

describe('LiveIndex', () => {
  it('finishes a pinned read on the old generation, serves the new one to new reads, and releases the old one after its last reader', async () => {
    const { dir, index, lines } = await setup();
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    const pinned = index.read(async ({ generation, searcher, library }) => {
      const hits = await searcher.search('shared', 10, all);
      await gate; // the switch happens here
      const again = await searcher.search('shared', 10, all);
      return { generation, ids: hits.map((hit) => library.contextMetadata(hit, 0, null).article_id).sort(), count: searcher.countArticles(all), again: again.length };
    });

    await writeIndex(dir, [article('r1-0', ['shared marker round1'])]);
    const writer = await IndexWriter.open(dir);
    writer.delete('r0-0');
    await writer.commit();
    expect(await index.reload()).toEqual({ switched: true, generation: 3, previous: 1 });
    expect(await index.reload()).toEqual({ switched: false, generation: 3, previous: 3 });

    const fresh = await index.read(async ({ generation, searcher }) => ({ generation, hits: (await searcher.search('shared', 10, all)).length, count: searcher.countArticles(all) }));
    expect(fresh).toEqual({ generation: 3, hits: 2, count: 2 });
    expect(lines.filter((l) => l.message === 'index generation released')).toEqual([]);

    openGate();
    expect(await pinned).toEqual({ generation: 1, ids: ['r0-0', 'r0-1'], count: 2, again: 2 });
    await expect.poll(() => lines.filter((l) => l.message === 'index generation released').map((l) => l.generation)).toEqual([1]);
    expect(lines.find((l) => l.message === 'index generation switched')?.generation).toBe(3);
    expect(index.current.generation).toBe(3);
    expect(index.getArticle('r0-0')).toBeNull();
    expect(index.articleCount()).toBe(2);
  });

  it('closes once a read under way ends, its release logged before; a read that never ends holds the close 2 s at most', async () => {
    const { index, lines } = await setup();
    const released = () => lines.filter((l) => l.message === 'index generation released').length;
    const read = index.hold();
    let closed = false;
    const closing = index.close().then(() => (closed = true));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(closed).toBe(false);
    read.release();
    await closing;
    expect(released()).toBe(1);

    const { index: stuck, lines: stuckLines } = await setup();
    const neverEnds = stuck.hold();
    const started = performance.now();
    await stuck.close();
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThanOrEqual(1_900);
    expect(waited).toBeLessThan(20_000);
    expect(stuckLines.filter((l) => l.message === 'index generation released')).toEqual([]);
    neverEnds.release();
    await expect.poll(() => stuckLines.filter((l) => l.message === 'index generation released').length).toBe(1);
  });

  it('shares unchanged segments and their stored-fields files; closing the old snapshot leaves the shared files open', async () => {
    const { dir, cleanup } = await tempDir();
    cleanups.push(cleanup);
    await writeIndex(dir, [article('kept', ['kept paragraph']), article('dropped', ['dropped paragraph'])], 1);
    const old = await IndexSnapshot.open(dir);
    expect(old.segments).toHaveLength(2);
    const writer = await IndexWriter.open(dir);
    writer.delete('dropped');
    await writer.add(article('new', ['new paragraph']));
    await writer.commit();

    const next = await IndexSnapshot.open(dir, old);
    expect(next.segments.map((s) => s.name)).toEqual([old.segments[0]!.name, expect.any(String)]);
    expect(next.segments[0]!.stored).toBe(old.segments[0]!.stored);
    expect(next.segments[0]!.segment).toBe(old.segments[0]!.segment);
    const droppedStored = old.segments[1]!.stored;
    const [sharedSegment, droppedSegment] = [old.segments[0]!.segment, old.segments[1]!.segment];
    old.close();
    // The shared segment still pages postings in (none was read before); the dropped one's file is closed.
    const kept = sharedSegment.termOrdinal(analyze('kept')[0]!);
    expect(PostingsCursor.forTerm(sharedSegment.fields.text, kept).next()).toBe(0);
    expect(isOpen(droppedSegment.share.paging!.fd)).toBe(false);
    // The shared file still reads for the newer snapshot; the one only the old snapshot held is closed.
    expect(next.segments[0]!.stored.paragraphText(0)).toBe('kept paragraph');
    expect(next.segments[1]!.stored.paragraphText(0)).toBe('new paragraph');
    expect(() => droppedStored.paragraphText(0)).toThrow();
    next.close();
    expect(() => next.segments[0]!.stored.paragraphText(0)).toThrow();
    expect(isOpen(sharedSegment.share.paging!.fd)).toBe(false);
  });

  it('never mixes generations under concurrent reads while ingests and a merge are published', async () => {
    const { dir, index } = await setup(50);
    // Articles per generation: each round adds 50 articles marked with its round.
    const expectedCount = new Map<number, number>([[1, 50]]);
    let stop = false;
    let reads = 0;
    const failures: string[] = [];
    const reader = async () => {
      while (!stop) {
        await index.read(async ({ generation, searcher, library }) => {
          const hits = await searcher.search('shared marker', 1000, all);
          await new Promise((resolve) => setImmediate(resolve)); // let a switch happen mid-read
          const count = searcher.countArticles(all);
          const ids = new Set(hits.map((hit) => library.contextMetadata(hit, 0, null).article_id));
          if (count !== expectedCount.get(generation) || ids.size !== count) failures.push(`generation ${generation}: count ${count}, hits ${ids.size}`);
          reads++;
        });
      }
    };
    const readers = Array.from({ length: 8 }, reader);
    for (let round = 1; round <= 3; round++) {
      await writeIndex(dir, Array.from({ length: 50 }, (_, i) => article(`r${round}-${i}`, [`shared marker round${round} number${i}`])));
      expectedCount.set(round + 1, 50 * (round + 1));
      expect((await index.reload()).generation).toBe(round + 1);
    }
    await mergeAll(dir);
    expectedCount.set(5, 200);
    expect(await index.reload()).toMatchObject({ switched: true, generation: 5 });
    expect(index.current.searcher.snapshot.segments).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    stop = true;
    await Promise.all(readers);
    expect(failures).toEqual([]);
    expect(reads).toBeGreaterThan(20);
  }, 180_000);

  it('keeps serving its generation when the published index cannot be loaded, and says why', async () => {
    const { dir, index } = await setup();
    await writeIndex(dir, [article('r1-0', ['shared marker round1'])]);
    const segment = (await readdir(dir)).filter((f) => f.endsWith('.seg')).sort().at(-1)!;
    await writeFile(`${dir}/${segment}`, 'not a segment');
    await expect(index.reload()).rejects.toThrow(/bad magic/);
    expect(index.current.generation).toBe(1);
    expect(await index.read(({ searcher }) => searcher.countArticles(all))).toBe(2);
  });
});
