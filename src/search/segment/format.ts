/**
 * On-disk layout of an immutable segment file:
 *
 *   [8 bytes magic "LITSEG01"][u32 LE header length][u32 reserved]
 *   [msgpack header][padding to 8][array 0][padding to 8][array 1]...
 *
 * The header lists every array with its element type, byte offset and length,
 * so loading is one read into a SharedArrayBuffer plus typed-array views: no
 * per-posting parsing, and worker threads can map the same buffer.
 *
 * Documents are paragraphs (ordinals 0..paragraphs-1). Articles own a
 * contiguous range of paragraphs. Postings are grouped in blocks of
 * BLOCK_SIZE documents: per block the last doc id, the byte offset of its
 * data, the highest term frequency and the smallest norm (for score upper
 * bounds); block data is delta-encoded doc ids then term frequencies, both as
 * variable-byte integers.
 */
export const MAGIC = 'LITSEG01';
export const FORMAT_VERSION = 1;
export const BLOCK_SIZE = 128;
export const PREAMBLE_BYTES = 16;

/** Scored fields. The title field indexes each article's title on every one of its paragraphs. */
export const FIELDS = ['text', 'title'] as const;
export type FieldName = (typeof FIELDS)[number];

export type ArrayType = 'u8' | 'u32' | 'i32' | 'f64';

export interface ArraySpec {
  name: string;
  type: ArrayType;
  byteOffset: number;
  length: number;
}

export interface FieldStats {
  /** Sum of exact field lengths over all paragraphs, for the average length of BM25. */
  sumLength: number;
}

export interface SegmentHeader {
  formatVersion: number;
  paragraphs: number;
  articles: number;
  terms: number;
  fields: Record<FieldName, FieldStats>;
  arrays: ArraySpec[];
}

export const ELEMENT_BYTES: Record<ArrayType, number> = { u8: 1, u32: 4, i32: 4, f64: 8 };

/** Names of the per-field arrays. */
export function fieldArray(field: FieldName, part: 'df' | 'blockStart' | 'blockLastDoc' | 'blockOffset' | 'blockMaxTf' | 'blockMinNorm' | 'postings' | 'norms'): string {
  return `${field}.${part}`;
}

export function alignTo8(offset: number): number {
  return (offset + 7) & ~7;
}
