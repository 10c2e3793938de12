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
 * contiguous range of paragraphs. Text postings list paragraphs; title
 * postings list articles (a title is scored once per article, every paragraph
 * of the article receives that score), while the title's document frequency
 * still counts paragraphs, so idf is that of a title repeated on every
 * paragraph.
 *
 * Postings are grouped in blocks of BLOCK_SIZE documents. Block metadata are
 * separate arrays: last document, word offset of the data, bit widths of the
 * gaps and the frequencies, highest frequency (saturated at 255) and smallest
 * norm (for score upper bounds). Block data (see bitpack.ts) is the document
 * gaps minus one (from the previous block's last document) then the
 * frequencies minus one, each frame-of-reference bit-packed at its width.
 */
export const MAGIC = 'LITSEG01';
/** Version 2: bit-packed blocks, title postings per article. Version 1 (variable-byte) is refused. */
export const FORMAT_VERSION = 2;
export const BLOCK_SIZE = 128;
export const PREAMBLE_BYTES = 16;

/** Scored fields. The title field is indexed per article (see above). */
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
export type FieldPart =
  | 'df'
  | 'postingCount'
  | 'blockStart'
  | 'blockLastDoc'
  | 'blockOffset'
  | 'blockDocBits'
  | 'blockFreqBits'
  | 'blockMaxTf'
  | 'blockMinNorm'
  | 'postings'
  | 'norms';

/** Highest term frequency a block records; larger ones are stored as this (their bound is then the clause weight). */
export const MAX_TF_RECORDED = 255;

export function fieldArray(field: FieldName, part: FieldPart): string {
  return `${field}.${part}`;
}

export function alignTo8(offset: number): number {
  return (offset + 7) & ~7;
}
