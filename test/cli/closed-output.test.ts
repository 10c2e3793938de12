/**
 * A command whose output goes to a reader that stops early (`| head -1`) runs to its end: the first write to the
 * closed pipe had ended the process with EPIPE, an ingest part-way with its write lock left, eval without removing
 * its scratch folder.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../search/helpers.js';
import { COMPILED_MAIN } from '../compiled-server.js';

/** Runs the command with both output streams piped to a reader that closes them at once; resolves with its exit. */
function withOutputClosed(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const child = spawn(process.execPath, [COMPILED_MAIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.destroy();
  child.stderr!.destroy();
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
}

const lines = (count: number) => Array.from({ length: count }, (_, i) => JSON.stringify({ _id: `d${i}`, title: `t${i}`, text: `place cells ${i}` })).join('\n');

describe('output piped to a reader that has gone', () => {
  it('ingest runs to its end: the index is published and no write lock is left', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const corpus = path.join(dir, 'corpus.jsonl');
      // Its first record is warned of (a control character) while the run reads: a write in the middle of the run.
      await writeFile(corpus, `${JSON.stringify({ _id: 'bell', title: 'a\u0007b', text: 'place cells' })}\n${lines(20_000)}\n`);
      const index = path.join(dir, 'index');
      expect(await withOutputClosed(['ingest', '--format', 'beir', '--input', corpus, '--index', index])).toEqual({ code: 0, signal: null });
      const files = await readdir(index);
      expect(files).toContain('manifest.json');
      expect(files.filter((file) => file.endsWith('.lock'))).toEqual([]);
    } finally {
      await cleanup();
    }
  }, 60_000);

  it('eval runs to its end and removes its scratch folder', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const [corpus, queries, qrels, tmp] = ['corpus.jsonl', 'queries.jsonl', 'qrels.tsv', 'tmp'].map((name) => path.join(dir, name)) as [string, string, string, string];
      await writeFile(corpus, `${lines(500)}\n`);
      await writeFile(queries, '{"_id": "q1", "text": "place cells"}\n');
      await writeFile(qrels, 'q1\td1\t1\n');
      await mkdir(tmp);
      expect(await withOutputClosed(['eval', '--corpus', corpus, '--queries', queries, '--qrels', qrels], { TMPDIR: tmp })).toEqual({ code: 0, signal: null });
      expect(await readdir(tmp)).toEqual([]);
      expect(existsSync(tmp)).toBe(true);
    } finally {
      await cleanup();
    }
  }, 60_000);
});
