/**
 * A reload that fails leaves nothing behind: the generation it had opened is
 * closed (its worker threads stopped, its segment files closed, its holds on
 * the served generation's shared segments dropped), and the failure reads
 * once in the server's log, not twice.
 */
import { readdirSync, readlinkSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import pino from 'pino';
import { GenerationLoadError, LiveIndex } from '../../src/live/live-index.js';
import { Searcher } from '../../src/search/searcher.js';
import { article, tempDir, writeIndex } from '../search/helpers.js';

const options = { threads: 2, k1: 0.9, b: 0.4, titleWeight: 0.5, filterCacheSize: 4, minRangePerThread: 1 };
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** This process's open descriptors on segment files of `dir`. */
function openSegmentFiles(dir: string): string[] {
  return readdirSync('/proc/self/fd')
    .map((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        return ''; // closed meanwhile (the listing's own descriptor)
      }
    })
    .filter((target) => target.startsWith(`${dir}/`) && target.endsWith('.seg'))
    .sort();
}

describe.skipIf(process.platform !== 'linux')('a reload that fails', () => {
  it('closes the generation it opened when its worker threads cannot start', async () => {
    const { dir, cleanup } = await tempDir();
    cleanups.push(cleanup);
    await writeIndex(dir, [article('first', ['shared text one'])]);
    const index = await LiveIndex.open(dir, options);
    const served = openSegmentFiles(dir);
    expect(served).toHaveLength(1);

    await writeIndex(dir, [article('second', ['shared text two'])]);
    // Starting threads can fail (a process out of descriptors or memory); the generation is then not served.
    vi.spyOn(Searcher.prototype, 'warm').mockRejectedValueOnce(new Error('cannot start a worker thread'));
    await expect(index.reload()).rejects.toThrow('cannot start a worker thread');
    expect(index.current.generation).toBe(1);
    expect(openSegmentFiles(dir)).toEqual(served);

    await index.close();
    expect(openSegmentFiles(dir)).toEqual([]);
  });

  it('is logged with its cause once', async () => {
    const { dir, cleanup } = await tempDir();
    cleanups.push(cleanup);
    await writeIndex(dir, [article('first', ['shared text one'])]);
    const index = await LiveIndex.open(dir, options);
    cleanups.unshift(() => index.close());
    await writeIndex(dir, [article('second', ['shared text two'])]);
    vi.spyOn(Searcher.prototype, 'warm').mockRejectedValueOnce(new Error('cannot start a worker thread'));
    const failure = await index.reload().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(GenerationLoadError);
    expect((failure as GenerationLoadError).generation).toBe(2);

    // As the watcher and POST /admin/reload log it: pino's serializer appends each cause's message.
    const logged = pino.stdSerializers.err(failure as Error);
    expect(logged.message).toBe('cannot start a worker thread');
    expect(logged.stack).toContain('cannot start a worker thread');
  });
});
