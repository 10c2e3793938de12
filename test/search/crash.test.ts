/**
 * kill -9 at any moment of an ingestion leaves the previous index intact:
 * a child process ingests into an existing index and is SIGKILLed after a
 * varying delay; the index must then open and hold exactly the old or exactly
 * the new content, and a later ingestion must succeed.
 */
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Searcher } from '../../src/search/searcher.js';
import { compileFilterSpec } from '../../src/search/query/filter-spec.js';
import { tempDir } from './helpers.js';

const CHILD = fileURLToPath(new URL('./fixtures/ingest-child.ts', import.meta.url));
const COUNT = 3000;
const options = { threads: 0, k1: 0.9, b: 0.4, titleWeight: 0.5, filterCacheSize: 4 };

function runChild(dir: string, round: number, killAfterMs: number | null): Promise<{ committed: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dir, String(COUNT), String(round)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let errors = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (errors += chunk));
    const timer = killAfterMs === null ? null : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (timer) clearTimeout(timer);
      if (code !== 0 && signal !== 'SIGKILL') reject(new Error(`child failed (${code}): ${errors}`));
      else resolve({ committed: output.includes('committed') });
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
      for (const delay of [150, 400, 700, 1000, 1300, 1700, 2200]) {
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
});
