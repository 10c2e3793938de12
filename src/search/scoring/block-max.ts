/**
 * Exact per-block upper bounds of a clause's BM25 score ("block-max").
 *
 * The segment stores, per block, its highest frequency and its shortest norm;
 * a bound built from both pairs the highest tf with the shortest document even
 * when they belong to different postings, and saturates at the clause weight
 * once tf passes 255. That bound is loose enough that MaxScore skips few
 * windows on frequent terms. The exact bound, the highest
 * tf / (tf + lengthFactor[norm]) over the block's postings, depends on k1, b
 * and the average length (query-time settings), so it is computed here on a
 * term's first use, from its decoded postings, and kept per field and
 * length-factor table (one per set of BM25 settings and average length).
 * A clause's bound in a block is then its weight times that ratio.
 *
 * Each thread keeps its own cache (a term costs one pass over its postings
 * the first time a thread scores it); memory is 8 bytes per block of a field.
 */
import type { FieldData } from '../segment/reader.js';
import { PostingsCursor } from '../segment/postings.js';
import { tfFactor } from './bm25.js';

/**
 * Ratios are rounded up by this relative amount so that weight * ratio stays
 * above the scorer's (weight * tf) / (tf + lengthFactor), whose rounding differs.
 */
const ROUND_UP = 1 + 1e-12;

/** Per field, per length-factor table: one ratio per block of the field, NaN until its term is computed. */
const caches = new WeakMap<FieldData, WeakMap<Float64Array, Float64Array>>();
const cursor = new PostingsCursor();

/** The block ratios of a field under a length-factor table, with the term's blocks filled in. */
export function blockMaxRatios(field: FieldData, termOrdinal: number, lengthFactor: Float64Array): Float64Array {
  let byTable = caches.get(field);
  if (!byTable) caches.set(field, (byTable = new WeakMap()));
  let ratios = byTable.get(lengthFactor);
  if (!ratios) byTable.set(lengthFactor, (ratios = new Float64Array(field.blockLastDoc.length).fill(NaN)));
  const first = field.blockStart[termOrdinal]!;
  const end = field.blockStart[termOrdinal + 1]!;
  if (first < end && Number.isNaN(ratios[first]!)) fillTerm(field, termOrdinal, lengthFactor, ratios);
  return ratios;
}

function fillTerm(field: FieldData, termOrdinal: number, lengthFactor: Float64Array, ratios: Float64Array): void {
  cursor.reset(field, termOrdinal);
  const norms = field.norms;
  for (let block = cursor.firstBlock; block < cursor.endBlock; block++) {
    const count = cursor.decodeBlock(block);
    const docs = cursor.docs;
    const freqs = cursor.freqs;
    let best = 0;
    for (let i = 0; i < count; i++) {
      const ratio = tfFactor(freqs[i]!, lengthFactor[norms[docs[i]!]!]!);
      if (ratio > best) best = ratio;
    }
    ratios[block] = best * ROUND_UP;
  }
}
