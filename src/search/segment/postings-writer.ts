/**
 * Collects one field's postings while a segment is built and encodes them
 * into the arrays of format.ts: bit-packed blocks with separate metadata.
 *
 * Postings are collected as (term id, document, frequency) triples in typed
 * arrays; at write time they are bucketed per term by a stable counting sort,
 * which keeps documents in increasing order.
 */
import { GrowableBytes, GrowableUint32 } from './growable.js';
import { memoryFor, type SpareMemory } from './spare-memory.js';
import { encodeNorm } from './norms.js';
import { bitWidth, pack, packedWords } from './bitpack.js';
import { BLOCK_SIZE, MAX_TF_RECORDED, type FieldPart } from './format.js';

export type TypedArray = Uint8Array | Uint32Array | Int32Array | Float64Array;

/** A document's distinct term ids and their frequencies: the first `distinct` entries of `ids` and `freqs`. */
export interface TermCounts {
  distinct: number;
  ids: Uint32Array;
  freqs: Uint32Array;
}

export class FieldPostings {
  readonly termIds: GrowableUint32;
  readonly docs: GrowableUint32;
  readonly freqs: GrowableUint32;
  readonly norms: GrowableBytes;
  /** Paragraphs each document stands for (title documents are articles), for df and average length. */
  readonly paragraphs: GrowableUint32;
  sumLength = 0;

  /**
   * With `memory`, the arrays reuse the buffers of the previous builder's
   * arrays of the same `field` (spare-memory.ts).
   */
  constructor(memory?: SpareMemory, field = 'field') {
    this.termIds = new GrowableUint32(1 << 16, memoryFor(memory, `${field}.termIds`));
    this.docs = new GrowableUint32(1 << 16, memoryFor(memory, `${field}.docs`));
    this.freqs = new GrowableUint32(1 << 16, memoryFor(memory, `${field}.freqs`));
    this.norms = new GrowableBytes(1 << 12, memoryFor(memory, `${field}.norms`));
    this.paragraphs = new GrowableUint32(1 << 12, memoryFor(memory, `${field}.paragraphs`));
  }

  /** Adds a document (the next ordinal) standing for `paragraphs` paragraphs. */
  addDocument(terms: TermCounts, length: number, paragraphs = 1): void {
    const doc = this.norms.length;
    for (let i = 0; i < terms.distinct; i++) {
      this.termIds.push(terms.ids[i]!);
      this.docs.push(doc);
      this.freqs.push(terms.freqs[i]!);
    }
    this.norms.pushByte(encodeNorm(length));
    this.paragraphs.push(paragraphs);
    this.sumLength += length * paragraphs;
  }

  get postingCount(): number {
    return this.docs.length;
  }
}

/** Terms encoded between two progress reports. */
const TERMS_PER_REPORT = 4096;
/** Postings grouped by term between two progress reports. */
const POSTINGS_PER_REPORT = 1 << 16;

/**
 * Progress steps per posting of a field: one for grouping them by term (two quick passes), three for
 * encoding them, which takes about three times as long.
 */
const ENCODING_STEPS = 3;
export const POSTING_STEPS = 1 + ENCODING_STEPS;

/**
 * The field's arrays. `df` counts paragraphs; `postingCount` (documents in
 * the list) is written only when it differs, for fields whose documents are
 * articles. `onSteps` hears now and then how many of POSTING_STEPS × postings
 * steps are done: the grouping of the postings by term (two passes over all of
 * them, about a second on a large segment), then their encoding, term by term.
 */
export function encodePostings(postings: FieldPostings, ordinalOfId: Uint32Array, perArticle: boolean, onSteps?: (done: number) => void): [FieldPart, TypedArray][] {
  const termCount = ordinalOfId.length;
  const count = postings.docs.length;
  const termIds = postings.termIds.view();
  const docs = postings.docs.view();
  const freqs = postings.freqs.view();
  const norms = postings.norms.view();
  const paragraphs = postings.paragraphs.view();

  // Pass 0 or 1 at posting i: half a step per posting each.
  const onGrouped = onSteps && ((pass: number, i: number) => onSteps(Math.floor((pass * count + i) / 2)));
  const postingCount = new Uint32Array(termCount);
  const df = new Uint32Array(termCount);
  for (let i = 0; i < count; i++) {
    if (onGrouped && i % POSTINGS_PER_REPORT === 0) onGrouped(0, i);
    const ordinal = ordinalOfId[termIds[i]!]!;
    postingCount[ordinal]!++;
    df[ordinal]! += paragraphs[docs[i]!]!;
  }
  const start = new Uint32Array(termCount + 1);
  for (let t = 0; t < termCount; t++) start[t + 1] = start[t]! + postingCount[t]!;
  const cursor = start.slice(0, termCount);
  const order = new Uint32Array(count);
  for (let i = 0; i < count; i++) {
    if (onGrouped && i % POSTINGS_PER_REPORT === 0) onGrouped(1, i);
    order[cursor[ordinalOfId[termIds[i]!]!]!++] = i;
  }

  const blocks = new BlockArrays(count);
  const gaps = new Uint32Array(BLOCK_SIZE);
  const tfs = new Uint32Array(BLOCK_SIZE);
  const blockStart = new Uint32Array(termCount + 1);
  for (let t = 0; t < termCount; t++) {
    if (onSteps && t % TERMS_PER_REPORT === 0) onSteps(count + ENCODING_STEPS * start[t]!);
    blockStart[t] = blocks.lastDoc.length;
    let previous = -1;
    for (let first = start[t]!; first < start[t + 1]!; first += BLOCK_SIZE) {
      const n = Math.min(BLOCK_SIZE, start[t + 1]! - first);
      let maxGap = 0;
      let maxTf = 0;
      let minNorm = 255;
      for (let i = 0; i < n; i++) {
        const posting = order[first + i]!;
        const doc = docs[posting]!;
        gaps[i] = doc - previous - 1;
        tfs[i] = freqs[posting]! - 1;
        previous = doc;
        maxGap = Math.max(maxGap, gaps[i]!);
        maxTf = Math.max(maxTf, freqs[posting]!);
        minNorm = Math.min(minNorm, norms[doc]!);
      }
      blocks.add(previous, gaps, bitWidth(maxGap), tfs, bitWidth(maxTf - 1), n, Math.min(maxTf, MAX_TF_RECORDED), minNorm);
    }
  }
  blockStart[termCount] = blocks.lastDoc.length;
  return [
    ['df', df],
    ...(perArticle ? ([['postingCount', postingCount]] as [FieldPart, TypedArray][]) : []),
    ['blockStart', blockStart],
    ['blockLastDoc', blocks.lastDoc.view()],
    ['blockOffset', blocks.offset.view()],
    ['blockDocBits', blocks.docBits.view()],
    ['blockFreqBits', blocks.freqBits.view()],
    ['blockMaxTf', blocks.maxTf.view()],
    ['blockMinNorm', blocks.minNorm.view()],
    ['postings', blocks.words.subarray(0, blocks.wordCount)],
  ];
}

/** The block arrays of one field, filled term after term (also by merging). */
export class BlockArrays {
  readonly lastDoc = new GrowableUint32();
  /** Word offset of each block's data, plus the end. */
  readonly offset = new GrowableUint32();
  readonly docBits = new GrowableBytes();
  readonly freqBits = new GrowableBytes();
  readonly maxTf = new GrowableBytes();
  readonly minNorm = new GrowableBytes();
  /** Packed data; about 20 bits a posting, so one word a posting is a first guess that rarely grows. */
  words: Uint32Array;
  wordCount = 0;

  constructor(postings: number) {
    this.words = new Uint32Array(Math.max(1024, postings));
    this.offset.push(0);
  }

  add(lastDoc: number, gaps: Uint32Array, docBits: number, tfs: Uint32Array, freqBits: number, n: number, maxTf: number, minNorm: number): void {
    const needed = this.wordCount + packedWords(n, docBits) + packedWords(n, freqBits);
    if (needed > this.words.length) {
      const bigger = new Uint32Array(Math.max(needed, this.words.length * 2));
      bigger.set(this.words.subarray(0, this.wordCount));
      this.words = bigger;
    }
    this.wordCount = pack(gaps, n, docBits, this.words, this.wordCount);
    this.wordCount = pack(tfs, n, freqBits, this.words, this.wordCount);
    this.lastDoc.push(lastDoc);
    this.offset.push(this.wordCount);
    this.docBits.pushByte(docBits);
    this.freqBits.pushByte(freqBits);
    this.maxTf.pushByte(maxTf);
    this.minNorm.pushByte(minNorm);
  }
}
