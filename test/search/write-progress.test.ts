/**
 * Writing a segment reports its progress (a large segment's writing had printed nothing, then sat
 * seconds before its first step): the terms sorted, each field's postings grouped by term and its terms
 * encoded, the stored fragments' token table chosen, then each article's fragments written, from 0 to
 * the whole, never going back.
 */
import { afterEach, expect, it } from 'vitest';
import { IndexWriter } from '../../src/search/index-writer.js';
import { FIELDS } from '../../src/search/segment/format.js';
import { steadyTotal } from './progress-reports.js';
import { article, tempDir } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

it('reports the sort, every field’s grouping and terms, the token table, then the articles, up to the total it announced', async () => {
  const { dir, cleanup } = await tempDir();
  cleanups.push(cleanup);
  const reports: [number, number][] = [];
  const writer = await IndexWriter.open(dir, { onWriteProgress: (done, total) => reports.push([done, total]) });
  // 3,000 articles with words of their own: about 6,000 terms in the text, 3,000 more in the titles.
  for (let i = 0; i < 3000; i++) await writer.add(article(`a${i}`, [`w${i}a w${i}b shared words`], { title: `t${i}` }));
  await writer.commit();
  const total = steadyTotal(reports);
  // The token table samples every fragment (the stored text is far below its 4 MiB sample): 3,000 articles and their 3,000 paragraphs.
  const sampleSteps = 6000;
  const segmentSteps = total - sampleSteps - 3000;
  // A step per term in the sort, then in each field's grouping and in its encoding.
  const phases = 1 + 2 * FIELDS.length;
  expect(segmentSteps % phases).toBe(0);
  const terms = segmentSteps / phases;
  expect(terms).toBeGreaterThan(9000);
  const done = reports.map(([d]) => d);
  const inside = (from: number, to: number) => done.filter((d) => d > from && d < to).length;
  // The sort, one report when it is done (a fraction of a second for 400,000 terms).
  expect(done).toContain(terms);
  for (const index of FIELDS.keys()) {
    const grouping = (1 + 2 * index) * terms;
    expect(done).toContain(grouping);
    // The grouping's second pass over the field's postings starts halfway.
    expect(inside(grouping, grouping + terms)).toBeGreaterThanOrEqual(1);
    expect(done).toContain(grouping + terms);
    // A report every 4,096 terms encoded.
    expect(inside(grouping + terms, grouping + 2 * terms)).toBeGreaterThanOrEqual(2);
  }
  // The token table's sample, a report every 1,024 fragments counted; then the articles, every 1,024.
  expect(done).toContain(segmentSteps);
  expect(inside(segmentSteps, segmentSteps + sampleSteps)).toBeGreaterThanOrEqual(4);
  expect(done).toContain(segmentSteps + sampleSteps);
  expect(inside(segmentSteps + sampleSteps, total)).toBeGreaterThanOrEqual(2);
});
