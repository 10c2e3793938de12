/**
 * Search worker: maps the segments' SharedArrayBuffers (handed over once in
 * workerData, never copied) and runs top-k over one document range per task.
 */
import { workerData } from 'piscina';
import { Segment } from './segment/reader.js';
import { Bitset } from './filters/bitset.js';
import { topKMaxScore } from './scoring/max-score.js';
import type { SearchTask } from './pool.js';
import type { ScoredDoc } from './scoring/top-k.js';

const segments: Segment[] = (workerData as { buffers: SharedArrayBuffer[] }).buffers.map((buffer) => new Segment(buffer));

export default function runSearchTask(task: SearchTask): ScoredDoc[] {
  const accept = task.accept ? new Bitset(task.accept.size, task.accept.words) : null;
  return topKMaxScore(segments[task.segment]!, task.clauses, task.params, task.stats, task.k, task.range, accept);
}
