/**
 * Writing a segment reports its progress (a large segment's writing had printed nothing): each
 * field's terms encoded, then each article's fragments written, from 0 to the whole, never going back.
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

it('reports every field’s terms, then the articles, up to the total it announced', async () => {
  const { dir, cleanup } = await tempDir();
  cleanups.push(cleanup);
  const reports: [number, number][] = [];
  const writer = await IndexWriter.open(dir, { onWriteProgress: (done, total) => reports.push([done, total]) });
  // 3,000 articles with words of their own: about 6,000 terms in the text, 3,000 more in the titles.
  for (let i = 0; i < 3000; i++) await writer.add(article(`a${i}`, [`w${i}a w${i}b shared words`], { title: `t${i}` }));
  await writer.commit();
  const total = steadyTotal(reports);
  const termSteps = total - 3000;
  expect(termSteps % FIELDS.length).toBe(0);
  expect(termSteps / FIELDS.length).toBeGreaterThan(9000);
  const done = reports.map(([d]) => d);
  // The terms: a report every 4,096 of a field's terms; then the articles, every 1,024.
  expect(done.filter((d) => d > 0 && d < termSteps).length).toBeGreaterThanOrEqual(4);
  expect(done).toContain(termSteps);
  expect(done.filter((d) => d > termSteps && d < total).length).toBeGreaterThanOrEqual(2);
});
