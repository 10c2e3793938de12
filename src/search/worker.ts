/**
 * Search worker: maps the segments' SharedArrayBuffers (handed over once in
 * workerData, never copied) and runs one share of a query per task.
 */
import { workerData } from 'piscina';
import { Segment } from './segment/reader.js';
import { Bitset } from './filters/bitset.js';
import { runPieces, type SearchTask, type SegmentHit } from './pool.js';

const segments: Segment[] = (workerData as { buffers: SharedArrayBuffer[] }).buffers.map((buffer) => new Segment(buffer));

export default function runSearchTask(task: SearchTask): SegmentHit[] {
  const accept = task.accept.map((bits) => bits && new Bitset(bits.size, bits.words));
  return runPieces(segments, task, accept);
}
