/**
 * `ingest --merge` stopped by Ctrl-C while it merges stops within the merge instead of running it to its end
 * (the signal had been heard only once the merge's copying and postings were done, and the merge then
 * published): one line says the index is unchanged, the merged files and the lock are gone.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { ingest } from '../../src/corpus/ingest.js';
import { writeSlowCorpus } from './slow-corpus.js';
import { tempDir } from '../search/helpers.js';
import { COMPILED_MAIN } from '../compiled-server.js';

const generationOf = async (indexDir: string) => (JSON.parse(await readFile(path.join(indexDir, 'manifest.json'), 'utf8')) as { generation: number }).generation;

it('SIGINT while `ingest --merge` copies the merged segment says the index is unchanged, and leaves it so', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const indexDir = path.join(dir, 'index');
    const corpus = path.join(dir, 'corpus.jsonl');
    // About 15 segments, whose merge takes a second or more after its merged file appears.
    await writeSlowCorpus(corpus, 12_000);
    await ingest({ inputs: [corpus], indexDir, maxSegmentBytes: 1024 * 1024, mergeFactor: 0 });
    const generation = await generationOf(indexDir);
    const published = (await readdir(indexDir)).sort();
    expect(published.filter((name) => name.endsWith('.seg')).length).toBeGreaterThan(5);
    const child = spawn(process.execPath, [COMPILED_MAIN, 'ingest', '--index', indexDir, '--merge'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, killedBy) => resolve(killedBy ?? code)));
    // The merged segment's stored fields are written first: once they appear, the merge is copying.
    const merged = path.join(indexDir, `seg-${String(generation + 1).padStart(6, '0')}000.stored`);
    while (!existsSync(merged) && child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(child.exitCode).toBeNull();
    child.kill('SIGINT');
    expect(await exited).toBe('SIGINT');
    const lines = stderr.trim().split('\n');
    expect(lines.filter((line) => line.includes('interrupted'))).toEqual([`ingest: interrupted (SIGINT); the index is unchanged (generation ${generation})`]);
    expect(lines.at(-1)).toBe(`ingest: interrupted (SIGINT); the index is unchanged (generation ${generation})`);
    // No merged file, no write.lock: the segments it was merging stay published, and the next run has nothing to clear.
    expect((await readdir(indexDir)).sort()).toEqual(published);
    expect(await generationOf(indexDir)).toBe(generation);
  } finally {
    await cleanup();
  }
}, 60_000);
