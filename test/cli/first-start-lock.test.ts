/**
 * Two first starts at once on one fresh --data: the data directory is taken before the demo index is
 * built, so the second (started here while the first builds, which makes the race certain) is refused
 * with the data directory's message. It had met the first one's index
 * write lock instead, and been told to remove that live lock if no ingestion was running.
 */
import { describe, expect, it } from 'vitest';
import path from 'node:path';
import { tempDir } from '../search/helpers.js';
import { freePort, killChild } from '../reliability/server-process.js';
import { writeSlowCorpus } from './slow-corpus.js';
import { listening, spawnServe, type ServeRun } from '../compiled-server.js';

describe('two first starts at once on one fresh data directory', () => {
  it('serves from one and refuses the other with the data directory lock, not the index being built', async () => {
    const { dir, cleanup } = await tempDir();
    const data = path.join(dir, 'data');
    // A demo corpus that takes seconds to index: the second start surely comes while the first builds.
    const corpus = path.join(dir, 'corpus.jsonl');
    await writeSlowCorpus(corpus, 30_000);
    const serve = async () => ['--data', data, '--demo-corpus', corpus, '--port', String(await freePort()), '--search-threads', '0'];
    const first = spawnServe(await serve());
    let second: ServeRun | undefined;
    try {
      while (!first.output().includes('building it from the demo corpus') && first.child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 50));
      second = spawnServe(await serve());
      expect(await listening(second)).toBe(false);
      expect((await second.exited).code).toBe(1);
      expect(second.output()).toContain(`error: another litserve is serving the data directory ${data} (--data / DATA_DIR)`);
      expect(second.output()).not.toContain('write.lock');
      expect(await listening(first)).toBe(true);
    } finally {
      await killChild(first.child);
      if (second) await killChild(second.child);
      await cleanup();
    }
  }, 120_000);
});
