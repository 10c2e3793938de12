/**
 * Field lengths quantised to one byte per document, as Lucene does: exact up
 * to 63 tokens, then geometric steps of about 3.7% up to 65,536 tokens. BM25
 * then needs a 256-entry table per query instead of a division per posting.
 */
const EXACT_LIMIT = 64;
const MAX_LENGTH = 65_536;
const RATIO = Math.pow(MAX_LENGTH / EXACT_LIMIT, 1 / (255 - EXACT_LIMIT));

/** NORM_LENGTHS[byte] = the (lower-bound) length a norm byte stands for. */
export const NORM_LENGTHS: Float64Array = (() => {
  const table = new Float64Array(256);
  for (let i = 0; i < 256; i++) {
    table[i] = i < EXACT_LIMIT ? i : Math.floor(EXACT_LIMIT * Math.pow(RATIO, i - EXACT_LIMIT));
  }
  return table;
})();

/** The largest norm byte whose length does not exceed `length`, so decoded lengths never overstate. */
export function encodeNorm(length: number): number {
  if (length < EXACT_LIMIT) return length;
  let lo = EXACT_LIMIT;
  let hi = 255;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (NORM_LENGTHS[mid]! <= length) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
