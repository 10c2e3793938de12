/** `--id-prefix` keeps sources with overlapping ids apart (issue 12 item 15). */
import { describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { tempDir } from '../search/helpers.js';
import { Searcher } from '../../src/search/searcher.js';
import { Library } from '../../src/corpus/library.js';
import { compileFilterSpec } from '../../src/search/query/filter-spec.js';
import { ingest } from '../../src/corpus/ingest.js';
import { ingestCli } from './ingest-command.js';


async function articleIds(indexDir: string): Promise<string[]> {
  const searcher = await Searcher.open(indexDir, { threads: 0, k1: 0.6, b: 0.75, titleWeight: 0.25, filterCacheSize: 4 });
  try {
    const library = new Library(searcher);
    return (await searcher.listArticles(compileFilterSpec({}), 100, true)).map((hit) => library.articleMetadata(hit).article_id).sort();
  } finally {
    await searcher.close();
  }
}

describe('npm run ingest -- --id-prefix', () => {
  it('without a prefix the same id from another source replaces the article; with prefixes both stay', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const beir = path.join(dir, 'corpus.jsonl');
      await writeFile(beir, JSON.stringify({ _id: '12345', title: 'A BEIR claim', text: 'Grid cells tile space.' }));
      const own = path.join(dir, 'articles.jsonl');
      await writeFile(own, JSON.stringify({ article_id: '12345', title: 'A PubMed article', paragraphs: [{ section: 'Abstract', text: 'Place cells map space.' }] }));

      const plain = path.join(dir, 'plain');
      await ingest({ inputs: [beir], indexDir: plain });
      expect((await ingest({ inputs: [own], indexDir: plain })).replaced).toBe(1);
      expect(await articleIds(plain)).toEqual(['12345']);

      const prefixed = path.join(dir, 'prefixed');
      await ingest({ inputs: [beir], indexDir: prefixed, idPrefix: 'scifact:' });
      // The flag, through the command.
      const other = ingestCli('--input', own, '--index', prefixed, '--id-prefix', 'pmid:');
      expect(other.code).toBe(0);
      expect(other.stderr).toContain('(replaced 0)');
      expect(await articleIds(prefixed)).toEqual(['pmid:12345', 'scifact:12345']);
    } finally {
      await cleanup();
    }
  }, 60_000);

  it('refuses a prefix that would not be URL-safe', () => {
    const { code, stderr } = ingestCli('--input', 'x', '--index', '/tmp/never', '--id-prefix', 'a b/');
    expect(code).toBe(2);
    expect(stderr).toContain('--id-prefix');
  }, 30_000);

  it('an id with a control character, white space at an end or over 512 bytes is reported with its line and skipped: the API could not address it, nor --delete-file name it', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const input = path.join(dir, 'ids.jsonl');
      const article = (id: string) => JSON.stringify({ article_id: id, title: 'T', paragraphs: [{ section: 'Abstract', text: 'Place cells.' }] });
      const ids = ['fine', 'a\nb', 'tab\there', 'x'.repeat(513), 'x'.repeat(512), 'fine ', '\u00a0fine', 'in between'];
      await writeFile(input, ids.map(article).join('\n'));
      const skipped: string[] = [];
      const report = await ingest({ inputs: [input], indexDir: path.join(dir, 'index'), onSkip: (source, message) => skipped.push(`${source.line}: ${message}`) });
      expect(report).toMatchObject({ read: 8, skipped: 5, indexed: 3 });
      expect(skipped).toEqual([
        '2: article_id "a\\nb" holds a control character (ids travel in URLs and in --delete-file lines)',
        '3: article_id "tab\\there" holds a control character (ids travel in URLs and in --delete-file lines)',
        '4: article_id is over 512 bytes',
        '6: article_id "fine " begins or ends with white space',
        // A no-break space is written as its code point: it had shown as the space it looks like.
        '7: article_id "\\u{a0}fine" begins or ends with white space',
      ]);
      expect(await articleIds(path.join(dir, 'index'))).toEqual(['fine', 'in between', 'x'.repeat(512)]);
    } finally {
      await cleanup();
    }
  });
});

