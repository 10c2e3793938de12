/**
 * A loaded, immutable view of an index directory: its segments in memory,
 * which articles are live, and corpus-wide statistics for scoring.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { Segment } from './segment/reader.js';
import { SegmentFormatError, unloadableIndexFileError } from './segment/errors.js';
import { openStoredFields } from './stored/open.js';
import type { StoredFields } from './stored/reader.js';
import { FIELDS, type FieldName } from './segment/format.js';
import { Bitset } from './filters/bitset.js';
import { warmAuthorIndexes, type AuthorIndexWarmUp } from './filters/author-index.js';
import { MANIFEST_FILE, entryCountsError, missingOr, readManifest, segmentFile, storedFile, type Manifest, type SegmentEntry } from './manifest.js';
import type { CollectionStats } from './scoring/bm25.js';

export interface LoadedSegment {
  name: string;
  segment: Segment;
  /** Pre-rendered JSON of the segment's articles and paragraphs, read from its file on demand. */
  stored: StoredFields;
  /** The segment file's device and inode: which file was loaded, not just which name. */
  file: string;
  /** Live (not replaced) articles, or null when every article is live. */
  liveArticles: Bitset | null;
  /** Live paragraphs, derived from liveArticles; null when every paragraph is live. */
  liveParagraphs: Bitset | null;
}

export class IndexSnapshot {
  /** The segments' author indexes, built in the background from the load on (see author-index.ts). */
  readonly authorIndexWarmUp: AuthorIndexWarmUp;

  private constructor(
    readonly dir: string,
    readonly manifest: Manifest,
    readonly segments: LoadedSegment[],
    readonly stats: CollectionStats,
  ) {
    this.authorIndexWarmUp = warmAuthorIndexes(segments.map((s) => s.segment));
  }

  /**
   * Loads the index the manifest names. Segments are immutable, so those
   * `previous` (an older snapshot of the same directory) already holds are
   * shared rather than read again: a reload costs only the new segments.
   */
  static async open(dir: string, previous?: IndexSnapshot): Promise<IndexSnapshot> {
    const manifest = await readManifest(dir);
    const loaded = new Map(previous?.segments.map((s) => [s.name, s]));
    const opened = await Promise.allSettled(
      manifest.segments.map(async (entry, position): Promise<LoadedSegment> => {
        const file = segmentFile(dir, entry.name);
        const identity = await fileIdentity(file).catch(async (error: unknown) => {
          throw await namedFileError(dir, file, error);
        });
        // A directory replaced by another index may hold other contents under a name the previous snapshot knows.
        const candidate = loaded.get(entry.name);
        const shared = candidate?.file === identity ? candidate : undefined;
        const segment = shared ? shared.segment.retain() : await loadSegment(dir, file, identity);
        const miscounted = entryCountsError(dir, position, entry, { articles: segment.articleCount, paragraphs: segment.paragraphCount });
        if (miscounted) {
          segment.close();
          throw unloadableIndexFileError(dir, path.join(dir, MANIFEST_FILE), miscounted);
        }
        // A shared segment and stored-fields file gain a holder: closing `previous` leaves them open for this snapshot.
        let stored: StoredFields;
        const storedPath = storedFile(dir, entry.name);
        try {
          stored = shared ? shared.stored.retain() : openStoredFields(storedPath, segment);
        } catch (error) {
          segment.close();
          throw await namedFileError(dir, storedPath, error);
        }
        if (entry.deletions === null) return { name: entry.name, file: identity, segment, stored, liveArticles: null, liveParagraphs: null };
        try {
          const deleted = await readDeletions(dir, entry, segment.articleCount);
          const liveArticles = Bitset.full(segment.articleCount).andNot(deleted);
          return { name: entry.name, file: identity, segment, stored, liveArticles, liveParagraphs: expandToParagraphs(segment, liveArticles) };
        } catch (error) {
          stored.close();
          segment.close();
          throw await namedFileError(dir, path.join(dir, entry.deletions), error);
        }
      }),
    );
    const failed = opened.find((result) => result.status === 'rejected');
    const segments = opened.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    if (failed) {
      // A load that fails (e.g. a writer removed files meanwhile) must not leak the files it opened.
      for (const { segment, stored } of segments) {
        stored.close();
        segment.close();
      }
      throw failed.reason;
    }
    return new IndexSnapshot(dir, manifest, segments, collectionStats(segments.map((s) => s.segment)));
  }

  /**
   * Whether `manifest` (read from this snapshot's directory) describes what
   * this snapshot holds: the same manifest and the very same segment files. A
   * generation number alone does not say so: an index directory replaced by
   * another (rebuilt, restored) can publish the same generation.
   */
  async holds(manifest: Manifest): Promise<boolean> {
    if (JSON.stringify(manifest) !== JSON.stringify(this.manifest)) return false;
    for (const { name, file } of this.segments) {
      if ((await fileIdentity(segmentFile(this.dir, name)).catch(() => null)) !== file) return false;
    }
    return true;
  }

  /** Closes the segment and stored-fields files no newer snapshot shares. */
  close(): void {
    // Segments a newer snapshot shares go on warming under that snapshot's warm-up.
    this.authorIndexWarmUp.stop();
    for (const { segment, stored } of this.segments) {
      segment.close();
      stored.close();
    }
  }

  get paragraphCount(): number {
    return this.segments.reduce((sum, s) => sum + s.segment.paragraphCount, 0);
  }

  get liveArticleCount(): number {
    return this.segments.reduce((sum, s) => sum + (s.liveArticles ? s.liveArticles.count() : s.segment.articleCount), 0);
  }

  /** Documents containing `term` in `field`, over all segments (replaced ones included, as Lucene counts). */
  docFreq(term: string, field: FieldName): number {
    let total = 0;
    for (const { segment } of this.segments) {
      const ordinal = segment.termOrdinal(term);
      if (ordinal >= 0) total += segment.fields[field].df[ordinal]!;
    }
    return total;
  }
}

/**
 * Reads a segment's deletions file, which must hold exactly the manifest's
 * count of deleted articles: a truncated or emptied file would otherwise
 * bring deleted articles back without a word.
 */
export async function readDeletions(dir: string, entry: SegmentEntry, articles: number): Promise<Bitset> {
  const file = path.join(dir, entry.deletions!);
  const bytes = await readFile(file);
  const deleted = Bitset.fromBytes(articles, bytes);
  if (bytes.byteLength !== deleted.toBytes().byteLength || deleted.count() !== entry.deletedArticles) {
    throw new SegmentFormatError(`${file} does not hold the ${entry.deletedArticles} deleted articles the manifest counts (truncated or edited?)`);
  }
  return deleted;
}

/**
 * Why a file the manifest names cannot be loaded, naming it; one that is gone is damage, said as writers say
 * it, and keeps its code: a server's reload reads the manifest again first, as a writer may have removed it.
 */
async function namedFileError(dir: string, file: string, error: unknown): Promise<Error> {
  const cause = await missingOr(file, error);
  const named = unloadableIndexFileError(dir, file, cause);
  return cause === error ? named : Object.assign(named, { code: 'ENOENT' });
}

/** Device and inode of a file (the loaded segment stays open, so its inode cannot be reused meanwhile). */
async function fileIdentity(file: string): Promise<string> {
  const { dev, ino } = await stat(file, { bigint: true });
  return `${dev}:${ino}`;
}

/** Loads a segment file of the index `dir`, which must still be the file `identity` names; a failure names the file. */
async function loadSegment(dir: string, file: string, identity: string): Promise<Segment> {
  let segment: Segment;
  try {
    segment = await Segment.load(file, { pagedPostings: true });
  } catch (error) {
    throw await namedFileError(dir, file, error);
  }
  if ((await fileIdentity(file).catch(() => null)) !== identity) {
    segment.close();
    // Replaced while being read: the caller reads the manifest again.
    throw Object.assign(new Error(`segment ${file} was replaced while being loaded`), { code: 'ENOENT' });
  }
  return segment;
}

export function collectionStats(segments: readonly Segment[]): CollectionStats {
  const documents = segments.reduce((sum, s) => sum + s.paragraphCount, 0);
  const averageLength = {} as Record<FieldName, number>;
  for (const field of FIELDS) {
    const total = segments.reduce((sum, s) => sum + s.header.fields[field].sumLength, 0);
    averageLength[field] = documents > 0 ? total / documents : 0;
  }
  return { documents, averageLength };
}

/** Sets the bit of every paragraph whose article is set in `articles`. */
export function expandToParagraphs(segment: Segment, articles: Bitset): Bitset {
  const paragraphs = new Bitset(segment.paragraphCount);
  articles.forEach((article) => {
    for (let p = segment.articleFirstParagraph[article]!; p < segment.articleFirstParagraph[article + 1]!; p++) paragraphs.add(p);
  });
  return paragraphs;
}

