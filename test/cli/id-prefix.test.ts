/** `--id-prefix` keeps sources with overlapping ids apart (issue 12 item 15). */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { tempDir } from '../search/helpers.js';
import { Searcher } from '../../src/search/searcher.js';
import { Library } from '../../src/corpus/library.js';
import { compileFilterSpec } from '../../src/search/query/filter-spec.js';
import { ingest } from '../../src/corpus/ingest.js';

function ingestCli(...args: string[]) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts', 'ingest', ...args], { encoding: 'utf8' });
  return { code: result.status, stderr: result.stderr };
}

async function articleIds(indexDir: string): Promise<string[]> {
  const searcher = await Searcher.open(indexDir, { threads: 0, k1: 0.6, b: 0.75, titleWeight: 0.25, filterCacheSize: 4 });
  try {
    const library = new Library(searcher);
    return searcher.listArticles(compileFilterSpec({}), 100, true).map((hit) => library.articleMetadata(hit).article_id).sort();
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
});
