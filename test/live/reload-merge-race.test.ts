/**
 * Every ingestion is followed by the tiered merge, whose publish removes the
 * segment the ingestion had just published. A server reloading the
 * ingestion's generation can find that segment's stored-fields file gone
 * under it: it must read the manifest again and load the merged generation,
 * as it does for a segment file gone. It had failed the reload, logging that
 * the index "was built by an older version of litserve".
 */
import { copyFileSync, renameSync, rmSync } from 'node:fs';
import { cp } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LiveIndex } from '../../src/live/live-index.js';
import { mergeAll } from '../../src/search/merge.js';
import { article, tempDir, writeIndex } from '../search/helpers.js';

/** Run once, as the opener of the ingestion's stored-fields file starts: the merge publishes (see below). */
const race: { storedFile: string | null; publish: () => void } = { storedFile: null, publish: () => {} };

vi.mock('../../src/search/stored/open.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/search/stored/open.js')>();
  return {
    ...actual,
    openStoredFields: (file: string, segment: Parameters<typeof actual.openStoredFields>[1]) => {
      if (file === race.storedFile) {
        race.storedFile = null;
        race.publish();
      }
      return actual.openStoredFields(file, segment);
    },
  };
});

const options = { threads: 0, k1: 0.9, b: 0.4, titleWeight: 0.5, filterCacheSize: 4 };
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe('a reload racing a merge', () => {
  it('reads the manifest again when the merge removed the stored-fields file it was opening', async () => {
    const { dir: root, cleanup } = await tempDir();
    cleanups.push(cleanup);
    const served = path.join(root, 'served');
    const merged = path.join(root, 'merged');
    await writeIndex(served, [article('a', ['first text'])]);
    const index = await LiveIndex.open(served, options);
    cleanups.unshift(() => index.close());
    // The ingestion publishes generation 2; the merge that follows it (built aside here) publishes generation 3.
    await writeIndex(served, [article('b', ['second text'])]);
    await cp(served, merged, { recursive: true });
    await mergeAll(merged);
    race.storedFile = path.join(served, 'seg-000002000.stored');
    race.publish = () => {
      for (const file of ['seg-000003000.seg', 'seg-000003000.stored']) copyFileSync(path.join(merged, file), path.join(served, file));
      copyFileSync(path.join(merged, 'manifest.json'), path.join(served, 'manifest.json.tmp'));
      renameSync(path.join(served, 'manifest.json.tmp'), path.join(served, 'manifest.json'));
      for (const file of ['seg-000001000.seg', 'seg-000001000.stored', 'seg-000002000.seg', 'seg-000002000.stored']) rmSync(path.join(served, file));
    };

    expect(await index.reload()).toEqual({ switched: true, generation: 3, previous: 1 });
    expect(race.storedFile).toBeNull();
    expect(await index.read(({ searcher }) => searcher.statistics())).toMatchObject({ segments: 1, articles: 2 });
  });
});
