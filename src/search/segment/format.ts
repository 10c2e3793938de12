/**
 * On-disk layout of an immutable segment file:
 *
 *   [8 bytes magic "LITSEG01"][u32 LE header length][u32 LE CRC-32 of the header]
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
 *
 * Every array's CRC-32 is in the header: a load verifies the arrays it reads
 * (all of them to merge, all but the postings to serve). Served postings are
 * read per term on first use, so each field also has the CRC-32 of every
 * POSTINGS_PAGE_BYTES of its postings (`<field>.postingsPageCrc`), and a term
 * is verified page by page as it is paged in (postings-pager.ts).
 */
export const MAGIC = 'LITSEG01';
/**
 * Version 4: a CRC-32 per array in the header and per postings page. Older versions are refused
 * (their damaged bytes could not be told from good ones).
 * Version 3: every ISSN and every type of an article (article.issn*, article.type* offset/id columns).
 * Version 2: bit-packed blocks, title postings per article. Older versions are refused.
 */
export const FORMAT_VERSION = 4;
export const BLOCK_SIZE = 128;
export const PREAMBLE_BYTES = 16;
/**
 * Bytes of postings per checksum: a term paged in reads the pages it lies in
 * whole (about a microsecond of CRC-32 per page), for 4 bytes of checksum per
 * page (0.1% of the postings).
 */
export const POSTINGS_PAGE_BYTES = 4096;

/** Scored fields. The title field is indexed per article (see above). */
export const FIELDS = ['text', 'title'] as const;
export type FieldName = (typeof FIELDS)[number];

export type ArrayType = 'u8' | 'u32' | 'i32' | 'f64';

export interface ArraySpec {
  name: string;
  type: ArrayType;
  byteOffset: number;
  length: number;
  /** CRC-32 of the array's bytes. */
  crc32: number;
}

interface FieldStats {
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
  | 'postingsPageCrc'
  | 'norms';

/** Highest term frequency a block records; larger ones are stored as this (their bound is then the clause weight). */
export const MAX_TF_RECORDED = 255;

export function fieldArray(field: FieldName, part: FieldPart): string {
  return `${field}.${part}`;
}

export function alignTo8(offset: number): number {
  return (offset + 7) & ~7;
}
