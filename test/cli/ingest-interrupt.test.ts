/**
 * `ingest` stopped by Ctrl-C or `kill` says so, and in what state it leaves the index: it had ended
 * without a word (a bar on a terminal just stopped). The index is the one last published (every
 * generation is published at once: docs/RELIABILITY.md), unchanged when the run's own was not yet.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makePipe, openWhenRead } from './ids-pipe.js';
import { writeSlowCorpus } from './slow-corpus.js';
import { article, tempDir, writeIndex } from '../search/helpers.js';
import { interruptedIndexState } from '../../src/index-write-interruption.js';
import { COMPILED_MAIN } from '../compiled-server.js';


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
      const child = spawn(process.execPath, [COMPILED_MAIN, 'ingest', '--index', indexDir, '--input', corpus], { stdio: ['ignore', 'ignore', 'pipe'] });
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

  it('removes the write lock and the segments written for the generation it did not publish, and nothing the manifest names', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const indexDir = path.join(dir, 'index');
      await writeIndex(indexDir, [article('a1', ['place cells fire in CA1'])]);
      const generation = await generationOf(indexDir);
      const published = (await readdir(indexDir)).sort();
      const corpus = path.join(dir, 'corpus.jsonl');
      await writeSlowCorpus(corpus, 30_000);
      // Small segments: some are written, not yet published, when the signal comes.
      const args = [COMPILED_MAIN, 'ingest', '--index', indexDir, '--input', corpus, '--max-segment-mb', '0.2'];
      const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (chunk) => (stderr += chunk));
      const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, killedBy) => resolve(killedBy ?? code)));
      const unpublished = () => readdir(indexDir).then((names) => names.filter((name) => name.startsWith(`seg-${String(generation + 1).padStart(6, '0')}`)));
      while ((await unpublished()).length === 0 && child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(child.exitCode).toBeNull();
      child.kill('SIGTERM');
      expect(await exited).toBe('SIGTERM');
      expect(stderr.trim().split('\n').at(-1)).toBe(`ingest: interrupted (SIGTERM); the index is unchanged (generation ${generation})`);
      // Left as it was: no write.lock, no segment of the generation never published; the next run has nothing to clear.
      expect((await readdir(indexDir)).sort()).toEqual(published);
      expect(await generationOf(indexDir)).toBe(generation);
    } finally {
      await cleanup();
    }
  }, 60_000);

  const script = '/usr/bin/script';
  it.skipIf(!existsSync(script))(`on a terminal, with its bar showing, cleans up all the same${existsSync(script) ? '' : ` (SKIPPED: ${script}, which gives a job a terminal, is absent)`}`, async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const indexDir = path.join(dir, 'index');
      const corpus = path.join(dir, 'corpus.jsonl');
      await writeSlowCorpus(corpus, 30_000);
      // The bar's own listener had raised the signal again, which ended the run as at a second Ctrl-C, before its clean-up.
      const job = [
        `${process.execPath} ${COMPILED_MAIN} ingest --index ${indexDir} --input ${corpus} --max-segment-mb 0.2 & P=$!`,
        `while [ ! -e ${path.join(indexDir, 'seg-000001000.seg')} ] && kill -0 $P 2>/dev/null; do sleep 0.02; done`,
        'sleep 0.2; kill -INT $P; wait $P; echo "exit=$?"',
      ].join('\n');
      const result = spawnSync(script, ['-qec', job, '/dev/null'], { encoding: 'utf8', timeout: 50_000 });
      expect(result.stdout).toContain('\x1b[?25l'); // the bar showed (it hides the cursor)
      expect(result.stdout).toContain(`ingest: interrupted (SIGINT); no index was written to ${indexDir}`);
      expect(result.stdout).toContain('exit=130');
      expect(existsSync(indexDir)).toBe(false);
    } finally {
      await cleanup();
    }
  }, 60_000);

  it('SIGTERM while it starts (reading a --delete-file from a pipe) says it wrote nothing, and ends as the signal would', async () => {
    const { dir, cleanup } = await tempDir();
    let writer: FileHandle | undefined;
    try {
      const indexDir = path.join(dir, 'index');
      const corpus = path.join(dir, 'corpus.jsonl');
      await writeSlowCorpus(corpus, 1);
      // The run waits for its ids before it watches for signals.
      const ids = path.join(dir, 'ids');
      makePipe(ids);
      const child = spawn(process.execPath, [COMPILED_MAIN, 'ingest', '--index', indexDir, '--input', corpus, '--delete-file', ids], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk) => (stderr += chunk));
      const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, killedBy) => resolve(killedBy ?? code)));
      writer = await openWhenRead(ids, child);
      expect(writer).toBeDefined();
      child.kill('SIGTERM');
      expect(await exited).toBe('SIGTERM');
      expect(stderr.trim().split('\n').at(-1)).toBe('ingest: interrupted (SIGTERM) before writing anything to the index');
      expect(existsSync(indexDir)).toBe(false);
    } finally {
      await writer?.close();
      await cleanup();
    }
  }, 60_000);

  it('SIGTERM while its modules load says it wrote nothing, and ends as the signal would', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const indexDir = path.join(dir, 'index');
      const corpus = path.join(dir, 'corpus.jsonl');
      await writeSlowCorpus(corpus, 1);
      // The command's modules load after its start is decided; the hook holds them there (record-loaded-modules.ts).
      const loaded = path.join(dir, 'loaded');
      const args = ['--import', 'tsx', '--import', './test/cli/record-loaded-modules.ts', 'src/main.ts', 'ingest', '--index', indexDir, '--input', corpus];
      const child = spawn(process.execPath, args, {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, LOADED_MODULES_FILE: loaded, HOLD_MODULE: 'src/run-command.ts' },
      });
      let stderr = '';
      child.stderr.on('data', (chunk) => (stderr += chunk));
      const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, killedBy) => resolve(killedBy ?? code)));
      const loading = () => readFile(loaded, 'utf8').then((urls) => urls.includes('/src/run-command.ts'), () => false);
      while (!(await loading()) && child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(child.exitCode).toBeNull();
      child.kill('SIGTERM');
      expect(await exited).toBe('SIGTERM');
      expect(stderr.trim().split('\n').at(-1)).toBe('ingest: interrupted (SIGTERM) before writing anything to the index');
      expect(existsSync(indexDir)).toBe(false);
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
