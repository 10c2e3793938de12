/**
 * The two stretches of a merge before its copy had no stopping point: measuring the text of the deleted
 * articles (long when many are deleted) and choosing the stored fragments' token table (0.2-0.4 s at 1M
 * paragraphs). A signal aborted in either had been heard only once it ended. Now it is heard within it: the
 * merge stops there, publishes nothing, and leaves the index as it was.
 *
 * Each stretch is caught at its first step by a wrapper of the function it runs step after step (the
 * analyser for the measuring, the token counter for the choice), which aborts the signal at the next turn
 * of the event loop, as a stopping signal's handler would: the steps taken after it are counted.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { IndexWriter } from '../../src/search/index-writer.js';
import { mergeAll } from '../../src/search/merge.js';
import { article, liveIds, tempDir, writeIndex } from './helpers.js';

/** Steps of each stretch taken while `counting`, and what to do at the first. */
const steps = vi.hoisted(() => ({ counting: false, analysed: 0, sampled: 0, onFirst: (): void => {} }));

function step(kind: 'analysed' | 'sampled'): void {
  if (!steps.counting) return;
  if (steps.analysed + steps.sampled === 0) steps.onFirst();
  steps[kind]++;
}

vi.mock('../../src/search/analysis/analyzer.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/search/analysis/analyzer.js')>();
  return {
    ...original,
    analyze: (text: string) => {
      step('analysed');
      return original.analyze(text);
    },
  };
});

vi.mock('../../src/search/stored/dictionary.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/search/stored/dictionary.js')>();
  class CountedTokenCounts extends original.TokenCounts {
    override add(fragment: Buffer): void {
      step('sampled');
      super.add(fragment);
    }
  }
  return { ...original, TokenCounts: CountedTokenCounts };
});

const ARTICLES_PER_SEGMENT = 1500;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  steps.counting = false;
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** Three segments of 1,500 one-paragraph articles (9,000 fragments to sample), `deleted` of the first segment's deleted. */
async function threeSegments(deleted: number): Promise<string> {
  const { dir, cleanup } = await tempDir();
  cleanups.push(cleanup);
  for (let segment = 0; segment < 3; segment++) {
    const articles = Array.from({ length: ARTICLES_PER_SEGMENT }, (_, i) => article(`s${segment}-${i}`, [`w${segment}x${i}a shared words`], { title: `t${segment}x${i}` }));
    await writeIndex(dir, articles, undefined, 'dictionary');
  }
  if (deleted > 0) {
    const writer = await IndexWriter.open(dir);
    for (let i = 0; i < deleted; i++) writer.delete(`s0-${i}`);
    await writer.commit();
    await writer.close();
  }
  return dir;
}

/** The index's files, manifest and live ids: what a merge that publishes nothing leaves as it found. */
async function observed(dir: string) {
  return { files: (await readdir(dir)).sort(), manifest: await readFile(path.join(dir, 'manifest.json'), 'utf8'), ids: await liveIds(dir) };
}

/** Merges `dir` with the signal aborted at the next turn after the stretch's first step; resolves with the steps of the merge. */
async function mergeAbortedAtFirstStep(dir: string, storedCompression: 'dictionary' | 'none') {
  const controller = new AbortController();
  const reason = new Error('merge interrupted (test)');
  const reports: number[] = [];
  Object.assign(steps, { counting: true, analysed: 0, sampled: 0, onFirst: () => setImmediate(() => controller.abort(reason)) });
  const merging = mergeAll(dir, { signal: controller.signal, storedCompression, onProgress: (done) => reports.push(done) });
  await expect(merging).rejects.toBe(reason);
  steps.counting = false;
  return { analysed: steps.analysed, sampled: steps.sampled, reports };
}

describe('a merge whose signal is aborted before its copy', () => {
  it('while measuring its deleted articles stops within the measuring, publishes nothing and leaves no file', async () => {
    const deleted = 1200;
    const dir = await threeSegments(deleted);
    const before = await observed(dir);
    const { analysed, sampled, reports } = await mergeAbortedAtFirstStep(dir, 'none');
    // Two texts (title, paragraph) analysed per deleted article measured: it had measured all 1,200 first.
    const measured = analysed / 2;
    expect(measured).toBeGreaterThan(0);
    expect(measured).toBeLessThan(deleted / 2);
    expect([sampled, reports]).toEqual([0, []]);
    expect(await observed(dir)).toEqual(before);
  });

  it('while choosing the token table stops within the choice, publishes nothing and leaves no file', async () => {
    const dir = await threeSegments(0);
    const before = await observed(dir);
    const { analysed, sampled, reports } = await mergeAbortedAtFirstStep(dir, 'dictionary');
    // 9,000 fragments sampled (the segment is far below the 4 MiB sample): it had counted them all first.
    expect(sampled).toBeGreaterThan(0);
    expect(sampled).toBeLessThan(9000 / 2);
    // Reported: the sample's start (0 of its steps), nothing after the stop.
    expect([analysed, reports]).toEqual([0, [0]]);
    expect(await observed(dir)).toEqual(before);
  });
});
