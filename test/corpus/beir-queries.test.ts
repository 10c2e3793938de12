/**
 * A BEIR queries file ({"_id","text"} lines, no "title") beside a corpus is not taken for a corpus:
 * detection reports and skips it, so its queries are not indexed as documents. Given --format beir,
 * a line without "title" is read as a document with an empty title, as BEIR's own loader reads it.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ingest } from '../../src/corpus/ingest.js';
import { detectFormat } from '../../src/corpus/readers/index.js';
import { tempDir } from '../search/helpers.js';
import { articlesOf, errorsOf, fixtureDir, readAll, writeFixture } from './fixtures.js';

const CORPUS = [
  { _id: 'd1', title: 'Place cells', text: 'Hippocampal place cells fire in one place.', metadata: {} },
  { _id: 'd2', title: '', text: 'Grid cells tile the floor.', metadata: {} },
].map((line) => JSON.stringify(line)).join('\n');
const QUERIES = [
  { _id: 'q1', text: 'place cells fire in one place', metadata: {} },
  { _id: 'q2', text: 'grid cells', metadata: {} },
].map((line) => JSON.stringify(line)).join('\n');

describe('a BEIR queries file', () => {
  it('is not recognised as a BEIR corpus', async () => {
    const dir = await fixtureDir();
    const queries = await writeFixture(dir, 'queries.jsonl', QUERIES);
    await expect(detectFormat(queries)).rejects.toThrow(`Cannot tell the format of ${queries}: expected JSON lines with "article_id"/"paragraphs" (articles-jsonl) or "_id", "title" and "text" (a beir corpus; a BEIR queries file has no "title" and is not an input)`);
    expect(await detectFormat(await writeFixture(dir, 'corpus.jsonl', CORPUS))).toBe('beir');
  });

  it('beside its corpus in a folder, is reported and skipped while the corpus is indexed', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const dataset = path.join(dir, 'dataset');
      await writeFixture(dataset, 'corpus.jsonl', CORPUS);
      const queries = await writeFixture(dataset, 'queries.jsonl', QUERIES);
      const skipped: string[] = [];
      const report = await ingest({ inputs: [dataset], indexDir: path.join(dir, 'index'), onSkip: (source) => skipped.push(source.file) });
      expect(report).toMatchObject({ files: 2, skippedFiles: 1, read: 2, indexed: 2 });
      expect(skipped).toEqual([queries]);
    } finally {
      await cleanup();
    }
  });

  it('given --format beir, is read as documents without a title', async () => {
    const dir = await fixtureDir();
    const events = await readAll(await writeFixture(dir, 'queries.jsonl', QUERIES), 'beir');
    expect(errorsOf(events)).toEqual([]);
    expect(articlesOf(events).map((article) => [article.article_id, article.title])).toEqual([['q1', ''], ['q2', '']]);
  });
});
