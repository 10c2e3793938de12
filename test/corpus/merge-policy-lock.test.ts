/**
 * Ingestion publishes, then takes the write lock again for the merge policy. Another writer that takes the
 * lock in between leaves the merge to a later run: the ingestion's data is published and the run has not
 * failed (it had ended with "is being written by process …" after publishing).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { ingest } from '../../src/corpus/ingest.js';
import { readManifest } from '../../src/search/manifest.js';
import { article, liveIds, tempDir, writeIndex } from '../search/helpers.js';

/** The other writer's release, once it has taken the lock in the window. */
const otherWriter: { release?: () => Promise<void> } = {};

// The window made certain: right before the policy's merge, another writer takes the lock for real.
vi.mock('../../src/search/merge.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/search/merge.js')>();
  const { acquireWriteLock } = await import('../../src/search/write-lock.js');
  return {
    ...original,
    mergeByPolicy: async (...args: Parameters<typeof original.mergeByPolicy>) => {
      otherWriter.release = (await acquireWriteLock(args[0])).release;
      return original.mergeByPolicy(...args);
    },
  };
});

describe('the merge policy after publishing', () => {
  it('is left to a later run when another writer took the lock, and the ingestion stands', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const indexDir = path.join(dir, 'index');
      await writeIndex(indexDir, [article('a1', ['place cells'])]);
      const input = path.join(dir, 'more.jsonl');
      await writeFile(input, JSON.stringify({ article_id: 'a2', title: 'Grid cells', paragraphs: [{ section: 'S', text: 'grid cells' }] }));
      const report = await ingest({ inputs: [input], indexDir, mergeFactor: 2 });
      expect(report.mergeSkipped).toMatch(/is being written by process \d+/);
      expect(report.merges).toEqual([]);
      expect((await readManifest(indexDir)).segments).toHaveLength(2);
      await otherWriter.release!();
      expect(await liveIds(indexDir)).toEqual(['a1', 'a2']);
    } finally {
      await otherWriter.release?.();
      await cleanup();
    }
  });
});
