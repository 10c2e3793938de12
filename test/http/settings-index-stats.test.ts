/**
 * /settings' index_stats counts what is served: a replaced or deleted article's paragraphs stay
 * in their segment (marked deleted) until a merge, and were counted as paragraphs (7 → 8 here)
 * while articles counted only live ones. After a live replacement and deletion both count live
 * ones, and a merge, which drops the dead copies, changes neither.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IndexWriter } from '../../src/search/index-writer.js';
import { mergeAll } from '../../src/search/merge.js';
import { article } from '../search/helpers.js';
import { fixtureApp, type Fixture } from './app-fixture.js';

interface IndexStats {
  generation: number;
  segments: number;
  articles: number;
  paragraphs: number;
}

let fixture: Fixture;
beforeAll(async () => {
  fixture = await fixtureApp();
});
afterAll(() => fixture.close());

const indexStats = async () => (await fixture.app.inject({ url: '/settings' })).json().index_stats as IndexStats;

describe('/settings index_stats', () => {
  it('counts live paragraphs, as it counts live articles, after a live replacement and deletion', async () => {
    const before = await indexStats();
    // The fixture: hippo-1 (3 paragraphs), dopa-2 (1), grid-3 (2), undated-4 (1).
    expect(before).toMatchObject({ segments: 1, articles: 4, paragraphs: 7 });

    // As `litserve ingest` does from another process: grid-3 replaced by a one-paragraph version, hippo-1 deleted.
    const writer = await IndexWriter.open(fixture.indexDir);
    expect(await writer.add(article('grid-3', ['Grid cells, revised.']))).toBe('replaced');
    expect(writer.delete('hippo-1')).toBe(true);
    await writer.commit();
    expect((await fixture.index.reload()).switched).toBe(true);

    const after = await indexStats();
    expect(after).toMatchObject({ segments: 2, articles: 3, paragraphs: 3 });
    expect(after.generation).toBeGreaterThan(before.generation);

    await mergeAll(fixture.indexDir);
    expect((await fixture.index.reload()).switched).toBe(true);
    expect(await indexStats()).toMatchObject({ segments: 1, articles: 3, paragraphs: 3 });
  });
});
