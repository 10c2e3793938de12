/**
 * Writing a segment reports its progress (a large segment's writing had printed nothing, then sat
 * seconds before its first step): the terms sorted, each field's postings grouped by term and encoded,
 * the stored fragments' token table chosen, then the fragments written, from 0 to the whole, never going
 * back. Steps count the work that takes the time (postings, bytes), so the bar moves at one pace.
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

it('reports the sort, every field’s grouping and encoding by postings, the token table, then the fragments by bytes, up to the total it announced', async () => {
  const { dir, cleanup } = await tempDir();
  cleanups.push(cleanup);
  const reports: [number, number][] = [];
  const writer = await IndexWriter.open(dir, { onWriteProgress: (done, total) => reports.push([done, total]) });
  // 3,000 articles with words of their own. Text: 6,000 terms of one paragraph each and two shared by
  // all ("share", "word"), 4 postings per paragraph; titles: 3,000 terms, one posting per article.
  for (let i = 0; i < 3000; i++) await writer.add(article(`a${i}`, [`w${i}a w${i}b shared words`], { title: `t${i}` }));
  await writer.commit();
  const total = steadyTotal(reports);
  const terms = 9002;
  const postings = { text: 12_000, title: 3000 };
  // A step per term in the sort; then, per posting, one for the grouping and three for the encoding.
  const segmentSteps = terms + 4 * (postings.text + postings.title);
  // The token table samples every fragment (the stored text is far below its 4 MiB sample): 3,000 articles and their 3,000 paragraphs.
  const sampleSteps = 6000;
  const done = reports.map(([d]) => d);
  const inside = (from: number, to: number) => done.filter((d) => d > from && d < to).length;
  // The sort, one report when it is done.
  expect(done).toContain(terms);
  let fieldStart = terms;
  for (const field of FIELDS) {
    const count = postings[field];
    expect(done).toContain(fieldStart);
    // The grouping's two passes (half a step per posting each), then the encoding: a report every 4,096 terms encoded.
    expect(inside(fieldStart + count, fieldStart + 4 * count)).toBeGreaterThanOrEqual(field === 'text' ? 1 : 0);
    fieldStart += 4 * count;
  }
  expect(fieldStart).toBe(segmentSteps);
  // The token table's sample, a report every 1,024 fragments counted; then the fragments written, every 1,024 articles.
  expect(done).toContain(segmentSteps);
  expect(inside(segmentSteps, segmentSteps + sampleSteps)).toBeGreaterThanOrEqual(4);
  expect(done).toContain(segmentSteps + sampleSteps);
  const writeReports = done.filter((d) => d > segmentSteps + sampleSteps && d < total);
  expect(writeReports.length).toBeGreaterThanOrEqual(2);
  // By bytes, two per step: the 3,000 articles' fragments (their rendered JSON, a few hundred bytes each) take far more steps than one per article.
  expect(total - segmentSteps - sampleSteps).toBeGreaterThan(3000 * 100);
});
