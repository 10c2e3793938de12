/**
 * Search worker: maps the segments' SharedArrayBuffers and shares their paged
 * postings (handed over once in workerData, never copied), and runs one query,
 * or one share of a split query, per task. Results go back as two typed arrays.
 */
import { workerData } from 'piscina';
import { Segment, type SegmentShare } from './segment/reader.js';
import { Bitset } from './filters/bitset.js';
import { runPieces, segmentBases, type SearchTask } from './pool.js';
import type { ScoredDocs } from './scoring/top-k.js';

const segments: Segment[] = (workerData as { segments: SegmentShare[] }).segments.map((share) => Segment.fromShare(share));
const bases = segmentBases(segments);

export default function runSearchTask(task: SearchTask): ScoredDocs {
  const accept = task.accept.map((bits) => bits && new Bitset(bits.size, bits.words));
  return runPieces(segments, bases, task, accept);
}
