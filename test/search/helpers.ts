/** Builds throwaway indexes for engine tests. */
import { fstatSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ArticleInput } from '../../src/corpus/model.js';
import { IndexWriter } from '../../src/search/index-writer.js';
import type { StoredCompression } from '../../src/search/stored/format.js';

export function article(id: string, paragraphs: string[], overrides: Partial<ArticleInput> = {}): ArticleInput {
  return {
    article_id: id,
    title: `Article ${id}`,
    authors: [],
    article_doi: null,
    pubmed_id: null,
    date: '2020-01-01',
    article_type: 'research-article',
    journal_issn: null,
    journal_name: null,
    cited_by: 0,
    impact_factor: null,
    paragraphs: paragraphs.map((text) => ({ section: 'Results', text })),
    ...overrides,
  };
}

/** Whether a file descriptor is still open in this process. */
export function isOpen(fd: number): boolean {
  try {
    fstatSync(fd);
    return true;
  } catch {
    return false;
  }
}

export async function tempDir(prefix = 'litserve-test-'): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Writes the articles as one ingestion (one or more segments) into `dir`. */
export async function writeIndex(dir: string, articles: ArticleInput[], maxSegmentBytes?: number, storedCompression?: StoredCompression): Promise<void> {
  const writer = await IndexWriter.open(dir, { maxSegmentBytes, storedCompression });
  for (const a of articles) await writer.add(a);
  await writer.commit();
}
