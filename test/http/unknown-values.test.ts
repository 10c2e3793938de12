/** Unknown is not zero: an article whose source gives no citation count or impact factor is served with null (issue 12 item 11). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fixtureApp, type Fixture } from './app-fixture.js';
import { readArticles } from '../../src/corpus/readers/index.js';
import type { ArticleInput } from '../../src/corpus/model.js';
import { tempDir } from '../search/helpers.js';

let fixture: Fixture;
beforeAll(async () => {
  // A BEIR document, read as ingestion reads it, and a JSONL article without the two fields.
  const { dir, cleanup } = await tempDir();
  const articles: ArticleInput[] = [];
  try {
    const beir = path.join(dir, 'corpus.jsonl');
    await writeFile(beir, JSON.stringify({ _id: 'beir-1', title: 'Grid cells', text: 'Grid cells tile space in the entorhinal cortex.' }));
    const jsonl = path.join(dir, 'articles.jsonl');
    await writeFile(jsonl, JSON.stringify({ article_id: 'own-1', title: 'Place cells', paragraphs: [{ section: 'Abstract', text: 'Place cells map space.' }] }));
    for (const [file, format] of [[beir, 'beir'], [jsonl, 'articles-jsonl']] as const) {
      for await (const event of readArticles(file, format)) if (event.kind === 'article') articles.push(event.article);
    }
  } finally {
    await cleanup();
  }
  expect(articles).toHaveLength(2);
  fixture = await fixtureApp(articles);
});
afterAll(() => fixture.close());

describe('unknown citation counts and impact factors', () => {
  it('are null in listings and paragraph search, not 0', async () => {
    const listing = (await fixture.app.inject({ method: 'GET', url: '/retrieval/article_listing?topics=space' })).json();
    expect(listing.items).toHaveLength(2);
    for (const item of listing.items) expect(item).toMatchObject({ cited_by: null, impact_factor: null });
    const search = (await fixture.app.inject({ method: 'GET', url: '/retrieval/?query=space' })).json();
    for (const item of search) expect(item).toMatchObject({ cited_by: null, impact_factor: null });
  });
});
