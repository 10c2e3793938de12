/**
 * Merging: rewrites a contiguous run of segments as one, leaving out deleted
 * articles, and publishes it by the same atomic manifest swap as ingestion
 * (a crash at any point leaves the previous manifest and its files intact;
 * the half-written segment is garbage the next writer removes).
 *
 * Postings are merged as postings (merge-postings.ts): no text is analysed
 * again, but for the few deleted documents, whose exact lengths leave the
 * summed field lengths. Stored fragments are copied as bytes and streamed
 * to the merged file (stored/copy.ts); filter columns are rebuilt from each
 * article's fragment on its way and its segment's columns. Articles keep their order, and only adjacent
 * segments are merged, so every document keeps its place in the index's
 * global order: with nothing deleted, scores, ties and therefore rankings
 * are identical before and after a merge. With deletions, the collection
 * statistics (document count, average lengths, document frequencies) stop
 * counting the deleted documents once they are merged away, and the merged
 * segment is the one a fresh build of the live articles would write.
 */
import type { ArticleInput, ArticleMetadata, ParagraphInput } from '../corpus/model.js';
import { analyze } from './analysis/analyzer.js';
import { mergePostings, type MergeSource } from './merge-postings.js';
import { stopIfAborted } from './merge-stop.js';
import { Segment } from './segment/reader.js';
import { SegmentBuilder, type ArticleColumns } from './segment/writer.js';
import { openStoredFields } from './stored/open.js';
import { DEFAULT_STORED_COMPRESSION, type StoredCompression } from './stored/format.js';
import type { StoredFields } from './stored/reader.js';
import { writeCopiedStoredFields, type CopiedArticle } from './stored/copy.js';
import { readDeletions } from './snapshot.js';
import { DEFAULT_MERGE_FACTOR } from './defaults.js';
import { damagedFileOf, damagedIndexError, indexWriteError } from './segment/errors.js';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import {
  isPublished,
  namedFileReader,
  publishManifest,
  readManifestOrEmpty,
  removeUnreferenced,
  segmentFile,
  storedFile,
  type Manifest,
  type SegmentEntry,
} from './manifest.js';
import { acquireWriteLock } from './write-lock.js';

/** Segments below this many paragraphs all count as the smallest tier. */
const SMALLEST_TIER_PARAGRAPHS = 1000;

export interface MergeSummary {
  /** Segments rewritten. */
  merged: string[];
  /** The new segment, or null when every article of the run was deleted. */
  into: string | null;
  articles: number;
  /** Deleted articles left out. */
  dropped: number;
  generation: number;
}

/** An article's filter columns and id, read back from its stored article fragment and its segment's columns. */
function storedArticleColumns(segment: Segment, article: ArticleMetadata, ordinal: number): ArticleColumns {
  return {
    article_id: article.article_id,
    authors: article.article_authors,
    date: article.date,
    article_type: article.article_type,
    journal_issn: article.journal_issn,
    journal_name: article.journal_name,
    // Every ISSN and type live in filter columns, not in the stored fragments.
    journal_issns: segment.articleIssns(ordinal).map((id) => segment.journals.get(id)),
    article_types: segment.articleTypes(ordinal).map((id) => segment.types.get(id)),
  };
}

/** An article's ingestion input, rebuilt from its segment's stored fields (the pre-rendered JSON fragments). */
export function storedArticleInput(segment: Segment, stored: StoredFields, ordinal: number): ArticleInput {
  const article = stored.articleFields(ordinal);
  const paragraphs: ParagraphInput[] = [];
  for (let p = segment.articleFirstParagraph[ordinal]!; p < segment.articleFirstParagraph[ordinal + 1]!; p++) {
    const { paragraph, section } = stored.paragraphFields(p);
    paragraphs.push({ section, text: paragraph });
  }
  return {
    ...storedArticleColumns(segment, article, ordinal),
    title: article.article_title,
    article_doi: article.article_doi,
    pubmed_id: article.pubmed_id,
    cited_by: article.cited_by,
    impact_factor: article.impact_factor,
    paragraphs,
  };
}

/** Chooses the run of segments [from, to) to merge, or null. */
export type MergeSelection = (segments: readonly SegmentEntry[]) => { from: number; to: number } | null;

/** Every segment into one; nothing to do when there is one segment without deletions. */
export const everything: MergeSelection = (segments) =>
  segments.length > 1 || (segments.length === 1 && segments[0]!.deletedArticles > 0) ? { from: 0, to: segments.length } : null;

/**
 * The tiered policy: segments are put in tiers by their live size (powers of
 * `factor` paragraphs); the first run of `factor` adjacent segments of one tier
 * is merged. Merged segments land in a higher tier, so each document is
 * rewritten about log_factor(index size) times over the index's life.
 */
export function tiered(factor: number): MergeSelection {
  return (segments) => {
    const tiers = segments.map((s) => {
      const live = s.paragraphs * (1 - s.deletedArticles / Math.max(1, s.articles));
      return Math.floor(Math.log(Math.max(live, SMALLEST_TIER_PARAGRAPHS)) / Math.log(factor));
    });
    let start = 0;
    for (let i = 1; i <= segments.length; i++) {
      if (i < segments.length && tiers[i] === tiers[start]) continue;
      if (i - start >= factor) return { from: start, to: start + factor };
      start = i;
    }
    return null;
  };
}

export interface MergeOptions {
  /** Layout of the merged segment's stored-fields file (default `dictionary`, as ingestion's). */
  storedCompression?: StoredCompression;
  /**
   * Progress of a merge, in steps: the fragments sampled for the token table (with `dictionary`
   * compression), the live articles copied, then the sources' terms merged (a term counts once per
   * source holding it). Without it, a 1M-paragraph merge is half a minute of silence.
   */
  onProgress?: (done: number, total: number) => void;
  /**
   * Stops the merge once aborted, every 64 deleted articles measured, 256 KiB of fragments sampled for a token table,
   * 1024 articles copied and 4096 terms merged, and before publishing:
   * it then removes the files it wrote, gives back its lock, publishes nothing and rejects with the signal's
   * reason. Without it, a Ctrl-C waits for the whole merge (30 s at 1M paragraphs).
   */
  signal?: AbortSignal;
  /**
   * When the selection picks nothing (`--merge` of one segment without deletions), read that index whole all the
   * same, every checksum checked, and refuse it naming a damaged file: `--merge` is how an operator has every
   * byte read, and a damaged one-segment index must not pass it as "nothing to merge".
   */
  checkUnmerged?: boolean;
}

/** Articles copied between two progress reports. */
const ARTICLES_PER_REPORT = 1024;
/** Deleted articles measured between two stopping points: 10-20 ms of analysis (150-330 µs a demo article), against 7-10 µs a stopping point. */
const DELETED_PER_STOP = 64;

/** Merges the run `select` picks (under the writer lock); null when it picks none. */
export async function mergeSegments(dir: string, select: MergeSelection, options: MergeOptions = {}): Promise<MergeSummary | null> {
  const { release } = await acquireWriteLock(dir);
  try {
    const manifest = await readManifestOrEmpty(dir);
    await removeUnreferenced(dir, manifest);
    const run = select(manifest.segments);
    if (!run) {
      if (options.checkUnmerged) await readWhole(dir, manifest);
      return null;
    }
    const sources = manifest.segments.slice(run.from, run.to);
    const generation = manifest.generation + 1;
    const name = `seg-${String(generation).padStart(6, '0')}000`;
    const builder = new SegmentBuilder();
    const opened: (MergeSource & { stored: StoredFields })[] = [];
    const live: (CopiedArticle & { segment: Segment; storedName: string })[] = [];
    let dropped = 0;
    // Exact lengths of the deleted documents, which the sources' summed lengths still count.
    const deletedLength = { text: 0, title: 0 };
    let merged: SegmentEntry[] = [];
    // A file of the index that cannot be read (or is missing) is damage, said with its name; nothing is published.
    const reading = namedFileReader(dir, manifest.generation);
    let published = false;
    try {
      for (const entry of sources) {
        const file = segmentFile(dir, entry.name);
        const segment = await reading(file, () => Segment.load(file));
        const storedName = storedFile(dir, entry.name);
        const stored = await reading(storedName, () => openStoredFields(storedName, segment));
        const deleted = entry.deletions
          ? await reading(path.join(dir, entry.deletions), () => readDeletions(dir, entry, segment.articleCount)).catch((error: unknown) => {
              stored.close();
              throw error;
            })
          : null;
        opened.push({ segment, stored, deleted });
        for (let a = 0; a < segment.articleCount; a++) {
          if (!deleted?.has(a)) {
            live.push({ segment, storedName, source: stored, article: a, from: segment.articleFirstParagraph[a]!, to: segment.articleFirstParagraph[a + 1]! });
            continue;
          }
          // Measuring a deleted article analyses its text again: many deletions make a long stretch.
          if (options.signal && dropped % DELETED_PER_STOP === 0) await stopIfAborted(options.signal);
          dropped++;
          const article = await reading(storedName, () => storedArticleInput(segment, stored, a));
          deletedLength.title += analyze(article.title).length * article.paragraphs.length;
          for (const paragraph of article.paragraphs) deletedLength.text += analyze(paragraph.text).length;
        }
      }
      if (live.length > 0) {
        // The token table's sample (when there is one) counts first; its size is known once the copy has measured the articles.
        let sampled = 0;
        const copyAndTerms = live.length + opened.reduce((sum, { segment }) => sum + segment.terms.size, 0);
        const onSampled = (done: number, sampleSize: number) => {
          sampled = done;
          options.onProgress?.(done, sampleSize + copyAndTerms);
        };
        const report = (done: number) => options.onProgress?.(sampled + done, sampled + copyAndTerms);
        // The fragments are copied as bytes; the filter columns come from each article's fragment on its way.
        await writeCopiedStoredFields(storedFile(dir, name), live, options.storedCompression ?? DEFAULT_STORED_COMPRESSION, (i, articleJson) => {
          if (i % ARTICLES_PER_REPORT === 0) report(i);
          const { segment, storedName, source, article, from, to } = live[i]!;
          let metadata: ArticleMetadata;
          try {
            metadata = source.articleFields(article, articleJson);
          } catch (error) {
            throw damagedIndexError(dir, manifest.generation, storedName, error);
          }
          builder.addArticleColumns(storedArticleColumns(segment, metadata, article), to - from);
        }, { signal: options.signal, onSampled });
        report(live.length);
        const postings = await mergePostings(opened, options.onProgress && ((terms) => report(live.length + terms)), options.signal);
        const sumLength = (field: 'text' | 'title') => opened.reduce((sum, { segment }) => sum + segment.header.fields[field].sumLength, 0) - deletedLength[field];
        const header = await builder.writeWithPostings(segmentFile(dir, name), postings.arrays, postings.terms, { text: sumLength('text'), title: sumLength('title') });
        merged = [{ name, paragraphs: header.paragraphs, articles: header.articles, deletions: null, deletedArticles: 0 }];
        report(copyAndTerms);
      }
      const segments = [...manifest.segments.slice(0, run.from), ...merged, ...manifest.segments.slice(run.to)];
      options.signal?.throwIfAborted();
      await publishManifest(dir, { ...manifest, generation, segments });
      published = true;
    } catch (error) {
      published ||= await isPublished(dir, generation);
      if (published) throw error;
      // The merged files are removed now, not by the next writer: the disk may be full, or the run was stopped.
      await Promise.all([segmentFile(dir, name), storedFile(dir, name)].map((file) => rm(file, { force: true })));
      // A fragment copied that does not match its checksum names its file: refused as any damaged file.
      const damaged = damagedFileOf(error);
      throw damaged === null ? indexWriteError(dir, manifest.generation, error) : damagedIndexError(dir, manifest.generation, damaged, error);
    } finally {
      for (const { stored } of opened) stored.close();
    }
    return { merged: sources.map((s) => s.name), into: merged[0]?.name ?? null, articles: builder.articleCount, dropped, generation };
  } finally {
    await release();
  }
}

/** `--merge`: the whole index into one segment without its deleted articles; with nothing to merge, the index read whole. */
export function mergeAll(dir: string, options: MergeOptions = {}): Promise<MergeSummary | null> {
  return mergeSegments(dir, everything, { checkUnmerged: true, ...options });
}

/**
 * Reads every checksummed byte of the manifest's segments, as a merge of them would: every array, the postings
 * included (a load without paging checks them all), and every stored fragment; a file that fails is refused by
 * name, as damage.
 */
async function readWhole(dir: string, manifest: Manifest): Promise<void> {
  const reading = namedFileReader(dir, manifest.generation);
  for (const entry of manifest.segments) {
    const file = segmentFile(dir, entry.name);
    const segment = await reading(file, () => Segment.load(file));
    const storedName = storedFile(dir, entry.name);
    const stored = await reading(storedName, () => openStoredFields(storedName, segment));
    try {
      await reading(storedName, () => {
        stored.readInFileOrder();
        for (let article = 0; article < segment.articleCount; article++) stored.articleBytes(article);
        for (let paragraph = 0; paragraph < segment.paragraphCount; paragraph++) stored.paragraphBytes(paragraph);
      });
    } finally {
      stored.close();
    }
  }
}

/** Runs the tiered policy until it finds nothing more to merge. */
export async function mergeByPolicy(dir: string, factor = DEFAULT_MERGE_FACTOR, options: MergeOptions = {}): Promise<MergeSummary[]> {
  const merges: MergeSummary[] = [];
  if (factor < 2) return merges;
  for (;;) {
    const merge = await mergeSegments(dir, tiered(factor), options);
    if (!merge) return merges;
    merges.push(merge);
  }
}
