/**
 * kill -9 at any moment of an ingestion or a merge leaves the previous index
 * intact: a child process ingests into (or merges) an existing index and is
 * SIGKILLed after a varying delay; the index must then open and hold exactly
 * the old or exactly the new content, and a later run must succeed.
 */
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Searcher } from '../../src/search/searcher.js';
import { compileFilterSpec } from '../../src/search/query/filter-spec.js';
import { readManifest } from '../../src/search/manifest.js';
import { IndexWriter } from '../../src/search/index-writer.js';
import { mergeAll } from '../../src/search/merge.js';
import { tempDir, writerLockTakenBy } from './helpers.js';

const CHILD = fileURLToPath(new URL('./fixtures/ingest-child.ts', import.meta.url));
const MERGE_CHILD = fileURLToPath(new URL('./fixtures/merge-child.ts', import.meta.url));
const COUNT = 3000;
const options = { threads: 0, k1: 0.9, b: 0.4, titleWeight: 0.5, filterCacheSize: 4 };

/**
 * Ingests a round into `dir` in a child; with `killAfterLockMs`, SIGKILLs it that long after it took the writer lock.
 * Counted from the lock, not the spawn: the child takes most of a second to start, and kills counted from the spawn
 * had mostly landed before it wrote anything.
 */
function runChild(dir: string, round: number, killAfterLockMs: number | null): Promise<{ committed: boolean }> {
  return runProcess([CHILD, dir, String(COUNT), String(round)], killAfterLockMs, 'committed', dir);
}

/** Merges `dir` in a child; with `killAfterLockMs`, SIGKILLs it that long after it took the writer lock. */
function runMerge(dir: string, killAfterLockMs: number | null): Promise<{ committed: boolean }> {
  return runProcess([MERGE_CHILD, dir], killAfterLockMs, 'merged', dir);
}

/** Runs `args` through tsx; with `killAfterLockMs`, SIGKILLs the child that long after it took the writer lock of `lockDir`. */
function runProcess(args: string[], killAfterLockMs: number | null, doneMarker: string, lockDir: string): Promise<{ committed: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let errors = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (errors += chunk));
    let timer: NodeJS.Timeout | null = null;
    if (killAfterLockMs !== null) {
      void writerLockTakenBy(lockDir, child).then((taken) => {
        if (taken) timer = setTimeout(() => child.kill('SIGKILL'), killAfterLockMs);
      });
    }
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (timer) clearTimeout(timer);
      if (code !== 0 && signal !== 'SIGKILL') reject(new Error(`child failed (${code}): ${errors}`));
      else resolve({ committed: output.includes(doneMarker) });
    });
  });
}

async function contents(dir: string) {
  const searcher = await Searcher.open(dir, options);
  try {
    const all = compileFilterSpec({});
    const rounds = new Set<string>();
    for (const hit of await searcher.search('shared', 1000, all)) {
      // Shared paragraphs start with the round that wrote them.
      rounds.add(searcher.snapshot.segments[hit.segment]!.stored.paragraphText(hit.paragraph).split(' ')[0]!);
    }
    return { articles: searcher.countArticles(all), sharedRounds: [...rounds] };
  } finally {
    await searcher.close();
  }
}

describe('crash safety of ingestion', () => {
  it('survives SIGKILL at varying moments', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      expect((await runChild(dir, 0, null)).committed).toBe(true);
      let expected = await contents(dir);
      expect(expected).toEqual({ articles: COUNT + COUNT / 2, sharedRounds: ['round0'] });
      let round = 1;
      let killedBeforeCommit = 0;
      // A round takes 0.65-1 s from the lock on an idle machine: seven kills land in its writes, the last may find it committed.
      for (const delay of [0, 50, 100, 200, 300, 450, 650, 1000]) {
        const { committed } = await runChild(dir, round, delay);
        const now = await contents(dir);
        if (committed) {
          expect(now).toEqual({ articles: expected.articles + COUNT, sharedRounds: [`round${round}`] });
          expected = now;
          round++;
        } else {
          killedBeforeCommit++;
          // Either the kill came before the manifest swap (old index) or just after it (new index).
          expect([expected, { articles: expected.articles + COUNT, sharedRounds: [`round${round}`] }]).toContainEqual(now);
          if (now.articles !== expected.articles) {
            expected = now;
            round++;
          }
        }
      }
      expect(killedBeforeCommit).toBeGreaterThan(0);
      expect((await runChild(dir, round, null)).committed).toBe(true);
      expect((await contents(dir)).articles).toBe(expected.articles + COUNT);
    } finally {
      await cleanup();
    }
  }, 120_000);

  it('survives SIGKILL at varying moments of a merge', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      // Several rounds in many small segments, with replaced articles and explicit deletions to drop.
      for (let round = 0; round < 3; round++) expect((await runChild(dir, round, null)).committed).toBe(true);
      const writer = await IndexWriter.open(dir);
      for (let i = 0; i < 100; i++) writer.delete(`r1-${i}`);
      await writer.commit();
      const expected = await contents(dir);
      expect(expected).toEqual({ articles: 3 * COUNT + COUNT / 2 - 100, sharedRounds: ['round2'] });
      const segmentsBefore = (await readManifest(dir)).segments.length;
      expect(segmentsBefore).toBeGreaterThan(10);

      let killedBeforePublish = 0;
      let merged = false;
      for (const delay of [0, 100, 300, 600, 1000]) {
        const { committed } = await runMerge(dir, delay);
        // Whatever the moment, the index holds the same articles; it is either the old segments or the merged one.
        expect(await contents(dir)).toEqual(expected);
        const segments = (await readManifest(dir)).segments;
        if (segments.length === 1) {
          expect(segments[0]).toMatchObject({ articles: expected.articles, deletedArticles: 0 });
          merged = true;
          break;
        }
        expect(committed).toBe(false);
        expect(segments).toHaveLength(segmentsBefore);
        killedBeforePublish++;
      }
      expect(killedBeforePublish, 'no kill landed inside a merge: the test proves nothing').toBeGreaterThan(0);
      if (!merged) expect((await runMerge(dir, null)).committed).toBe(true);
      expect((await readManifest(dir)).segments).toHaveLength(1);
      expect(await contents(dir)).toEqual(expected);
      // A kill can land after the publish, while the replaced files are being removed: the next writer
      // (here a merge that finds nothing to do) removes them, with the killed merges' half-written files.
      expect(await mergeAll(dir)).toBeNull();
      const files = await readdir(dir);
      expect(files.filter((file) => file.endsWith('.seg'))).toHaveLength(1);
      expect(files.filter((file) => file.endsWith('.stored'))).toHaveLength(1);
    } finally {
      await cleanup();
    }
  }, 240_000);
});
