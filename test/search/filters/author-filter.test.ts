/**
 * The authors filter matches full names, folded (case, accents, runs of spaces), and looks a new
 * value up in a per-segment index instead of folding the segment's whole author table again.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { IndexSnapshot } from '../../../src/search/snapshot.js';
import { compileSegmentFilter } from '../../../src/search/filters/compile.js';
import { compileFilterSpec } from '../../../src/search/query/filter-spec.js';
import { article, tempDir, writeIndex } from '../helpers.js';

let snapshot: IndexSnapshot;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  const temp = await tempDir();
  cleanup = temp.cleanup;
  await writeIndex(temp.dir, [
    article('a0', ['place cells'], { authors: ['José Núñez', 'Ada Lovelace'] }),
    article('a1', ['grid cells'], { authors: ['JOSE  NUNEZ'] }),
    article('a2', ['time cells'], { authors: ['José Núñez-Ruiz'] }),
    article('a3', ['head cells'], { authors: ['Ada Lovelace', 'ada lovelace'] }),
  ]);
  snapshot = await IndexSnapshot.open(temp.dir);
});

afterAll(async () => {
  snapshot.close();
  await cleanup();
});

function matchingArticles(authors: string[]): number[] {
  const [loaded] = snapshot.segments;
  const ids: number[] = [];
  compileSegmentFilter(loaded!, compileFilterSpec({ authors })).articles!.forEach((a) => ids.push(a));
  return ids;
}

describe('authors filter', () => {
  it('matches whole folded names, any spelling, never a prefix', () => {
    expect(snapshot.segments).toHaveLength(1);
    expect(matchingArticles(['jose nunez'])).toEqual([0, 1]);
    expect(matchingArticles(['JOSÉ NÚÑEZ-RUIZ'])).toEqual([2]);
    expect(matchingArticles(['jose'])).toEqual([]);
    expect(matchingArticles(['Ada Lovelace', 'jose nunez-ruiz'])).toEqual([0, 2, 3]);
    expect(matchingArticles(['Nobody At All'])).toEqual([]);
  });

  it('does not read the author table again for a new value', () => {
    matchingArticles(['someone first']);
    const read = vi.spyOn(snapshot.segments[0]!.segment.authors, 'get');
    try {
      expect(matchingArticles(['someone else'])).toEqual([]);
      expect(matchingArticles(['ada lovelace'])).toEqual([0, 3]);
      expect(read).not.toHaveBeenCalled();
    } finally {
      read.mockRestore();
    }
  });

  it('does not scan the articles for an author the segment does not hold', () => {
    const segment = snapshot.segments[0]!.segment;
    const scan = vi.spyOn(segment, 'articleAuthors');
    try {
      expect(matchingArticles(['Nobody At All'])).toEqual([]);
      expect(scan).not.toHaveBeenCalled();
    } finally {
      scan.mockRestore();
    }
  });
});
