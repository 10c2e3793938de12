/**
 * Search worker: maps the segments' SharedArrayBuffers and shares their paged
 * postings and stored fragments (handed over once in workerData, never
 * copied). A task is one query, or one share of a split query, whose results
 * go back as two typed arrays; a share of a response's fragment copies,
 * written straight into the response's shared body; or a listing's ranking,
 * written into shared arrays.
 */
import { workerData } from 'piscina';
import { Segment, type SegmentShare } from './segment/reader.js';
import { Bitset } from './filters/bitset.js';
import { runListingScores, runPieces, segmentBases, type CopyTask, type ListingScoresTask, type SearchTask } from './pool.js';
import { StoredFields, type StoredShare } from './stored/reader.js';
import { copyFragments } from './stored/fragment-copies.js';
import type { ScoredDocs } from './scoring/top-k.js';
import { carriedAcrossThreads } from './segment/errors.js';

const shares = workerData as { segments: SegmentShare[]; stored: StoredShare[] };
const segments: Segment[] = shares.segments.map((share) => Segment.fromShare(share));
const stored = shares.stored.map((share) => StoredFields.fromShare(share));
const bases = segmentBases(segments);

/** Runs a task, throwing a damaged index file in the form the pool restores (carriedAcrossThreads). */
function carrying<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    throw carriedAcrossThreads(error);
  }
}

export default function runSearchTask(task: SearchTask): ScoredDocs {
  const accept = task.accept.map((bits) => bits && new Bitset(bits.size, bits.words));
  return carrying(() => runPieces(segments, bases, task, accept));
}

export function copyFragmentsTask(task: CopyTask): void {
  carrying(() => copyFragments(stored, task.rows, Buffer.from(task.body, task.bodyOffset, task.bodyLength)));
}

export function listingScoresTask(task: ListingScoresTask): void {
  carrying(() => runListingScores(segments, task, task.paragraphs.map((bits) => bits && new Bitset(bits.size, bits.words))));
}
