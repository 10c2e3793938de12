/**
 * A served index damaged after it was loaded, searched on the pool's worker
 * threads: the error a worker meets comes back to the calling thread as what
 * it is, a damaged file naming itself (the server answers it 503), and the
 * workers go on answering queries that do not read the file.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFile, truncate, writeFile } from 'node:fs/promises';
import { Searcher } from '../../src/search/searcher.js';
import { Library } from '../../src/corpus/library.js';
import { readManifest, segmentFile, storedFile } from '../../src/search/manifest.js';
import { damagedFileOf } from '../../src/search/segment/errors.js';
import { FIELDS } from '../../src/search/segment/format.js';
import { compileFilterSpec } from '../../src/search/query/filter-spec.js';
import { tempDir, writeIndex } from './helpers.js';
import { OCTOPUS, ZEBRAFISH, rejection } from './damaged-corpus.js';

const ALL = compileFilterSpec({});

describe('a damaged index searched on worker threads', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let searcher: Searcher | null = null;
  let zebrafishSegment: string;

  beforeEach(async () => {
    ({ dir, cleanup } = await tempDir());
    // Two generations: a zebrafish segment, then an octopus one.
    await writeIndex(dir, ZEBRAFISH, undefined, 'dictionary');
    await writeIndex(dir, OCTOPUS, undefined, 'dictionary');
    zebrafishSegment = (await readManifest(dir)).segments[0]!.name;
    // Every query and every fragment copy on the one worker thread.
    searcher = await Searcher.open(dir, { threads: 1, k1: 0.9, b: 0.4, titleWeight: 0.5, filterCacheSize: 4, poolCopies: 1 });
  });
  afterEach(async () => {
    await searcher?.close();
    searcher = null;
    await cleanup();
  });

  it('comes back from a worker as the truncated segment file, and the worker serves the other segment', async () => {
    const file = segmentFile(dir, zebrafishSegment);
    const segment = searcher!.snapshot.segments[0]!.segment;
    await truncate(file, Math.min(...FIELDS.map((field) => segment.fields[field].postings.byteOffset)));
    const error = await rejection(searcher!.search('zebrafish', 10, ALL));
    expect(damagedFileOf(error)).toBe(file);
    expect(String(error)).toMatch(/truncated after it was opened/);
    expect((await searcher!.search('octopus', 10, ALL)).length).toBe(10);
  });

  it('comes back from a worker copying fragments as the damaged stored file', async () => {
    const file = storedFile(dir, zebrafishSegment);
    const bytes = await readFile(file);
    // The file ends with its last paragraph's fragment, `…,"section":"Results"`: its closing quote becomes a control byte.
    expect(bytes.at(-1)).toBe(0x22);
    bytes[bytes.length - 1] = 0x22 ^ 0x3d;
    await writeFile(file, bytes);
    const library = new Library(searcher!);
    const hits = await searcher!.search('zebrafish', 1000, ALL);
    const error = await rejection(library.contextsJson(hits));
    expect(damagedFileOf(error)).toBe(file);
    expect(String(error)).toMatch(/is damaged \(a code is cut off\)/);
    const intact = await library.contextsJson(await searcher!.search('octopus', 1000, ALL));
    expect(JSON.parse(intact.toString()).length).toBe(150);
  });
});
