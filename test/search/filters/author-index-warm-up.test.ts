/**
 * A snapshot warms its segments' author indexes in the background, a slice per event-loop turn,
 * instead of the first authors= filter or author suggestion building them on the request thread:
 * the warm-up spans many turns, a filter asked for midway gives what a brute-force scan gives,
 * and a closed snapshot's segments stop being warmed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IndexSnapshot, type LoadedSegment } from '../../../src/search/snapshot.js';
import { IndexWriter } from '../../../src/search/index-writer.js';
import { compileSegmentFilter } from '../../../src/search/filters/compile.js';
import { authorIndexBuilt, warmAuthorIndexes } from '../../../src/search/filters/author-index.js';
import { compileFilterSpec, foldName } from '../../../src/search/query/filter-spec.js';
import { FilterValues } from '../../../src/search/suggest.js';
import type { Bitset } from '../../../src/search/filters/bitset.js';
import { random } from '../../../scripts/lib/random.js';
import { article, tempDir } from '../helpers.js';

const NAMES = Array.from({ length: 120 }, (_, i) => (i % 4 === 0 ? [`Zoë Brontë ${i}`, `ZOE BRONTE ${i}`] : [`Zoë Brontë ${i}`]));
const SLICE = 4;

let dir: string;
let cleanup: () => Promise<void>;
const opened: IndexSnapshot[] = [];

beforeAll(async () => {
  const next = random(11);
  const temp = await tempDir();
  ({ dir, cleanup } = temp);
  for (let round = 0; round < 2; round++) {
    const writer = await IndexWriter.open(dir);
    for (let i = 0; i < 200; i++) {
      const authors = Array.from({ length: Math.floor(next() * 6) }, () => {
        const spellings = NAMES[Math.floor(next() * NAMES.length)]!;
        return spellings[Math.floor(next() * spellings.length)]!;
      });
      await writer.add(article(`r${round}-${i}`, ['grid cells'], { authors }));
    }
    await writer.commit();
  }
});

afterAll(async () => {
  for (const snapshot of opened) snapshot.close();
  await cleanup();
});

/** A snapshot of its own (segments no other test has indexed), its background warm-up stopped before its first turn unless `warm`. */
async function freshSnapshot({ warm = false } = {}): Promise<IndexSnapshot> {
  const snapshot = await IndexSnapshot.open(dir);
  opened.push(snapshot);
  if (!warm) snapshot.authorIndexWarmUp.stop();
  return snapshot;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Event-loop turns that pass before `promise` settles. */
async function turnsUntil(promise: Promise<void>): Promise<number> {
  let settled = false;
  void promise.then(() => (settled = true));
  let turns = 0;
  while (!settled) {
    await nextTurn();
    turns++;
  }
  return turns;
}

function members(bits: Bitset | null): number[] {
  const ids: number[] = [];
  bits?.forEach((i) => ids.push(i));
  return ids;
}

function bruteForce({ segment, liveArticles }: LoadedSegment, folded: string): number[] {
  return Array.from({ length: segment.articleCount }, (_, a) => a).filter(
    (a) => (!liveArticles || liveArticles.has(a)) && segment.articleAuthors(a).some((id) => foldName(segment.authors.get(id)) === folded),
  );
}

describe('author index warm-up', () => {
  it('builds a large author table over many event-loop turns, a slice at a time', async () => {
    const { segments } = await freshSnapshot();
    const { segment } = segments[0]!;
    expect(segment.authors.size).toBeGreaterThan(100);
    const warmUp = warmAuthorIndexes([segment], SLICE);
    expect(authorIndexBuilt(segment)).toBe(false);
    expect(await turnsUntil(warmUp.done)).toBeGreaterThan(segment.authors.size / SLICE);
    expect(authorIndexBuilt(segment)).toBe(true);
  });

  it('answers a filter asked for midway with what a brute-force scan keeps, and the warm-up then ends', async () => {
    const snapshot = await freshSnapshot();
    const warmUp = warmAuthorIndexes(snapshot.segments.map((s) => s.segment), SLICE);
    for (let i = 0; i < 5; i++) await nextTurn();
    expect(snapshot.segments.some(({ segment }) => authorIndexBuilt(segment))).toBe(false);
    for (const name of ['Zoë Brontë 0', 'zoe bronte 8', 'Zoë Brontë 77', 'Nobody Here']) {
      const spec = compileFilterSpec({ authors: [name] });
      for (const loaded of snapshot.segments) expect(members(compileSegmentFilter(loaded, spec).articles), name).toEqual(bruteForce(loaded, foldName(name)));
    }
    await warmUp.done;
    expect(snapshot.segments.every(({ segment }) => authorIndexBuilt(segment))).toBe(true);
  });

  it('gives the same suggestions midway as once warmed', async () => {
    const midway = await freshSnapshot();
    warmAuthorIndexes(midway.segments.map((s) => s.segment), SLICE);
    await nextTurn();
    const warmed = await freshSnapshot({ warm: true });
    await warmed.authorIndexWarmUp.done;
    expect(new FilterValues(midway).suggestAuthors('bronte', 1000)).toEqual(new FilterValues(warmed).suggestAuthors('bronte', 1000));
  });

  it('warms the segments of an open snapshot, and stops warming those of a closed one', async () => {
    const kept = await freshSnapshot({ warm: true });
    await kept.authorIndexWarmUp.done;
    expect(kept.segments.every(({ segment }) => authorIndexBuilt(segment))).toBe(true);

    const dropped = await IndexSnapshot.open(dir);
    const segments = dropped.segments.map((s) => s.segment);
    dropped.close();
    await dropped.authorIndexWarmUp.done;
    for (let i = 0; i < 20; i++) await nextTurn();
    expect(segments.some(authorIndexBuilt)).toBe(false);
  });

  it('stops midway when stopped, leaving the segments not reached unbuilt', async () => {
    const { segments } = await freshSnapshot();
    const [first, second] = segments.map((s) => s.segment);
    const warmUp = warmAuthorIndexes([first!, second!], SLICE);
    for (let i = 0; i < 3; i++) await nextTurn();
    warmUp.stop();
    await warmUp.done;
    for (let i = 0; i < 20; i++) await nextTurn();
    expect(authorIndexBuilt(first!)).toBe(false);
    expect(authorIndexBuilt(second!)).toBe(false);
  });
});
