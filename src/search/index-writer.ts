/**
 * Adds articles to an index directory as new segments. An article whose id is
 * already indexed replaces the old one (the old copy is marked deleted), and
 * `delete` removes one the same way. Nothing becomes visible until `commit`,
 * which publishes segments and deletions in one atomic manifest swap; a crash
 * before that leaves the previous index as it was.
 */
import { open, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import type { ArticleInput } from '../corpus/model.js';
import { SegmentBuilder } from './segment/writer.js';
import { SpareMemory } from './segment/spare-memory.js';
import { DEFAULT_STORED_COMPRESSION, type StoredCompression } from './stored/format.js';
import { readSegmentArticleIds } from './segment/reader.js';
import { damagedIndexError, indexWriteError } from './segment/errors.js';
import { openStoredFields } from './stored/open.js';
import { Bitset } from './filters/bitset.js';
import { readDeletions } from './snapshot.js';
import { DEFAULT_MAX_SEGMENT_BYTES } from './defaults.js';
import {
  MANIFEST_FILE,
  MANIFEST_FORMAT,
  entryCountsError,
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
import { writeWhole } from './write-whole.js';

export interface CommitSummary {
  /** Articles in the new segments (a replaced article counts once). */
  added: number;
  replaced: number;
  /** Articles removed by `delete`. */
  deleted: number;
  segments: string[];
  generation: number;
}

interface PendingSegment {
  entry: SegmentEntry;
  deleted: Bitset | null;
}

export interface IndexWriterOptions {
  maxSegmentBytes?: number;
  storedCompression?: StoredCompression;
  /**
   * Progress of each segment's writing, in steps from 0 to a total told from the first report: the
   * terms sorted, each field's postings grouped by term and its terms encoded, the stored fragments'
   * token table chosen, then each article's fragments written, so that the writing of a large segment
   * reports from its start rather than sitting seconds, silent, before its first step.
   */
  onWriteProgress?: (done: number, total: number) => void;
}

export class IndexWriter {
  /** Each segment's builder writes into the arrays of the one before (spare-memory.ts). */
  private readonly memory = new SpareMemory();
  private builder = new SegmentBuilder(this.memory);
  private readonly written: PendingSegment[] = [];
  /** Where each live article id is: index into `segments` (existing then new) and ordinal. */
  private readonly locations = new Map<string, { segment: number; ordinal: number }>();
  private readonly segments: PendingSegment[];
  /** Ordinals replaced inside the segment still being built. */
  private pendingDeletions: number[] = [];
  private replaced = 0;
  private deleted = 0;
  private closed = false;
  /** Files written for the generation this writer publishes: removed when it gives up (they are on a disk that may be full). */
  private readonly createdFiles: string[] = [];
  private published = false;
  /** Directories this writer made for the index (deepest first): removed again when it publishes nothing. */
  private madeDirectories: string[] = [];
  private onWriteProgress: IndexWriterOptions['onWriteProgress'];

  private constructor(
    private readonly dir: string,
    private readonly manifest: Manifest,
    existing: PendingSegment[],
    private readonly release: () => Promise<void>,
    private readonly maxSegmentBytes: number,
    private readonly storedCompression: StoredCompression,
  ) {
    this.segments = existing;
  }

  static async open(dir: string, options: IndexWriterOptions = {}): Promise<IndexWriter> {
    const { release, madeDirectories } = await acquireWriteLock(dir);
    try {
      const manifest = await readManifestOrEmpty(dir);
      await removeUnreferenced(dir, manifest);
      const writer = new IndexWriter(dir, manifest, [], release, options.maxSegmentBytes ?? DEFAULT_MAX_SEGMENT_BYTES, options.storedCompression ?? DEFAULT_STORED_COMPRESSION);
      writer.madeDirectories = madeDirectories;
      writer.onWriteProgress = options.onWriteProgress;
      await writer.loadExistingIds();
      return writer;
    } catch (error) {
      await release();
      throw error;
    }
  }

  /** Reads the existing segments' ids, checking each segment as a server loading it does: no new generation is built on a damaged one. */
  private async loadExistingIds(): Promise<void> {
    const reading = namedFileReader(this.dir, this.manifest.generation);
    for (const [position, entry] of this.manifest.segments.entries()) {
      const index = this.segments.length;
      let deleted: Bitset | null = null;
      if (entry.deletions) {
        deleted = await reading(path.join(this.dir, entry.deletions), () => readDeletions(this.dir, entry, entry.articles));
      }
      this.segments.push({ entry: { ...entry }, deleted });
      const file = segmentFile(this.dir, entry.name);
      const { ids, paragraphs } = await reading(file, () => readSegmentArticleIds(file));
      // Both counts, so that a wrong paragraph count is found here, not only by the stored fields and blamed on their file.
      const miscounted = entryCountsError(this.dir, position, entry, { articles: ids.length, paragraphs });
      if (miscounted) throw damagedIndexError(this.dir, this.manifest.generation, path.join(this.dir, MANIFEST_FILE), miscounted);
      const stored = storedFile(this.dir, entry.name);
      await reading(stored, () => openStoredFields(stored, { articleCount: ids.length, paragraphCount: paragraphs }).close());
      ids.forEach((id, ordinal) => {
        if (!deleted?.has(ordinal)) this.locations.set(id, { segment: index, ordinal });
      });
    }
  }

  private get nextSegmentName(): string {
    const generation = String(this.manifest.generation + 1).padStart(6, '0');
    return `seg-${generation}${String(this.written.length).padStart(3, '0')}`;
  }

  async add(article: ArticleInput): Promise<'added' | 'replaced'> {
    if (this.closed) throw new Error('index writer is closed');
    const previous = this.locations.get(article.article_id);
    if (previous) {
      this.markDeleted(previous.segment, previous.ordinal);
      this.replaced++;
    }
    this.locations.set(article.article_id, { segment: this.segments.length, ordinal: this.builder.articleCount });
    this.builder.addArticle(article);
    if (this.builder.approximateBytes >= this.maxSegmentBytes) await this.flush();
    return previous ? 'replaced' : 'added';
  }

  /** Deletes the live article with this id (one added earlier in this run included); false when there is none. */
  delete(articleId: string): boolean {
    if (this.closed) throw new Error('index writer is closed');
    const location = this.locations.get(articleId);
    if (!location) return false;
    this.markDeleted(location.segment, location.ordinal);
    this.locations.delete(articleId);
    this.deleted++;
    return true;
  }

  /** Marks an article deleted; `segment` may be the one still being built. */
  private markDeleted(segment: number, ordinal: number): void {
    if (segment === this.segments.length) {
      // Replaced inside the segment being built: remember it until the segment is written.
      this.pendingDeletions.push(ordinal);
      return;
    }
    const target = this.segments[segment]!;
    target.deleted ??= new Bitset(target.entry.articles);
    target.deleted.add(ordinal);
  }

  private async flush(): Promise<void> {
    if (this.builder.articleCount === 0) return;
    const name = this.nextSegmentName;
    this.createdFiles.push(segmentFile(this.dir, name), storedFile(this.dir, name));
    let header;
    try {
      // Progress in steps: the segment file's (terms and postings), then the stored-fields file's.
      const onWrite = this.onWriteProgress;
      const segmentSteps = this.builder.writeSteps;
      const total = segmentSteps + this.builder.stored.writeSteps(this.storedCompression);
      header = await this.builder.write(segmentFile(this.dir, name), onWrite && ((done) => onWrite(done, total)));
      await this.builder.stored.write(storedFile(this.dir, name), this.storedCompression, undefined, onWrite && ((done) => onWrite(segmentSteps + done, total)));
      onWrite?.(total, total);
    } catch (error) {
      throw indexWriteError(this.dir, this.manifest.generation, error);
    }
    const pending: PendingSegment = {
      entry: { name, paragraphs: header.paragraphs, articles: header.articles, deletions: null, deletedArticles: 0 },
      deleted: null,
    };
    if (this.pendingDeletions.length > 0) {
      pending.deleted = new Bitset(header.articles);
      for (const ordinal of this.pendingDeletions) pending.deleted.add(ordinal);
    }
    this.pendingDeletions = [];
    this.segments.push(pending);
    this.written.push(pending);
    this.memory.reclaim();
    this.builder = new SegmentBuilder(this.memory);
  }

  /** Writes what is left, then publishes everything at once. */
  async commit(): Promise<CommitSummary> {
    try {
      await this.flush();
      const generation = this.manifest.generation + 1;
      const tag = String(generation).padStart(6, '0');
      const entries: SegmentEntry[] = [];
      for (const segment of this.segments) {
        const deletedCount = segment.deleted?.count() ?? 0;
        if (deletedCount === segment.entry.articles) continue; // every article replaced: drop the segment
        if (deletedCount !== segment.entry.deletedArticles) {
          const file = `${segment.entry.name}.del-${tag}`;
          this.createdFiles.push(path.join(this.dir, file));
          await writeDurably(path.join(this.dir, file), segment.deleted!.toBytes());
          segment.entry.deletions = file;
          segment.entry.deletedArticles = deletedCount;
        }
        entries.push(segment.entry);
      }
      if (this.written.length > 0 || this.replaced > 0 || this.deleted > 0) {
        await publishManifest(this.dir, { formatVersion: MANIFEST_FORMAT, generation, segments: entries });
        this.published = true;
      }
      const added = this.written.reduce((sum, s) => sum + s.entry.articles - (s.deleted?.count() ?? 0), 0);
      return { added, replaced: this.replaced, deleted: this.deleted, segments: this.written.map((s) => s.entry.name), generation };
    } catch (error) {
      this.published ||= await isPublished(this.dir, this.manifest.generation + 1);
      throw this.published ? error : indexWriteError(this.dir, this.manifest.generation, error);
    } finally {
      await this.close();
    }
  }

  /** Gives up (or ends after commit): files written for a generation not published are removed, under the lock. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      if (!this.published) await Promise.all(this.createdFiles.map((file) => rm(file, { force: true })));
    } finally {
      await this.release();
    }
    // A run that published nothing leaves no empty index directory behind (the lock is gone, so it is empty).
    if (!this.published) await removeEmptyDirectories(this.madeDirectories);
  }
}

/** Removes each directory while it is empty: one another writer has put a file in meanwhile stays, with its parents. */
async function removeEmptyDirectories(deepestFirst: readonly string[]): Promise<void> {
  for (const directory of deepestFirst) {
    try {
      await rmdir(directory);
    } catch {
      return;
    }
  }
}

async function writeDurably(file: string, bytes: Uint8Array): Promise<void> {
  const handle = await open(file, 'wx');
  try {
    await writeWhole(handle, bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
}
