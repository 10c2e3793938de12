/**
 * The postings half of a merge, done without analysing any text: the term
 * dictionaries of the sources are merged in their byte order, and each
 * term's postings are decoded source after source, their documents
 * renumbered into the merged segment (deleted ones left out) and re-encoded
 * into blocks exactly as a fresh build encodes them. One term's postings are
 * held at a time, next to the encoded output.
 *
 * What a fresh build of the same live documents would compute is kept
 * exactly: a term none of whose live documents holds it disappears from the
 * dictionary, document frequencies count live documents only, norms are
 * copied, and the summed field lengths are the sources' sums minus the exact
 * lengths of the deleted documents (which the caller measures).
 */
import type { Bitset } from './filters/bitset.js';
import { bitWidth } from './segment/bitpack.js';
import { BLOCK_SIZE, FIELDS, MAX_TF_RECORDED, fieldArray, type FieldName } from './segment/format.js';
import { GrowableUint32 } from './segment/growable.js';
import { PostingsCursor } from './segment/postings.js';
import { BlockArrays, type TypedArray } from './segment/postings-writer.js';
import type { FieldData, Segment } from './segment/reader.js';
import { StringTableBuilder } from './segment/string-table.js';
import { stopIfAborted } from './merge-stop.js';

export interface MergeSource {
  segment: Segment;
  /** Deleted articles of the segment, or null. */
  deleted: Bitset | null;
}

interface MergedPostings {
  /** The term table and every field's arrays, norms included, named as in the segment file. */
  arrays: [string, TypedArray][];
  terms: number;
}

/** Where each document of one field lands in the merged segment: per source, old ordinal -> new, or -1 when deleted. */
interface FieldRenumbering {
  newDoc: Int32Array[];
  documents: number;
  /** Paragraphs each merged document stands for (1 for paragraphs; an article's paragraph count for titles). */
  paragraphs: Uint32Array;
}

function renumber(sources: readonly MergeSource[], field: FieldName): FieldRenumbering {
  const newDoc: Int32Array[] = [];
  const paragraphs = new GrowableUint32();
  for (const { segment, deleted } of sources) {
    const { articleFirstParagraph } = segment;
    const map = new Int32Array(field === 'title' ? segment.articleCount : segment.paragraphCount).fill(-1);
    for (let a = 0; a < segment.articleCount; a++) {
      if (deleted?.has(a)) continue;
      const first = articleFirstParagraph[a]!;
      const count = articleFirstParagraph[a + 1]! - first;
      if (field === 'title') {
        map[a] = paragraphs.length;
        paragraphs.push(count);
      } else {
        for (let p = first; p < first + count; p++) {
          map[p] = paragraphs.length;
          paragraphs.push(1);
        }
      }
    }
    newDoc.push(map);
  }
  return { newDoc, documents: paragraphs.length, paragraphs: paragraphs.view() };
}

/** One field of the merged segment, written term after term. */
class FieldMerger {
  private readonly renumbering: FieldRenumbering;
  private readonly sourceFields: FieldData[];
  readonly norms: Uint8Array;
  private readonly df = new GrowableUint32();
  private readonly postingCount = new GrowableUint32();
  private readonly blockStart = new GrowableUint32();
  private readonly blocks: BlockArrays;
  /** The current term's live postings (at most one per document). */
  private readonly docs: Uint32Array;
  private readonly freqs: Uint32Array;
  private count = 0;
  private readonly cursor = new PostingsCursor();
  private readonly gaps = new Uint32Array(BLOCK_SIZE);
  private readonly tfs = new Uint32Array(BLOCK_SIZE);

  constructor(
    sources: readonly MergeSource[],
    private readonly field: FieldName,
  ) {
    this.renumbering = renumber(sources, field);
    this.sourceFields = sources.map((s) => s.segment.fields[field]);
    const { documents, newDoc } = this.renumbering;
    this.norms = new Uint8Array(documents);
    this.sourceFields.forEach((data, s) => newDoc[s]!.forEach((doc, old) => doc >= 0 && (this.norms[doc] = data.norms[old]!)));
    this.docs = new Uint32Array(documents);
    this.freqs = new Uint32Array(documents);
    // The sources' packed words are a close guess of the output's; it grows if not.
    this.blocks = new BlockArrays(this.sourceFields.reduce((words, data) => words + data.postings.length, 0));
  }

  /** Collects a term's live postings from the sources holding it (`ordinals[s]`, -1 for none); returns how many. */
  collect(ordinals: readonly number[]): number {
    this.count = 0;
    const cursor = this.cursor;
    ordinals.forEach((ordinal, s) => {
      if (ordinal < 0) return;
      const map = this.renumbering.newDoc[s]!;
      cursor.reset(this.sourceFields[s]!, ordinal);
      for (let block = cursor.firstBlock; block < cursor.endBlock; block++) {
        const n = cursor.decodeBlock(block);
        for (let i = 0; i < n; i++) {
          const doc = map[cursor.docs[i]!]!;
          if (doc < 0) continue;
          this.docs[this.count] = doc;
          this.freqs[this.count++] = cursor.freqs[i]!;
        }
      }
    });
    return this.count;
  }

  /** Encodes the collected postings as the next term's (as postings-writer.ts does for a fresh build). */
  emit(): void {
    const { docs, freqs, gaps, tfs, norms, count } = this;
    let df = 0;
    for (let i = 0; i < count; i++) df += this.renumbering.paragraphs[docs[i]!]!;
    this.df.push(df);
    this.postingCount.push(count);
    this.blockStart.push(this.blocks.lastDoc.length);
    let previous = -1;
    for (let first = 0; first < count; first += BLOCK_SIZE) {
      const n = Math.min(BLOCK_SIZE, count - first);
      let maxGap = 0;
      let maxTf = 0;
      let minNorm = 255;
      for (let i = 0; i < n; i++) {
        const doc = docs[first + i]!;
        gaps[i] = doc - previous - 1;
        tfs[i] = freqs[first + i]! - 1;
        previous = doc;
        maxGap = Math.max(maxGap, gaps[i]!);
        maxTf = Math.max(maxTf, freqs[first + i]!);
        minNorm = Math.min(minNorm, norms[doc]!);
      }
      this.blocks.add(previous, gaps, bitWidth(maxGap), tfs, bitWidth(maxTf - 1), n, Math.min(maxTf, MAX_TF_RECORDED), minNorm);
    }
  }

  /** The field's arrays, in the order and under the names a fresh build writes. */
  arrays(): [string, TypedArray][] {
    this.blockStart.push(this.blocks.lastDoc.length);
    const name = (part: Parameters<typeof fieldArray>[1]) => fieldArray(this.field, part);
    const { blocks } = this;
    return [
      [name('df'), this.df.view()],
      ...(this.field === 'title' ? ([[name('postingCount'), this.postingCount.view()]] as [string, TypedArray][]) : []),
      [name('blockStart'), this.blockStart.view()],
      [name('blockLastDoc'), blocks.lastDoc.view()],
      [name('blockOffset'), blocks.offset.view()],
      [name('blockDocBits'), blocks.docBits.view()],
      [name('blockFreqBits'), blocks.freqBits.view()],
      [name('blockMaxTf'), blocks.maxTf.view()],
      [name('blockMinNorm'), blocks.minNorm.view()],
      [name('postings'), blocks.words.subarray(0, blocks.wordCount)],
      [name('norms'), this.norms],
    ];
  }
}

/** Merges the sources' dictionaries and postings (sources in index order). */
/** Terms merged between two progress reports and stopping points: often enough for a bar, rarely enough to cost nothing. */
const TERMS_PER_REPORT = 4096;

/**
 * Merges the sources' postings; `onTerms` hears now and then how many of the sources' terms (summed) have
 * been read, and an aborted `signal` stops the merge there (rejecting with its reason).
 */
export async function mergePostings(sources: readonly MergeSource[], onTerms?: (read: number) => void, signal?: AbortSignal): Promise<MergedPostings> {
  const fields = FIELDS.map((field) => new FieldMerger(sources, field));
  const termTable = new StringTableBuilder();
  const next = sources.map(() => 0);
  const ordinals = sources.map(() => -1);
  for (let round = 1; ; round++) {
    if (round % TERMS_PER_REPORT === 0) {
      onTerms?.(next.reduce((sum, read) => sum + read, 0));
      if (signal) await stopIfAborted(signal);
    }
    // The smallest term not yet merged (a handful of sources: a linear scan beats a heap).
    let smallest: Uint8Array | null = null;
    for (let s = 0; s < sources.length; s++) {
      const terms = sources[s]!.segment.terms;
      if (next[s]! < terms.size && (smallest === null || Buffer.compare(terms.raw(next[s]!), smallest) < 0)) smallest = terms.raw(next[s]!);
    }
    if (smallest === null) break;
    for (let s = 0; s < sources.length; s++) {
      const terms = sources[s]!.segment.terms;
      const holds = next[s]! < terms.size && Buffer.compare(terms.raw(next[s]!), smallest) === 0;
      ordinals[s] = holds ? next[s]!++ : -1;
    }
    let live = 0;
    for (const field of fields) live += field.collect(ordinals);
    if (live === 0) continue; // only deleted documents held it
    termTable.bytes.pushBytes(smallest);
    termTable.offsets.push(termTable.bytes.length);
    for (const field of fields) field.emit();
  }
  return {
    arrays: [['terms.bytes', termTable.bytes.view()], ['terms.offsets', termTable.offsets.view()], ...fields.flatMap((field) => field.arrays())],
    terms: termTable.size,
  };
}
