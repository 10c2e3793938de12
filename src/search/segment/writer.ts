/**
 * Builds one immutable segment in memory, then writes it as a single file.
 * Terms are sorted at write time; postings are encoded by postings-writer.ts.
 */
import { open } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { pack } from 'msgpackr';
import { analyze } from '../analysis/analyzer.js';
import type { ArticleInput } from '../../corpus/model.js';
import { GrowableUint32 } from './growable.js';
import { StringTableBuilder } from './string-table.js';
import { FieldPostings, POSTING_STEPS, encodePostings, type TermCounts, type TypedArray } from './postings-writer.js';
import { StoredFieldsBuilder } from '../stored/writer.js';
import type { SpareMemory } from './spare-memory.js';
import { writeWhole } from '../write-whole.js';
import {
  ELEMENT_BYTES,
  FIELDS,
  FORMAT_VERSION,
  MAGIC,
  POSTINGS_PAGE_BYTES,
  PREAMBLE_BYTES,
  alignTo8,
  fieldArray,
  type ArraySpec,
  type ArrayType,
  type FieldName,
  type SegmentHeader,
} from './format.js';

const NO_VALUE = 0xffffffff;
const SLOT_UNSET = 0xffffffff;

/**
 * One document's distinct term ids and frequencies. `slotOf[id]` points into
 * `ids`/`freqs`; it is trusted only if `ids` there holds the id again, so the
 * table never needs clearing between documents (a sparse-set).
 */
class DocumentTerms implements TermCounts {
  distinct = 0;
  ids: Uint32Array<ArrayBuffer> = new Uint32Array(256);
  freqs: Uint32Array<ArrayBuffer> = new Uint32Array(256);
  slotOf = new Uint32Array(1 << 16).fill(SLOT_UNSET);

  grow(): void {
    this.ids = growTo(this.ids, this.ids.length * 2, 0);
    this.freqs = growTo(this.freqs, this.freqs.length * 2, 0);
  }
}

function growTo(array: Uint32Array, minimum: number, fill: number): Uint32Array<ArrayBuffer> {
  let length = array.length;
  while (length < minimum) length *= 2;
  const grown = new Uint32Array(length).fill(fill);
  grown.set(array);
  return grown;
}

/** What a segment's filter columns and id table hold of an article. */
export type ArticleColumns = Pick<ArticleInput, 'article_id' | 'authors' | 'date' | 'article_type' | 'journal_issn' | 'journal_name' | 'journal_issns' | 'article_types'>;

export class SegmentBuilder {
  private readonly termIds = new Map<string, number>();
  /** The current document's term counts, reused from document to document (no Map per document). */
  private readonly counts = new DocumentTerms();
  private readonly fields: Record<FieldName, FieldPostings>;
  private readonly paragraphArticle = new GrowableUint32();
  private readonly articleFirstParagraph = new GrowableUint32();
  private readonly articleDate = new GrowableUint32();
  private readonly articleType = new GrowableUint32();
  private readonly articleJournal = new GrowableUint32();
  /** Every ISSN and every type of each article (the columns above hold the primary one). */
  private readonly articleIssnOffsets = new GrowableUint32();
  private readonly articleIssnIds = new GrowableUint32();
  private readonly articleTypeOffsets = new GrowableUint32();
  private readonly articleTypeIds = new GrowableUint32();
  private readonly articleAuthorOffsets = new GrowableUint32();
  private readonly articleAuthorIds = new GrowableUint32();
  private readonly types = new StringTableBuilder();
  private readonly journals = new StringTableBuilder();
  private readonly journalNames: string[] = [];
  private readonly authors = new StringTableBuilder();
  private readonly articleIds = new StringTableBuilder();
  /** Paragraph text and article metadata, pre-rendered, for the segment's stored-fields file. */
  readonly stored: StoredFieldsBuilder;

  /**
   * With `memory`, the largest arrays filled while articles are added
   * (postings and stored fragments) reuse the previous builder's buffers
   * (spare-memory.ts).
   */
  constructor(memory?: SpareMemory) {
    this.fields = { text: new FieldPostings(memory, 'text'), title: new FieldPostings(memory, 'title') };
    this.stored = new StoredFieldsBuilder(memory);
    this.articleFirstParagraph.push(0);
    this.articleAuthorOffsets.push(0);
    this.articleIssnOffsets.push(0);
    this.articleTypeOffsets.push(0);
  }

  get paragraphCount(): number {
    return this.paragraphArticle.length;
  }

  get articleCount(): number {
    return this.articleIds.size;
  }

  /** Rough memory held by the builder, so ingestion can flush segments at a bounded size. */
  get approximateBytes(): number {
    const postings = this.fields.text.docs.length + this.fields.title.docs.length;
    return postings * 12 + this.stored.approximateBytes;
  }

  /** Counts a document's terms into `this.counts` (distinct term ids in first-seen order, with their frequencies). */
  private countTerms(terms: string[]): DocumentTerms {
    const counts = this.counts;
    counts.distinct = 0;
    for (const term of terms) {
      let id = this.termIds.get(term);
      if (id === undefined) {
        id = this.termIds.size;
        this.termIds.set(term, id);
        if (id >= counts.slotOf.length) counts.slotOf = growTo(counts.slotOf, id + 1, SLOT_UNSET);
      }
      const slot = counts.slotOf[id]!;
      if (slot !== SLOT_UNSET && slot < counts.distinct && counts.ids[slot] === id) counts.freqs[slot]!++;
      else {
        if (counts.distinct === counts.ids.length) counts.grow();
        counts.slotOf[id] = counts.distinct;
        counts.ids[counts.distinct] = id;
        counts.freqs[counts.distinct++] = 1;
      }
    }
    return counts;
  }

  addArticle(article: ArticleInput): void {
    const titleTerms = analyze(article.title);
    this.fields.title.addDocument(this.countTerms(titleTerms), titleTerms.length, article.paragraphs.length);
    for (const paragraph of article.paragraphs) {
      const textTerms = analyze(paragraph.text);
      this.fields.text.addDocument(this.countTerms(textTerms), textTerms.length);
    }
    this.addArticleColumns(article, article.paragraphs.length);
    this.stored.addArticle(article);
  }

  /**
   * Everything of an article with `paragraphs` paragraphs but its postings and
   * stored fragments: its filter columns and id. A merge brings the postings
   * already analysed and copies the fragments itself (stored/copy.ts).
   */
  addArticleColumns(article: ArticleColumns, paragraphs: number): void {
    const articleOrdinal = this.articleIds.size;
    for (let p = 0; p < paragraphs; p++) this.paragraphArticle.push(articleOrdinal);
    this.articleFirstParagraph.push(this.paragraphArticle.length);

    this.articleDate.push(article.date === null ? NO_VALUE : Number(article.date.replaceAll('-', '')));
    this.articleType.push(this.types.intern(article.article_type));
    this.articleJournal.push(article.journal_issn === null ? NO_VALUE : this.internJournal(article.journal_issn, article.journal_name));
    for (const issn of new Set([...(article.journal_issn === null ? [] : [article.journal_issn]), ...(article.journal_issns ?? [])])) {
      this.articleIssnIds.push(this.internJournal(issn, article.journal_name));
    }
    this.articleIssnOffsets.push(this.articleIssnIds.length);
    for (const type of new Set([article.article_type, ...(article.article_types ?? [])])) this.articleTypeIds.push(this.types.intern(type));
    this.articleTypeOffsets.push(this.articleTypeIds.length);
    for (const author of new Set(article.authors)) this.articleAuthorIds.push(this.authors.intern(author));
    this.articleAuthorOffsets.push(this.articleAuthorIds.length);
    this.articleIds.append(article.article_id);
  }

  /** The journal table id of an ISSN; the first name seen for it is the journal's name. */
  private internJournal(issn: string, name: string | null): number {
    const journal = this.journals.intern(issn);
    if (journal === this.journalNames.length) this.journalNames.push(name ?? '');
    return journal;
  }

  /**
   * Steps `write` reports, known before it starts: one per term for sorting the terms, then for each
   * field POSTING_STEPS per posting (its grouping by term, then its encoding), so that each phase's
   * share of the steps follows its share of the time: on a large segment, the sort and the grouping
   * take seconds, which would otherwise pass before the first report.
   */
  get writeSteps(): number {
    return this.termIds.size + FIELDS.reduce((steps, field) => steps + POSTING_STEPS * this.fields[field].postingCount, 0);
  }

  /**
   * Writes the segment file and fsyncs it. The caller publishes it through the manifest. `onSteps`
   * hears now and then how many of the `writeSteps` are done, from 0 to all of them (before the
   * file itself is written).
   */
  async write(file: string, onSteps?: (done: number, total: number) => void): Promise<SegmentHeader> {
    const terms = this.termIds.size;
    const total = this.writeSteps;
    const report = onSteps && ((done: number) => onSteps(done, total));
    report?.(0);
    const sortedTerms = [...this.termIds.keys()].sort(compareUtf8);
    const ordinalOfId = new Uint32Array(terms);
    sortedTerms.forEach((term, ordinal) => (ordinalOfId[this.termIds.get(term)!] = ordinal));
    const termTable = new StringTableBuilder();
    for (const term of sortedTerms) termTable.append(term);
    report?.(terms);

    const postings: [string, TypedArray][] = [
      ['terms.bytes', termTable.bytes.view()],
      ['terms.offsets', termTable.offsets.view()],
    ];
    let fieldStart = terms;
    for (const field of FIELDS) {
      const start = fieldStart;
      const onFieldSteps = report && ((done: number) => report(start + done));
      for (const [part, array] of encodePostings(this.fields[field], ordinalOfId, field === 'title', onFieldSteps)) postings.push([fieldArray(field, part), array]);
      postings.push([fieldArray(field, 'norms'), this.fields[field].norms.view()]);
      fieldStart += POSTING_STEPS * this.fields[field].postingCount;
    }
    report?.(total);
    return this.writeWithPostings(file, postings, terms, { text: this.fields.text.sumLength, title: this.fields.title.sumLength });
  }

  /**
   * Writes the segment file from postings arrays (the term table and every
   * field's arrays, norms included) and this builder's article columns.
   */
  async writeWithPostings(file: string, postings: [string, TypedArray][], terms: number, sumLengths: Record<FieldName, number>): Promise<SegmentHeader> {
    const arrays = [...postings];
    for (const field of FIELDS) {
      const fieldPostings = postings.find(([name]) => name === fieldArray(field, 'postings'))![1];
      arrays.push([fieldArray(field, 'postingsPageCrc'), postingsPageCrcs(fieldPostings)]);
    }
    const journalNameTable = new StringTableBuilder();
    for (const name of this.journalNames) journalNameTable.append(name);
    arrays.push(
      ['paragraph.article', this.paragraphArticle.view()],
      ['article.id.bytes', this.articleIds.bytes.view()],
      ['article.id.offsets', this.articleIds.offsets.view()],
      ['article.firstParagraph', this.articleFirstParagraph.view()],
      ['article.date', new Int32Array(this.articleDate.view().buffer, 0, this.articleDate.length)],
      ['article.type', this.articleType.view()],
      ['article.journal', this.articleJournal.view()],
      ['article.issnOffsets', this.articleIssnOffsets.view()],
      ['article.issnIds', this.articleIssnIds.view()],
      ['article.typeOffsets', this.articleTypeOffsets.view()],
      ['article.typeIds', this.articleTypeIds.view()],
      ['article.authorOffsets', this.articleAuthorOffsets.view()],
      ['article.authorIds', this.articleAuthorIds.view()],
      ['types.bytes', this.types.bytes.view()],
      ['types.offsets', this.types.offsets.view()],
      ['journals.bytes', this.journals.bytes.view()],
      ['journals.offsets', this.journals.offsets.view()],
      ['journalNames.bytes', journalNameTable.bytes.view()],
      ['journalNames.offsets', journalNameTable.offsets.view()],
      ['authors.bytes', this.authors.bytes.view()],
      ['authors.offsets', this.authors.offsets.view()],
    );

    const header: SegmentHeader = {
      formatVersion: FORMAT_VERSION,
      paragraphs: this.paragraphCount,
      articles: this.articleCount,
      terms,
      fields: { text: { sumLength: sumLengths.text }, title: { sumLength: sumLengths.title } },
      arrays: [],
    };
    await writeSegmentFile(file, header, arrays);
    return header;
  }
}

/** Byte-wise UTF-8 order, the order the reader's binary search uses. */
export function compareUtf8(a: string, b: string): number {
  // Outside the surrogates, UTF-16 code units order as their UTF-8 bytes do, so most comparisons need
  // no encoding: encoding both strings for each of the n·log(n) comparisons made the sort of 430,000
  // terms take 2.6 s instead of 0.3 s. Surrogates (pairs, and lone ones, which UTF-8 writes as U+FFFD)
  // go the general way.
  const common = Math.min(a.length, b.length);
  for (let i = 0; i < common; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    return isSurrogate(x) || isSurrogate(y) ? Buffer.compare(Buffer.from(a), Buffer.from(b)) : x - y;
  }
  // A prefix's bytes come first even when it ends in half a pair: its U+FFFD (EF BF BD) is below any
  // four-byte sequence (F0-F4) the whole pair starts with.
  return a.length - b.length;
}

function isSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdfff;
}

/** The CRC-32 of every POSTINGS_PAGE_BYTES of a field's postings (the last page may be shorter). */
function postingsPageCrcs(postings: TypedArray): Uint32Array {
  const bytes = new Uint8Array(postings.buffer, postings.byteOffset, postings.byteLength);
  const crcs = new Uint32Array(Math.ceil(bytes.length / POSTINGS_PAGE_BYTES));
  for (let page = 0; page < crcs.length; page++) crcs[page] = crc32(bytes.subarray(page * POSTINGS_PAGE_BYTES, (page + 1) * POSTINGS_PAGE_BYTES));
  return crcs;
}

function arrayType(array: TypedArray): ArrayType {
  if (array instanceof Uint8Array) return 'u8';
  if (array instanceof Uint32Array) return 'u32';
  if (array instanceof Int32Array) return 'i32';
  return 'f64';
}

function bytesOf(array: TypedArray): Buffer {
  return Buffer.from(array.buffer, array.byteOffset, array.byteLength);
}

async function writeSegmentFile(file: string, header: SegmentHeader, arrays: [string, TypedArray][]): Promise<void> {
  // Offsets depend on the header length, which depends on the offsets: lay the arrays out
  // relative to the data start, then fix the header size by padding it to a stable length.
  let relative = 0;
  const specs: ArraySpec[] = arrays.map(([name, array]) => {
    const spec = { name, type: arrayType(array), byteOffset: relative, length: array.length, crc32: crc32(bytesOf(array)) };
    relative = alignTo8(relative + array.length * ELEMENT_BYTES[spec.type]);
    return spec;
  });
  // The header holds absolute offsets, so its length depends on where the data starts: guess,
  // then grow the guess (with slack) until the encoded header fits before the data.
  let dataStart = 0;
  let headerBytes: Buffer;
  for (;;) {
    header.arrays = specs.map((s) => ({ ...s, byteOffset: s.byteOffset + dataStart }));
    headerBytes = pack(header);
    if (PREAMBLE_BYTES + headerBytes.length <= dataStart) break;
    dataStart = alignTo8(PREAMBLE_BYTES + headerBytes.length + 64);
  }
  const preamble = Buffer.alloc(PREAMBLE_BYTES);
  preamble.write(MAGIC, 0, 'latin1');
  preamble.writeUInt32LE(headerBytes.length, 8);
  preamble.writeUInt32LE(crc32(headerBytes), 12);

  const handle = await open(file, 'wx');
  try {
    await writeWhole(handle, preamble);
    await writeWhole(handle, headerBytes);
    let position = PREAMBLE_BYTES + headerBytes.length;
    for (const [index, [, array]] of arrays.entries()) {
      const offset = header.arrays[index]!.byteOffset;
      if (offset > position) await writeWhole(handle, Buffer.alloc(offset - position));
      const view = bytesOf(array);
      await writeWhole(handle, view);
      position = offset + view.length;
    }
    await handle.sync();
  } finally {
    await handle.close();
  }
}
