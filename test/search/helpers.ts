/** Builds throwaway indexes for engine tests. */
import type { ChildProcess } from 'node:child_process';
import { fstatSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ArticleInput } from '../../src/corpus/model.js';
import { IndexWriter } from '../../src/search/index-writer.js';
import { Searcher } from '../../src/search/searcher.js';
import { Library } from '../../src/corpus/library.js';
import { FORMAT_VERSION } from '../../src/search/segment/format.js';
import type { StoredCompression } from '../../src/search/stored/format.js';
import { random } from '../../scripts/lib/random.js';

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

const RANDOM_WORDS = ['neuron', 'synapse', 'cortex', 'dopamine', 'hippocampus', 'glia', 'axon', 'spike', 'theta', 'grid', 'place', 'reward'];

/** Articles with random paragraphs over a small vocabulary (many ties and shared terms). */
export function randomArticles(count: number, seed: number, prefix = 'a'): ArticleInput[] {
  const next = random(seed);
  const words = (n: number) => Array.from({ length: n }, () => RANDOM_WORDS[Math.floor(next() * RANDOM_WORDS.length)]!).join(' ');
  return Array.from({ length: count }, (_, i) =>
    article(`${prefix}${i}`, Array.from({ length: 1 + Math.floor(next() * 3) }, () => words(3 + Math.floor(next() * 12))), {
      title: words(2),
      authors: [`Author ${i % 7}`],
      article_type: i % 5 === 0 ? 'review-article' : 'research-article',
      date: `20${10 + (i % 10)}-01-01`,
    }),
  );
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

/** A searcher on the calling thread over `articles` in a temporary index (no title weight); `close` also removes the index. */
export async function searcherOver(articles: ArticleInput[], filterCacheSize = 8): Promise<{ searcher: Searcher; close: () => Promise<void> }> {
  const { dir, cleanup } = await tempDir();
  await writeIndex(dir, articles);
  const searcher = await Searcher.open(dir, { threads: 0, k1: 0.9, b: 0.4, titleWeight: 0, filterCacheSize });
  return { searcher, close: async () => (await searcher.close(), await cleanup()) };
}

/** The ids of the index's live articles, sorted (at most 100). */
export async function liveIds(indexDir: string): Promise<string[]> {
  const searcher = await Searcher.open(indexDir, { threads: 0, k1: 0.9, b: 0.4, titleWeight: 0.5, filterCacheSize: 4 });
  try {
    return new Library(searcher).listArticleIds(0, 100).sort();
  } finally {
    await searcher.close();
  }
}

/** Makes the segment file say it is of the format before this one (its header's `formatVersion`, a msgpack fixint). */
export async function markSegmentOutdated(file: string): Promise<void> {
  const bytes = await readFile(file);
  const key = Buffer.concat([Buffer.from([0xa0 | 13]), Buffer.from('formatVersion')]);
  const at = bytes.indexOf(key) + key.length;
  if (bytes[at] !== FORMAT_VERSION) throw new Error(`${file}: no formatVersion ${FORMAT_VERSION} where expected`);
  bytes[at] = FORMAT_VERSION - 1;
  await writeFile(file, bytes);
}

/**
 * Resolves true once `child` holds the writer lock of the index in `indexDir` (the lock file names its pid): from then
 * on its run has begun, whatever stale lock an earlier killed run left. False if the child ended first.
 */
export async function writerLockTakenBy(indexDir: string, child: ChildProcess): Promise<boolean> {
  while (child.exitCode === null && child.signalCode === null) {
    if ((await readFile(path.join(indexDir, 'write.lock'), 'utf8').catch(() => '')) === String(child.pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return false;
}
