/**
 * A merge reports its progress (a 1M-paragraph merge had been half a minute of silence): the token
 * table's sample counted (with one), the live articles copied, then the sources' terms merged, from 0
 * to the whole, never going back.
 */
import { afterEach, expect, it } from 'vitest';
import { mergeAll } from '../../src/search/merge.js';
import { steadyTotal } from './progress-reports.js';
import { article, tempDir, writeIndex } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** Three segments of 1,500 articles, each with words of its own (about 13,500 terms to merge), merged; its reports. */
async function mergeReports(storedCompression: 'none' | 'dictionary'): Promise<[number, number][]> {
  const { dir, cleanup } = await tempDir();
  cleanups.push(cleanup);
  for (let segment = 0; segment < 3; segment++) {
    const articles = Array.from({ length: 1500 }, (_, i) =>
      article(`s${segment}-${i}`, [`w${segment}x${i}a w${segment}x${i}b shared words`], { title: `t${segment}x${i}` }),
    );
    await writeIndex(dir, articles);
  }
  const reports: [number, number][] = [];
  const merge = await mergeAll(dir, { storedCompression, onProgress: (done, total) => reports.push([done, total]) });
  expect(merge?.articles).toBe(4500);
  return reports;
}

/** The merge without a token table, made once for both tests (about a second). */
let reportsWithoutTable: Promise<[number, number][]> | undefined;
const withoutTableReports = () => (reportsWithoutTable ??= mergeReports('none'));

it('without a token table, reports the copy of every live article, then the terms, up to the total it announced', async () => {
  const reports = await withoutTableReports();
  const total = steadyTotal(reports);
  const done = reports.map(([d]) => d);
  // The copy: a report every 1,024 articles, then all 4,500 copied.
  expect(done.filter((d) => d > 0 && d < 4500).length).toBeGreaterThanOrEqual(4);
  expect(done).toContain(4500);
  // The terms: reports between the copy and the end.
  expect(done.filter((d) => d > 4500 && d < total).length).toBeGreaterThanOrEqual(2);
  expect(total).toBeGreaterThan(4500 + 13_000);
});

it('with a token table (the default), first reports the sampled fragments counted for it (0.2-0.4 s at 1M paragraphs had shown nothing)', async () => {
  const withoutTable = steadyTotal(await withoutTableReports());
  const reports = await mergeReports('dictionary');
  const total = steadyTotal(reports);
  // The sample: every fragment of a file this small (4,500 articles and their 4,500 paragraphs), then the copy and the terms as without.
  const sample = 9000;
  expect(total).toBe(withoutTable + sample);
  const done = reports.map(([d]) => d);
  expect(done.filter((d) => d > 0 && d < sample).length).toBeGreaterThanOrEqual(4);
  expect(done).toContain(sample);
  expect(done).toContain(sample + 4500);
});
