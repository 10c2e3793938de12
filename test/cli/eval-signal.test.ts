/**
 * `eval --corpus` stopped by Ctrl-C or `kill` while it indexes removes its scratch index: its `finally` does
 * not run on a signal, and each interrupted run had left a litserve-eval-XXXXXX directory of the corpus's size.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeSlowCorpus } from './slow-corpus.js';
import { tempDir } from '../search/helpers.js';
import { COMPILED_MAIN } from '../compiled-server.js';


async function scratchDirsIn(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((name) => name.startsWith('litserve-eval-'));
}

describe('npm run eval -- --corpus, stopped by a signal', () => {
  // Ended by the signal itself, as without a handler: a shell shows 130 (SIGINT) or 143 (SIGTERM).
  it.each(['SIGINT', 'SIGTERM'] as const)('%s while indexing removes the scratch index and ends as the signal would', async (signal) => {
    const { dir, cleanup } = await tempDir();
    try {
      const [corpus, queries, qrels, tmp] = ['corpus.jsonl', 'queries.jsonl', 'qrels.tsv', 'tmp'].map((name) => path.join(dir, name)) as [string, string, string, string];
      await writeSlowCorpus(corpus, 30_000);
      await writeFile(queries, '{"_id": "q1", "text": "place cells"}\n');
      await writeFile(qrels, 'q1\td1\t1\n');
      await mkdir(tmp);
      // Its own temporary directory, so that the test sees this run's scratch index and no one else's.
      const child = spawn(process.execPath, [COMPILED_MAIN, 'eval', '--corpus', corpus, '--queries', queries, '--qrels', qrels, '--quiet'], {
        env: { ...process.env, TMPDIR: tmp },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr!.on('data', (chunk) => (stderr += chunk));
      const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, killedBy) => resolve(killedBy ?? code)));
      let indexing = false;
      while (!indexing && child.exitCode === null) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        const [scratch] = await scratchDirsIn(tmp);
        indexing = scratch !== undefined && existsSync(path.join(tmp, scratch, 'write.lock'));
      }
      expect(indexing).toBe(true);
      const [scratch] = await scratchDirsIn(tmp);
      child.kill(signal);
      expect(await exited).toBe(signal);
      expect(await scratchDirsIn(tmp)).toEqual([]);
      // Said, once the ingestion has stopped writing there (it had been removed beneath the writer, silently).
      expect(stderr).toContain(`eval: interrupted (${signal}); its scratch index ${path.join(tmp, scratch!)} was removed\n`);
      expect(stderr).not.toMatch(/^error:/m);
    } finally {
      await cleanup();
    }
  }, 60_000);
});
