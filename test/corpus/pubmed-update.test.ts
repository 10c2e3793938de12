/**
 * PubMed daily update files: a revised citation replaces the earlier one, a
 * new one is added, and every PMID of a <DeleteCitation> is deleted; the run
 * reports added, replaced and deleted counts (and ids it could not delete).
 */
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { ingest } from '../../src/corpus/ingest.js';
import { Searcher } from '../../src/search/searcher.js';
import { Library } from '../../src/corpus/library.js';
import { compileFilterSpec } from '../../src/search/query/filter-spec.js';
import { tempDir } from '../search/helpers.js';
import { articlesOf, readAll } from './fixtures.js';

const BASELINE = fileURLToPath(new URL('./data/pubmed-baseline.xml', import.meta.url));
const UPDATE = fileURLToPath(new URL('./data/pubmed-update.xml', import.meta.url));
const options = { threads: 0, k1: 0.9, b: 0.4, titleWeight: 0.5, filterCacheSize: 4 };

describe('PubMed update files', () => {
  it('reads <DeleteCitation> PMIDs as deletions, in file order after the records before them', async () => {
    const events = await readAll(UPDATE, 'pubmed');
    expect(events.map((e) => (e.kind === 'delete' ? `delete ${e.articleId}` : e.kind === 'article' ? `article ${e.article.article_id}` : 'error'))).toEqual([
      'article 9000002',
      'article 9000004',
      'delete 9000001',
      'delete 9999999',
    ]);
    expect(events[2]!.source).toMatchObject({ file: UPDATE, element: 'DeleteCitation' });
    expect(articlesOf(events)[0]!.title).toBe('Dendritic whistles, revised');
  });

  it('applies an update file on top of a baseline: revised replaced, new added, deleted gone', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const indexDir = path.join(dir, 'index');
      const base = await ingest({ inputs: [BASELINE], indexDir });
      expect(base).toMatchObject({ indexed: 3, added: 3, replaced: 0, deleted: 0 });
      const update = await ingest({ inputs: [UPDATE], indexDir });
      expect(update).toMatchObject({ read: 2, indexed: 2, added: 1, replaced: 1, deleted: 1, notFound: ['9999999'] });

      const searcher = await Searcher.open(indexDir, options);
      const library = new Library(searcher);
      try {
        const all = compileFilterSpec({});
        expect(searcher.countArticles(all)).toBe(3);
        expect(library.listArticleIds(0, 10).sort()).toEqual(['9000002', '9000003', '9000004']);
        expect(library.getArticle('9000001')).toBeNull();
        expect(library.getArticle('9000002')!.article_title).toBe('Dendritic whistles, revised');
        expect(await searcher.search('glial lanterns', 10, all)).toEqual([]);
        expect(await searcher.search('first draft', 10, all)).toEqual([]);
        expect((await searcher.search('teapots', 10, all)).map((hit) => searcher.articleIdOf(hit))).toEqual(['9000004']);
      } finally {
        await searcher.close();
      }
      // Ids given twice are deleted once, and only those no live article has are "not found".
      const byId = await ingest({ inputs: [], indexDir, deleteIds: ['9000003', '9000003', '9999998', '9999998'] });
      expect(byId).toMatchObject({ deleted: 1, notFound: ['9999998'] });
    } finally {
      await cleanup();
    }
  });
});
