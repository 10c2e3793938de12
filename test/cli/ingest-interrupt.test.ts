/**
 * `ingest` stopped by Ctrl-C or `kill` says so, and in what state it leaves the index: it had ended
 * without a word (a bar on a terminal just stopped). The index is the one last published (every
 * generation is published at once: docs/RELIABILITY.md), unchanged when the run's own was not yet.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeSlowCorpus } from './slow-corpus.js';
import { article, tempDir, writeIndex } from '../search/helpers.js';
import { interruptedIndexState } from '../../src/ingest-interruption.js';


const generationOf = async (indexDir: string) => (JSON.parse(await readFile(path.join(indexDir, 'manifest.json'), 'utf8')) as { generation: number }).generation;

describe('npm run ingest, stopped by a signal', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)('%s while indexing says the index is unchanged, and ends as the signal would', async (signal) => {
    const { dir, cleanup } = await tempDir();
    try {
      const indexDir = path.join(dir, 'index');
      await writeIndex(indexDir, [article('a1', ['place cells fire in CA1'])]);
      const generation = await generationOf(indexDir);
      const corpus = path.join(dir, 'corpus.jsonl');
      await writeSlowCorpus(corpus, 30_000);
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'ingest', '--index', indexDir, '--input', corpus], { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (chunk) => (stderr += chunk));
      const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, killedBy) => resolve(killedBy ?? code)));
      while (!existsSync(path.join(indexDir, 'write.lock')) && child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(child.exitCode).toBeNull();
      child.kill(signal);
      expect(await exited).toBe(signal);
      expect(stderr.trim().split('\n').at(-1)).toBe(`ingest: interrupted (${signal}); the index is unchanged (generation ${generation})`);
      expect(await generationOf(indexDir)).toBe(generation);
    } finally {
      await cleanup();
    }
  }, 60_000);

  it('names what a run published before the signal, and a run that wrote no index', () => {
    expect(interruptedIndexState('/x', 3, 4)).toBe('the index is at generation 4 (generation 3 when the run started)');
    expect(interruptedIndexState('/x', null, 1)).toBe('the index is at generation 1 (no index when the run started)');
    expect(interruptedIndexState('/x', null, null)).toBe('no index was written to /x');
  });
});
