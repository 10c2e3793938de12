/**
 * A merge given an aborted signal stops at its next stopping point instead of running to its end (a Ctrl-C
 * had waited for the whole merge): it publishes nothing, removes the files it wrote, gives back its lock,
 * and rejects with the signal's reason. The index is left as it was, and searches the same.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ingest } from '../../src/corpus/ingest.js';
import { mergeAll } from '../../src/search/merge.js';
import { compileFilterSpec } from '../../src/search/query/filter-spec.js';
import { Searcher } from '../../src/search/searcher.js';
import { article, liveIds, tempDir, writeIndex } from './helpers.js';

const ALL = compileFilterSpec({});
const ARTICLES_PER_SEGMENT = 1500;
const LIVE = 3 * ARTICLES_PER_SEGMENT;
/** The token table's sample, the merge's first steps: every fragment of files this small (each article and its one paragraph). */
const SAMPLED = 2 * LIVE;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** Three segments of 1,500 articles, each with words of its own: over 4,500 articles to copy and 13,000 terms to merge. */
async function threeSegments(): Promise<string> {
  const { dir, cleanup } = await tempDir();
  cleanups.push(cleanup);
  for (let segment = 0; segment < 3; segment++) {
    const articles = Array.from({ length: ARTICLES_PER_SEGMENT }, (_, i) =>
      article(`s${segment}-${i}`, [`w${segment}x${i}a w${segment}x${i}b shared words`], { title: `t${segment}x${i}` }),
    );
    await writeIndex(dir, articles);
  }
  return dir;
}

/** What a reader of the index sees: its files, its manifest's bytes, its live ids and what two queries find. */
async function observed(dir: string) {
  const searcher = await Searcher.open(dir, { threads: 0, k1: 0.9, b: 0.4, titleWeight: 0.5, filterCacheSize: 4 });
  try {
    return {
      files: (await readdir(dir)).sort(),
      manifest: await readFile(path.join(dir, 'manifest.json'), 'utf8'),
      ids: await liveIds(dir),
      shared: await searcher.search('shared words', 50, ALL),
      own: await searcher.search('w1x7a t2x9', 10, ALL),
    };
  } finally {
    await searcher.close();
  }
}

describe('a merge whose signal is aborted', () => {
  // Each moment is told by the progress report it comes at (done, total), or by none: aborted before the merge is
  // called. A stopping signal's handler runs when the event loop turns, so the abort does too, but for the last
  // moment, which stands for a signal heard while the segment file is written (between its asynchronous writes).
  it.each([
    ['already when it starts', null, 'at once'],
    ['as it starts sampling for the token table', (done: number) => done === 0, 'at the next turn'],
    // The sample is reported every 1,024 fragments: the last report before the sample's end.
    ['at its last report of the sample', (done: number) => done < SAMPLED && done + 1024 >= SAMPLED, 'at the next turn'],
    ['as it starts copying the stored fragments', (done: number) => done === SAMPLED, 'at the next turn'],
    ['while merging the postings', (done: number, total: number) => done > SAMPLED + LIVE && done < total, 'at the next turn'],
    ['after its last step, before publishing', (done: number, total: number) => done === total, 'at once'],
  ] as const)('%s stops there, publishes nothing and leaves no file and no lock', async (_moment, abortAt, when) => {
    const dir = await threeSegments();
    const before = await observed(dir);
    const controller = new AbortController();
    const reason = new Error('merge interrupted (test)');
    const abort = () => controller.abort(reason);
    if (abortAt === null) abort();
    const reports: number[] = [];
    let reportsWhenAborted = 0;
    const merging = mergeAll(dir, {
      signal: controller.signal,
      onProgress: (done, total) => {
        reports.push(done);
        if (reportsWhenAborted > 0 || !abortAt?.(done, total)) return;
        reportsWhenAborted = reports.length;
        if (when === 'at once') abort();
        else setImmediate(abort);
      },
    });
    await expect(merging).rejects.toBe(reason);
    // It stopped where it was aborted: no step was taken, so none reported, after that.
    expect(reports.length).toBe(reportsWhenAborted);
    if (abortAt !== null) expect(reportsWhenAborted).toBeGreaterThan(0);
    expect(await observed(dir)).toEqual(before);
  });

  it('after an ingestion, stops its merge policy and leaves the generation the ingestion published', async () => {
    const dir = await threeSegments();
    const inputs = await tempDir();
    cleanups.push(inputs.cleanup);
    const corpus = path.join(inputs.dir, 'corpus.jsonl');
    await writeFile(corpus, JSON.stringify({ _id: 'new', title: 'A new one', text: 'shared words again' }));
    const controller = new AbortController();
    const reason = new Error('ingest interrupted (test)');
    // The four segments are of one tier: a merge factor of 3 merges three of them once the new one is published.
    const ingesting = ingest({
      inputs: [corpus],
      indexDir: dir,
      format: 'beir',
      mergeFactor: 3,
      signal: controller.signal,
      onMergeProgress: () => controller.abort(reason),
    });
    await expect(ingesting).rejects.toBe(reason);
    const after = await observed(dir);
    expect(JSON.parse(after.manifest)).toMatchObject({ generation: 4 });
    expect((JSON.parse(after.manifest) as { segments: unknown[] }).segments).toHaveLength(4);
    expect(after.files).toEqual(['manifest.json', ...['seg-000001000', 'seg-000002000', 'seg-000003000', 'seg-000004000'].flatMap((name) => [`${name}.seg`, `${name}.stored`])]);
  });
});
