/**
 * The watcher's log of reload failures: a published generation that cannot be
 * loaded is reported once, not at every check, and a later generation that
 * fails the same way (a broken segment kept by the next ingest) is reported
 * again, with its own generation.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { watchIndex } from '../../src/live/index-watcher.js';
import { LiveIndex } from '../../src/live/live-index.js';
import { publishManifest, readManifest } from '../../src/search/manifest.js';
import { article, tempDir, writeIndex } from '../search/helpers.js';

const options = { threads: 0, k1: 0.9, b: 0.4, titleWeight: 0.5, filterCacheSize: 4 };
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe('the index watcher', () => {
  it('logs a reload failure once per published generation', async () => {
    const { dir, cleanup } = await tempDir();
    cleanups.push(cleanup);
    await writeIndex(dir, [article('kept', ['kept paragraph'])]);
    const index = await LiveIndex.open(dir, options);
    cleanups.unshift(() => index.close());
    const failures: { message: string; cause: string }[] = [];
    const log = { info: () => {}, warn: (details: object, message: string) => failures.push({ message, cause: (details as { err: Error }).err.message }) };
    let finishedReloads = 0;
    const reload = index.reload.bind(index);
    vi.spyOn(index, 'reload').mockImplementation(() => {
      const result = reload();
      result.finally(() => finishedReloads++).catch(() => {});
      return result;
    });
    // Checks every few milliseconds: each failing generation is checked many times.
    const stopWatching = watchIndex(index, 20, log);
    cleanups.unshift(async () => stopWatching());
    const checksFrom = async (count: number) => {
      const start = finishedReloads;
      await expect.poll(() => finishedReloads, { timeout: 20_000 }).toBeGreaterThan(start + count);
    };

    // Generations 2 and 3 name a segment file that does not exist: the same failure, word for word.
    const good = await readManifest(dir);
    const missing = { ...good.segments[0]!, name: 'seg-999999' };
    await publishManifest(dir, { ...good, generation: 2, segments: [...good.segments, missing] });
    await checksFrom(10);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toEqual({ message: 'index reload failed; still serving the previous generation', cause: expect.stringContaining('seg-999999.seg') });

    await publishManifest(dir, { ...good, generation: 3, segments: [...good.segments, missing] });
    await checksFrom(10);
    expect(failures.map((f) => f.cause)).toEqual([failures[0]!.cause, failures[0]!.cause]);
    expect(index.current.generation).toBe(1);
  });
});
