/**
 * Iterates one term's postings in one field, block by block. Two ways in:
 * - document at a time (`next`, `advance`), for probing and intersections;
 * - block at a time (`seekBlock`, `decodeBlock`, then `docs`/`freqs`), for
 *   term-at-a-time scoring of a window of documents.
 * A cursor is reusable (`reset`), so a query allocates none.
 */
import { BLOCK_SIZE } from './format.js';
import { packedWords, unpackGaps, unpackPlusOne } from './bitpack.js';
import type { FieldData } from './reader.js';

export const NO_MORE_DOCS = 0x7fffffff;

export class PostingsCursor {
  /** Current document, or NO_MORE_DOCS once exhausted. */
  doc = -1;
  /** Decoded documents and frequencies of the current block (`count` of them). */
  readonly docs = new Int32Array(BLOCK_SIZE);
  readonly freqs = new Int32Array(BLOCK_SIZE);
  count = 0;
  field!: FieldData;
  firstBlock = 0;
  endBlock = 0;
  /** Postings of the term, to size its last block. */
  private postings = 0;
  private block = -1;
  /** The block whose frequencies `freqs` holds: a probe (`advance`) decodes them only once one is asked for. */
  private freqBlock = -1;
  private position = 0;
  /** First block not yet known to end before the documents asked for (only moves forward). */
  private seekPointer = 0;

  static forTerm(field: FieldData, termOrdinal: number): PostingsCursor {
    return new PostingsCursor().reset(field, termOrdinal);
  }

  reset(field: FieldData, termOrdinal: number): this {
    field.pager?.pageIn(termOrdinal);
    this.field = field;
    this.firstBlock = field.blockStart[termOrdinal]!;
    this.endBlock = field.blockStart[termOrdinal + 1]!;
    this.postings = field.postingCount[termOrdinal]!;
    this.block = -1;
    this.freqBlock = -1;
    this.seekPointer = this.firstBlock;
    this.doc = -1;
    this.count = 0;
    this.position = 0;
    return this;
  }

  get freq(): number {
    if (this.freqBlock !== this.block) this.decodeFreqs();
    return this.freqs[this.position]!;
  }

  /** Decodes a block's documents and frequencies (unless it is the current one) and positions the cursor at its first posting. */
  decodeBlock(block: number): number {
    this.decodeDocs(block);
    if (this.freqBlock !== block) this.decodeFreqs();
    return this.count;
  }

  /** Decodes a block's documents only (unless it is the current one) and positions the cursor at its first posting. */
  private decodeDocs(block: number): void {
    if (block !== this.block) {
      const field = this.field;
      const n = block === this.endBlock - 1 ? this.postings - (block - this.firstBlock) * BLOCK_SIZE : BLOCK_SIZE;
      // Gaps are stored minus one, from the previous block's last document.
      const previous = block > this.firstBlock ? field.blockLastDoc[block - 1]! : -1;
      unpackGaps(field.postings, field.blockOffset[block]!, field.blockDocBits[block]!, n, this.docs, previous);
      this.block = block;
      this.count = n;
    }
    this.position = 0;
    this.doc = this.docs[0]!;
  }

  /** Frequencies of the current block (stored minus one, after its documents). */
  private decodeFreqs(): void {
    const { field, block, count } = this;
    unpackPlusOne(field.postings, field.blockOffset[block]! + packedWords(count, field.blockDocBits[block]!), field.blockFreqBits[block]!, count, this.freqs);
    this.freqBlock = block;
  }

  /**
   * The first block whose last document is >= target (endBlock when none),
   * reading block metadata only. Targets must not decrease between calls.
   */
  seekBlock(target: number): number {
    const lastDocs = this.field.blockLastDoc;
    const end = this.endBlock;
    let block = this.seekPointer;
    if (block < end && lastDocs[block]! < target) {
      // Galloping search: steps of 1, 2, 4... then bisection, so a long jump over a long
      // list costs a logarithm of the blocks passed, not one read per block.
      let below = block; // lastDocs[below] < target
      let step = 1;
      let above = block + 1;
      while (above < end && lastDocs[above]! < target) {
        below = above;
        step <<= 1;
        above = Math.min(end, below + step);
      }
      while (above - below > 1) {
        const middle = (below + above) >>> 1;
        if (lastDocs[middle]! < target) below = middle;
        else above = middle;
      }
      block = above;
    }
    this.seekPointer = block;
    return block;
  }

  /** A lower bound of a block's first document: one past the previous block's last. */
  blockFirstDoc(block: number): number {
    return block > this.firstBlock ? this.field.blockLastDoc[block - 1]! + 1 : 0;
  }

  next(): number {
    if (this.doc === NO_MORE_DOCS) return NO_MORE_DOCS;
    if (this.block < 0) return this.advance(0);
    if (++this.position >= this.count) {
      if (this.block + 1 >= this.endBlock) return (this.doc = NO_MORE_DOCS);
      this.decodeDocs(this.block + 1);
      return this.doc;
    }
    return (this.doc = this.docs[this.position]!);
  }

  /** Moves to the first document >= target. */
  advance(target: number): number {
    if (this.doc >= target) return this.doc;
    if (this.block < 0 || this.field.blockLastDoc[this.block]! < target) {
      const block = this.seekBlock(target);
      if (block >= this.endBlock) return (this.doc = NO_MORE_DOCS);
      this.decodeDocs(block);
    }
    const docs = this.docs;
    let position = this.position;
    while (docs[position]! < target) position++;
    this.position = position;
    return (this.doc = docs[position]!);
  }
}
