/**
 * A server run from source starts its search workers through tsx. Their
 * transform cache writes never completed in a worker thread, so every worker
 * left an open descriptor per module it compiled (and an empty cache file,
 * which made the next worker compile again): about 90 per generation switch.
 * Here the workers see an empty cache (a fresh TMPDIR) so that they compile
 * every module, and the descriptors into it are counted once the generations
 * are released.
 */
import { readdirSync, readlinkSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LiveIndex } from '../../src/live/live-index.js';
import { COMPILED_SRC_ENV } from '../../src/runtime/worker-module.js';
import { article, tempDir, writeIndex } from '../search/helpers.js';

const options = { threads: 2, k1: 0.9, b: 0.4, titleWeight: 0.5, filterCacheSize: 4 };
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** Files under `dir` this process holds open. */
function openFilesUnder(dir: string): string[] {
  const targets = readdirSync('/proc/self/fd').map((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      return ''; // closed while listing
    }
  });
  return targets.filter((target) => target.startsWith(`${dir}${path.sep}`));
}

describe.runIf(process.platform === 'linux')('search workers run from source', () => {
  it('leave no file open after their generations are released', async () => {
    vi.stubEnv(COMPILED_SRC_ENV, undefined); // the suite's compiled workers would load nothing through tsx
    const emptyTemporary = await mkdtemp(path.join(tmpdir(), 'litserve-worker-tmp-'));
    const savedTemporary = process.env.TMPDIR;
    process.env.TMPDIR = emptyTemporary; // read by the workers' tsx for its cache directory
    cleanups.push(async () => {
      if (savedTemporary === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = savedTemporary;
      await rm(emptyTemporary, { recursive: true, force: true });
    });
    const { dir, cleanup } = await tempDir();
    cleanups.push(cleanup);

    await writeIndex(dir, [article('first', ['first paragraph'])]);
    const index = await LiveIndex.open(dir, options);
    await writeIndex(dir, [article('second', ['second paragraph'])]);
    expect(await index.reload()).toMatchObject({ switched: true });
    await index.close();
    expect(openFilesUnder(emptyTemporary)).toEqual([]);
  });
});
