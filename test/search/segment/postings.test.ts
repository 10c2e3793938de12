/**
 * Postings encoding (postings-writer.ts) read back by the cursor (postings.ts):
 * random term lists spanning several blocks, term ids given in another order
 * than the sorted dictionary, documents standing for several paragraphs.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { FieldPostings, encodePostings, type TermCounts } from '../../../src/search/segment/postings-writer.js';
import { NO_MORE_DOCS, PostingsCursor } from '../../../src/search/segment/postings.js';
import type { FieldData } from '../../../src/search/segment/reader.js';
import { BLOCK_SIZE, MAX_TF_RECORDED } from '../../../src/search/segment/format.js';
import { encodeNorm } from '../../../src/search/segment/norms.js';

interface Doc {
  length: number;
  paragraphs: number;
  /** term id -> frequency */
  terms: Map<number, number>;
}

/** A corpus over `termCount` term ids; long enough that common terms fill several blocks. */
const corpora = fc.integer({ min: 1, max: 6 }).chain((termCount) =>
  fc.record({
    termCount: fc.constant(termCount),
    docs: fc.array(
      fc.record({
        length: fc.integer({ min: 1, max: 5000 }),
        paragraphs: fc.integer({ min: 1, max: 4 }),
        terms: fc
          .array(fc.tuple(fc.nat(termCount - 1), fc.oneof(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 400 }))), { maxLength: termCount })
          .map((pairs) => new Map(pairs)),
      }),
      { maxLength: 3 * BLOCK_SIZE + 17 },
    ),
    /** A permutation: the ordinal each term id takes in the sorted dictionary. */
    order: fc.shuffledSubarray(Array.from({ length: termCount }, (_, i) => i), { minLength: termCount }),
  }),
);

function termCounts(terms: Map<number, number>): TermCounts {
  return { distinct: terms.size, ids: Uint32Array.from(terms.keys()), freqs: Uint32Array.from(terms.values()) };
}

function encode(docs: readonly Doc[], order: readonly number[], perArticle: boolean): FieldData {
  const postings = new FieldPostings();
  for (const doc of docs) postings.addDocument(termCounts(doc.terms), doc.length, doc.paragraphs);
  const arrays = new Map<string, unknown>(encodePostings(postings, Uint32Array.from(order), perArticle));
  const df = arrays.get('df') as Uint32Array;
  return {
    ...(Object.fromEntries(arrays) as Omit<FieldData, 'postingCount' | 'norms'>),
    postingCount: (arrays.get('postingCount') as Uint32Array | undefined) ?? df,
    norms: postings.norms.view(),
  };
}

/** The (document, frequency) list of one term id, from the corpus itself. */
function expected(docs: readonly Doc[], termId: number): [number, number][] {
  return docs.flatMap((doc, ordinal) => (doc.terms.has(termId) ? [[ordinal, doc.terms.get(termId)!] as [number, number]] : []));
}

describe('postings encoding and the cursor', () => {
  it('next() returns every document and frequency of each term, in order, then NO_MORE_DOCS', () => {
    fc.assert(
      fc.property(corpora, ({ termCount, docs, order }) => {
        const field = encode(docs, order, true);
        for (let termId = 0; termId < termCount; termId++) {
          const cursor = PostingsCursor.forTerm(field, order[termId]!);
          const read: [number, number][] = [];
          for (let doc = cursor.next(); doc !== NO_MORE_DOCS; doc = cursor.next()) read.push([doc, cursor.freq]);
          expect(read).toEqual(expected(docs, termId));
          expect(cursor.next()).toBe(NO_MORE_DOCS);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('advance(target) lands on the first document >= target, for increasing targets', () => {
    fc.assert(
      fc.property(corpora, fc.array(fc.nat(3 * BLOCK_SIZE + 20), { maxLength: 20 }), ({ termCount, docs, order }, rawTargets) => {
        const field = encode(docs, order, false);
        const targets = [...rawTargets].sort((a, b) => a - b);
        for (let termId = 0; termId < termCount; termId++) {
          const list = expected(docs, termId).map(([doc]) => doc);
          const cursor = PostingsCursor.forTerm(field, order[termId]!);
          for (const target of targets) {
            // Targets increase, so the answer is always the list's first document >= target.
            expect(cursor.advance(target)).toBe(list.find((doc) => doc >= target) ?? NO_MORE_DOCS);
          }
        }
      }),
      { numRuns: 60 },
    );
  });

  it('df counts paragraphs, postingCount documents; block metadata bound their blocks', () => {
    fc.assert(
      fc.property(corpora, ({ termCount, docs, order }) => {
        const field = encode(docs, order, true);
        for (let termId = 0; termId < termCount; termId++) {
          const ordinal = order[termId]!;
          const list = expected(docs, termId);
          expect(field.postingCount[ordinal]).toBe(list.length);
          expect(field.df[ordinal]).toBe(list.reduce((sum, [doc]) => sum + docs[doc]!.paragraphs, 0));
          const blocks = field.blockStart[ordinal + 1]! - field.blockStart[ordinal]!;
          expect(blocks).toBe(Math.ceil(list.length / BLOCK_SIZE));
          for (let b = 0; b < blocks; b++) {
            const inBlock = list.slice(b * BLOCK_SIZE, (b + 1) * BLOCK_SIZE);
            const block = field.blockStart[ordinal]! + b;
            expect(field.blockLastDoc[block]).toBe(inBlock.at(-1)![0]);
            expect(field.blockMaxTf[block]).toBe(Math.min(MAX_TF_RECORDED, Math.max(...inBlock.map(([, freq]) => freq))));
            expect(field.blockMinNorm[block]).toBe(Math.min(...inBlock.map(([doc]) => encodeNorm(docs[doc]!.length))));
          }
        }
      }),
      { numRuns: 60 },
    );
  });

  it('without per-article lists, postingCount is not written (df stands for it)', () => {
    const postings = new FieldPostings();
    postings.addDocument(termCounts(new Map([[0, 2]])), 10);
    const parts = encodePostings(postings, Uint32Array.of(0), false).map(([part]) => part);
    expect(parts).not.toContain('postingCount');
    expect(encodePostings(postings, Uint32Array.of(0), true).map(([part]) => part)).toContain('postingCount');
  });
});
