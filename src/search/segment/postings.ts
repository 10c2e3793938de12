/** Iterates one term's postings in one field, block by block, with skipping. */
import { BLOCK_SIZE } from './format.js';
import type { FieldData } from './reader.js';

export const NO_MORE_DOCS = 0x7fffffff;

export class PostingsCursor {
  /** Current document, or NO_MORE_DOCS once exhausted. */
  doc = -1;
  private readonly docs = new Int32Array(BLOCK_SIZE);
  private readonly freqs = new Int32Array(BLOCK_SIZE);
  private block: number;
  private shallowBlock = 0;
  private count = 0;
  private position = 0;

  constructor(
    private readonly field: FieldData,
    private readonly firstBlock: number,
    private readonly endBlock: number,
    /** Postings of the term, to size its last block. */
    private readonly docFreq: number,
    /** Documents at or beyond this bound count as exhausted (the end of a shard range). */
    private readonly docLimit: number = NO_MORE_DOCS,
  ) {
    this.block = firstBlock - 1;
  }

  static forTerm(field: FieldData, termOrdinal: number, docLimit?: number): PostingsCursor {
    return new PostingsCursor(field, field.blockStart[termOrdinal]!, field.blockStart[termOrdinal + 1]!, field.df[termOrdinal]!, docLimit);
  }

  get freq(): number {
    return this.freqs[this.position]!;
  }

  /** Index of the current block in the field's block arrays (for block-level upper bounds). */
  get currentBlock(): number {
    return this.block;
  }

  private loadBlock(block: number): void {
    this.block = block;
    // Every block holds BLOCK_SIZE postings except possibly the term's last one.
    const n = block === this.endBlock - 1 ? this.docFreq - (block - this.firstBlock) * BLOCK_SIZE : BLOCK_SIZE;
    const offset = decodeVarints(this.field.postings, this.field.blockOffset[block]!, this.docs, n);
    decodeVarints(this.field.postings, offset, this.freqs, n);
    for (let i = 1; i < n; i++) this.docs[i]! += this.docs[i - 1]!; // doc ids are delta-encoded
    this.count = n;
    this.position = 0;
  }

  private settle(): number {
    const doc = this.docs[this.position]!;
    this.doc = doc >= this.docLimit ? NO_MORE_DOCS : doc;
    return this.doc;
  }

  next(): number {
    if (this.doc === NO_MORE_DOCS) return NO_MORE_DOCS;
    if (++this.position >= this.count) {
      if (this.block + 1 >= this.endBlock) return (this.doc = NO_MORE_DOCS);
      this.loadBlock(this.block + 1);
    }
    return this.settle();
  }

  /** Moves to the first document >= target. */
  advance(target: number): number {
    if (this.doc >= target) return this.doc;
    if (this.block < this.firstBlock || this.field.blockLastDoc[this.block]! < target) {
      let block = Math.max(this.block + 1, this.firstBlock);
      const lastDocs = this.field.blockLastDoc;
      while (block < this.endBlock && lastDocs[block]! < target) block++;
      if (block >= this.endBlock) return (this.doc = NO_MORE_DOCS);
      this.loadBlock(block);
    }
    while (this.docs[this.position]! < target) this.position++;
    return this.settle();
  }

  /**
   * Index of the first block whose last document is >= target, or -1 when
   * there is none: a "shallow" advance that reads block metadata only, never
   * decodes postings. Its pointer only moves forward, like the cursor.
   */
  shallowAdvance(target: number): number {
    const lastDocs = this.field.blockLastDoc;
    let block = Math.max(this.shallowBlock, this.block, this.firstBlock);
    while (block < this.endBlock && lastDocs[block]! < target) block++;
    this.shallowBlock = block;
    return block < this.endBlock && this.blockFirstDocBound(block) < this.docLimit ? block : -1;
  }

  /** A lower bound of the first document of a block: one past the previous block's last. */
  private blockFirstDocBound(block: number): number {
    return block > this.firstBlock ? this.field.blockLastDoc[block - 1]! + 1 : 0;
  }
}

/** Decodes `count` variable-byte integers from `bytes` at `offset` into `target`; returns the offset after them. */
function decodeVarints(bytes: Uint8Array, offset: number, target: Int32Array, count: number): number {
  for (let i = 0; i < count; i++) {
    let value = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = bytes[offset++]!;
      value |= (byte & 0x7f) << shift;
      shift += 7;
    } while (byte & 0x80);
    target[i] = value;
  }
  return offset;
}
