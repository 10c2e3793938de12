/**
 * An immutable segment opened from its file: read into a SharedArrayBuffer,
 * then typed-array views over it. The same buffer can be handed to worker
 * threads, which build their own `Segment` over it without copying. A segment
 * opened with paged postings reads everything but the postings at once and
 * each term's postings on first use (postings-pager.ts).
 */
import { closeSync, fstatSync, openSync, read } from 'node:fs';
import { open } from 'node:fs/promises';
import { promisify } from 'node:util';
import { crc32 } from 'node:zlib';
import { unpack } from 'msgpackr';
import {
  BLOCK_SIZE,
  ELEMENT_BYTES,
  FIELDS,
  FORMAT_VERSION,
  MAGIC,
  POSTINGS_PAGE_BYTES,
  PREAMBLE_BYTES,
  fieldArray,
  type ArraySpec,
  type FieldName,
  type SegmentHeader,
} from './format.js';
import { StringTable } from './string-table.js';
import { OutdatedFormatError, SegmentFormatError } from './errors.js';
import { PostingsPager, type PagedFile } from './postings-pager.js';

export interface FieldData {
  /** Documents frequency in paragraphs (what idf counts). */
  df: Uint32Array;
  /** Documents in each term's list: paragraphs for text, articles for title. */
  postingCount: Uint32Array;
  blockStart: Uint32Array;
  blockLastDoc: Uint32Array;
  blockOffset: Uint32Array;
  blockDocBits: Uint8Array;
  blockFreqBits: Uint8Array;
  blockMaxTf: Uint8Array;
  blockMinNorm: Uint8Array;
  postings: Uint32Array;
  /** One norm per document of the list's kind (paragraph or article). */
  norms: Uint8Array;
  /** Reads a term's postings on first use; null when they were read with the segment. */
  pager: PostingsPager | null;
}

/** What a worker thread needs to map a segment: its buffer and, for paged postings, the file and flags. */
export interface SegmentShare {
  buffer: SharedArrayBuffer;
  paging: PagedFile | null;
}

export const NO_VALUE = 0xffffffff;

const readAt = promisify(read);

const encoder = new TextEncoder();
/** Scratch for the UTF-8 form of a looked-up term (grown for long terms). */
let keyBuffer = new Uint8Array(256);

export class Segment {
  readonly header: SegmentHeader;
  readonly terms: StringTable;
  readonly fields: Record<FieldName, FieldData>;
  readonly paragraphArticle: Uint32Array;
  readonly articleIds: StringTable;
  readonly articleFirstParagraph: Uint32Array;
  readonly articleDate: Int32Array;
  readonly articleType: Uint32Array;
  readonly articleJournal: Uint32Array;
  readonly articleIssnOffsets: Uint32Array;
  readonly articleIssnIds: Uint32Array;
  readonly articleTypeOffsets: Uint32Array;
  readonly articleTypeIds: Uint32Array;
  readonly articleAuthorOffsets: Uint32Array;
  readonly articleAuthorIds: Uint32Array;
  readonly types: StringTable;
  readonly journals: StringTable;
  readonly journalNames: StringTable;
  readonly authors: StringTable;

  /** Holders of a segment with paged postings (see retain()); its file closes when the last one closes it. */
  private holders = 1;

  constructor(
    readonly buffer: SharedArrayBuffer,
    /** The file and flags through which the postings are paged in; null when they were read with the segment. */
    readonly paging: PagedFile | null = null,
    /** The header, when the caller has already read it out of the buffer. */
    header: SegmentHeader = readHeader(new Uint8Array(buffer)),
  ) {
    this.header = header;
    checkArraysFit(header, buffer.byteLength);
    const specs = new Map(this.header.arrays.map((spec) => [spec.name, spec]));
    const view = (name: string) => {
      const spec = specs.get(name);
      if (!spec) throw new SegmentFormatError(`segment lacks array ${name}`);
      return typedView(buffer, spec);
    };
    const table = (name: string) => new StringTable(view(`${name}.bytes`) as Uint8Array, view(`${name}.offsets`) as Uint32Array);
    this.terms = table('terms');
    const fieldData = (field: FieldName): FieldData => {
      const df = view(fieldArray(field, 'df')) as Uint32Array;
      const blockStart = view(fieldArray(field, 'blockStart')) as Uint32Array;
      const blockOffset = view(fieldArray(field, 'blockOffset')) as Uint32Array;
      const postings = view(fieldArray(field, 'postings')) as Uint32Array;
      const data: Omit<FieldData, 'pager'> = {
        df,
        postingCount: specs.has(fieldArray(field, 'postingCount')) ? (view(fieldArray(field, 'postingCount')) as Uint32Array) : df,
        blockStart,
        blockLastDoc: view(fieldArray(field, 'blockLastDoc')) as Uint32Array,
        blockOffset,
        blockDocBits: view(fieldArray(field, 'blockDocBits')) as Uint8Array,
        blockFreqBits: view(fieldArray(field, 'blockFreqBits')) as Uint8Array,
        blockMaxTf: view(fieldArray(field, 'blockMaxTf')) as Uint8Array,
        blockMinNorm: view(fieldArray(field, 'blockMinNorm')) as Uint8Array,
        postings,
        norms: view(fieldArray(field, 'norms')) as Uint8Array,
      };
      checkBlocks(field, data, this.header.terms, field === 'title' ? this.header.articles : this.header.paragraphs);
      const pageCrcs = view(fieldArray(field, 'postingsPageCrc')) as Uint32Array;
      if (pageCrcs.length !== Math.ceil(postings.byteLength / POSTINGS_PAGE_BYTES)) {
        throw new SegmentFormatError(`damaged: the ${field} postings' page checksums do not cover its pages`);
      }
      return { ...data, pager: paging && new PostingsPager(paging, paging.flags[field], postings, blockStart, blockOffset, pageCrcs) };
    };
    this.fields = Object.fromEntries(FIELDS.map((f) => [f, fieldData(f)])) as Record<FieldName, FieldData>;
    this.paragraphArticle = view('paragraph.article') as Uint32Array;
    this.articleIds = table('article.id');
    this.articleFirstParagraph = view('article.firstParagraph') as Uint32Array;
    this.articleDate = view('article.date') as Int32Array;
    this.articleType = view('article.type') as Uint32Array;
    this.articleJournal = view('article.journal') as Uint32Array;
    this.articleIssnOffsets = view('article.issnOffsets') as Uint32Array;
    this.articleIssnIds = view('article.issnIds') as Uint32Array;
    this.articleTypeOffsets = view('article.typeOffsets') as Uint32Array;
    this.articleTypeIds = view('article.typeIds') as Uint32Array;
    this.articleAuthorOffsets = view('article.authorOffsets') as Uint32Array;
    this.articleAuthorIds = view('article.authorIds') as Uint32Array;
    this.types = table('types');
    this.journals = table('journals');
    this.journalNames = table('journalNames');
    this.authors = table('authors');
  }

  /**
   * Reads a segment file whole (for merging, which reads every posting), or
   * with `pagedPostings` everything but the postings, which are then read per
   * term on first use through the file's descriptor, kept open until close().
   */
  static async load(file: string, options: { pagedPostings?: boolean } = {}): Promise<Segment> {
    const fd = openSync(file, 'r');
    try {
      const size = fstatSync(fd).size;
      const buffer = new SharedArrayBuffer(size);
      const bytes = new Uint8Array(buffer);
      const readRange = async (from: number, to: number) => {
        for (let at = from; at < to; ) {
          const { bytesRead } = await readAt(fd, bytes, at, to - at, at);
          if (bytesRead === 0) throw new SegmentFormatError(`${file} is truncated`);
          at += bytesRead;
        }
      };
      if (!options.pagedPostings) {
        await readRange(0, size);
        const segment = withFileName(file, () => verifiedArrays(new Segment(buffer), () => true));
        closeSync(fd);
        return segment;
      }
      await readRange(0, Math.min(size, PREAMBLE_BYTES));
      withFileName(file, () => checkPreamble(bytes));
      await readRange(PREAMBLE_BYTES, Math.min(size, PREAMBLE_BYTES + headerLength(bytes)));
      const header = withFileName(file, () => readHeader(bytes));
      // Every array but the postings, in file order (the gaps between arrays are a few bytes of padding).
      const postings = header.arrays.filter(isPostings).sort((x, y) => x.byteOffset - y.byteOffset);
      let from = PREAMBLE_BYTES;
      for (const spec of postings) {
        await readRange(from, Math.min(size, spec.byteOffset));
        from = spec.byteOffset + spec.length * ELEMENT_BYTES[spec.type];
      }
      await readRange(Math.min(from, size), size);
      const flags = Object.fromEntries(FIELDS.map((field) => [field, new SharedArrayBuffer(header.terms)])) as Record<FieldName, SharedArrayBuffer>;
      // The postings are verified page by page as they are paged in.
      return withFileName(file, () => verifiedArrays(new Segment(buffer, { file, fd, flags }, header), (spec) => !isPostings(spec)));
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  /** What a worker thread needs to map this segment (see `fromShare`). */
  get share(): SegmentShare {
    return { buffer: this.buffer, paging: this.paging };
  }

  static fromShare(share: SegmentShare): Segment {
    return new Segment(share.buffer, share.paging);
  }

  /**
   * Another holder of this segment (a newer index generation sharing it): a
   * segment with paged postings keeps its file open until every holder has
   * closed it, so releasing an old generation never closes what a newer one
   * still reads.
   */
  retain(): this {
    if (this.holders === 0) throw new Error('segment is closed and cannot be shared');
    this.holders++;
    return this;
  }

  /** Drops one holder; the file of paged postings is closed when the last one drops it. */
  close(): void {
    if (this.holders === 0 || --this.holders > 0) return;
    if (this.paging) closeSync(this.paging.fd);
  }

  get paragraphCount(): number {
    return this.header.paragraphs;
  }

  get articleCount(): number {
    return this.header.articles;
  }

  /**
   * Ordinal of a term in the sorted dictionary, or -1: binary search comparing
   * raw UTF-8 bytes in place (no view or buffer per probe: lookups run for
   * every clause of every query on every segment).
   */
  termOrdinal(term: string): number {
    if (term.length * 3 > keyBuffer.length) keyBuffer = new Uint8Array(term.length * 3);
    const keyLength = encoder.encodeInto(term, keyBuffer).written;
    const { bytes, offsets } = this.terms;
    let lo = 0;
    let hi = this.terms.size - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const start = offsets[mid]!;
      const length = offsets[mid + 1]! - start;
      const common = Math.min(length, keyLength);
      let cmp = 0;
      for (let i = 0; i < common && cmp === 0; i++) cmp = bytes[start + i]! - keyBuffer[i]!;
      if (cmp === 0) cmp = length - keyLength;
      if (cmp === 0) return mid;
      if (cmp < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** Journal table ids of every ISSN of an article, the primary first. */
  articleIssns(ordinal: number): number[] {
    return Array.from(this.articleIssnIds.subarray(this.articleIssnOffsets[ordinal]!, this.articleIssnOffsets[ordinal + 1]!));
  }

  /** Type table ids of every type of an article, the primary first. */
  articleTypes(ordinal: number): number[] {
    return Array.from(this.articleTypeIds.subarray(this.articleTypeOffsets[ordinal]!, this.articleTypeOffsets[ordinal + 1]!));
  }

  articleAuthors(ordinal: number): number[] {
    return Array.from(this.articleAuthorIds.subarray(this.articleAuthorOffsets[ordinal]!, this.articleAuthorOffsets[ordinal + 1]!));
  }
}

function isPostings(spec: ArraySpec): boolean {
  return spec.name.endsWith('.postings');
}

/**
 * Refuses a segment with an array (of those `verify` picks) whose bytes are not those written:
 * bytes changed in place, which no check of structure sees (postings decoding to other documents,
 * norms changing scores). Run after the structural checks, whose messages say more. About 5 GB/s.
 */
function verifiedArrays(segment: Segment, verify: (spec: ArraySpec) => boolean): Segment {
  for (const spec of segment.header.arrays) {
    if (!verify(spec)) continue;
    const bytes = new Uint8Array(segment.buffer, spec.byteOffset, spec.length * ELEMENT_BYTES[spec.type]);
    if (crc32(bytes) !== spec.crc32) throw new SegmentFormatError(`damaged: array ${spec.name} does not match its checksum`);
  }
  return segment;
}

/** Bytes of the msgpack header that follows the preamble. */
function headerLength(bytes: Uint8Array): number {
  return new DataView(bytes.buffer, bytes.byteOffset).getUint32(8, true);
}

/** CRC-32 of the msgpack header, in the preamble's last four bytes. */
function headerCrc(bytes: Uint8Array): number {
  return new DataView(bytes.buffer, bytes.byteOffset).getUint32(12, true);
}

/** Refuses a file that does not start as a segment, or is too short to hold a segment's preamble. */
function checkPreamble(bytes: Uint8Array): void {
  // Whatever of the magic the file holds is checked first: a short file of something else is no truncated segment.
  if (Buffer.from(bytes.subarray(0, MAGIC.length)).toString('latin1') !== MAGIC.slice(0, bytes.length)) {
    throw new SegmentFormatError('not a segment file (bad magic)');
  }
  if (bytes.length < PREAMBLE_BYTES) throw new SegmentFormatError(`truncated: the file has ${bytes.length} bytes, fewer than a segment's ${PREAMBLE_BYTES}-byte preamble`);
}

/** `bytes`: the file's first bytes, at least through its header when the file holds it all. */
function readHeader(bytes: Uint8Array, fileBytes = bytes.length): SegmentHeader {
  checkPreamble(bytes.subarray(0, Math.min(fileBytes, PREAMBLE_BYTES)));
  const end = PREAMBLE_BYTES + headerLength(bytes);
  if (end > fileBytes) throw new SegmentFormatError(`truncated: the file has ${fileBytes} bytes, but its header ends at byte ${end}`);
  let header: SegmentHeader;
  try {
    header = unpack(Buffer.from(bytes.slice(PREAMBLE_BYTES, end))) as SegmentHeader;
  } catch {
    // The decoder's message quotes what it decoded (a JSON dump of the header): of no use to the operator.
    throw new SegmentFormatError('damaged: its header cannot be decoded');
  }
  checkFormatVersion(header);
  // After the version: older formats wrote no checksum there.
  if (crc32(bytes.subarray(PREAMBLE_BYTES, end)) !== headerCrc(bytes)) throw new SegmentFormatError('damaged: its header does not match its checksum');
  return header;
}

/**
 * Refuses a header whose arrays do not lie inside the file: a truncated
 * segment, which would otherwise fail later with a RangeError naming nothing.
 */
function checkArraysFit(header: SegmentHeader, fileBytes: number): void {
  for (const spec of header.arrays) {
    const end = spec.byteOffset + spec.length * ELEMENT_BYTES[spec.type];
    if (end > fileBytes) throw new SegmentFormatError(`array ${spec.name} ends at byte ${end} but the file has ${fileBytes} bytes (truncated?)`);
    if (spec.byteOffset % ELEMENT_BYTES[spec.type] !== 0) throw new SegmentFormatError(`array ${spec.name} is misaligned (damaged header?)`);
  }
}

/**
 * Refuses block metadata that cannot describe the field's postings: block
 * ranges out of order or past the blocks, offsets past the postings, bit
 * widths over 32, a block's last document out of order or past the field's
 * documents, a posting count its blocks cannot hold. Bytes overwritten in
 * place keep the file's size, so only this sees them; loaded, they made
 * queries fail (a read past the file, naming nothing) or decode garbage.
 * Linear in terms and blocks: about 13 ms more on a load of a 205,000-paragraph
 * segment of 407,000 terms (23 against 36 ms, medians of a loaded machine).
 */
function checkBlocks(field: FieldName, data: Omit<FieldData, 'pager'>, terms: number, documents: number): void {
  const { blockStart, blockOffset, blockLastDoc, blockDocBits, blockFreqBits, postingCount, postings } = data;
  const blocks = blockLastDoc.length;
  const damaged = (what: string) => new SegmentFormatError(`damaged: the ${field} postings' ${what}`);
  if (blockStart.length !== terms + 1 || blockStart[0] !== 0 || blockStart[terms] !== blocks) throw damaged('block ranges do not cover the blocks');
  if (blockOffset.length !== blocks + 1 || blockDocBits.length !== blocks || blockFreqBits.length !== blocks) throw damaged('block arrays differ in length');
  if (blockOffset[blocks]! > postings.length) throw damaged('last block ends past the postings');
  for (let block = 0; block < blocks; block++) {
    if (blockOffset[block]! > blockOffset[block + 1]!) throw damaged(`block ${block} starts after the next one`);
    if (blockDocBits[block]! > 32 || blockFreqBits[block]! > 32) throw damaged(`block ${block} has a bit width over 32`);
  }
  for (let term = 0; term < terms; term++) {
    const first = blockStart[term]!;
    const end = blockStart[term + 1]!;
    if (end < first) throw damaged(`blocks of term ${term} end before they start`);
    const count = postingCount[term]!;
    if (count > (end - first) * BLOCK_SIZE || (end > first && count <= (end - first - 1) * BLOCK_SIZE)) throw damaged(`posting count of term ${term} does not fit its blocks`);
    for (let block = first; block < end; block++) {
      if (blockLastDoc[block]! >= documents || (block > first && blockLastDoc[block]! <= blockLastDoc[block - 1]!)) {
        throw damaged(`block ${block} ends at a document out of order or past the last`);
      }
    }
  }
}

/** Runs `make`, naming the file in a format error. */
function withFileName<T>(file: string, make: () => T): T {
  try {
    return make();
  } catch (error) {
    if (!(error instanceof SegmentFormatError)) throw error;
    throw error instanceof OutdatedFormatError ? new OutdatedFormatError(`${file}: ${error.message}`) : new SegmentFormatError(`${file}: ${error.message}`);
  }
}

/** Refuses segments written in another format: their postings cannot be read. */
function checkFormatVersion(header: SegmentHeader): void {
  if (header.formatVersion !== FORMAT_VERSION) {
    throw new OutdatedFormatError(
      `segment format ${header.formatVersion} is not supported by this version (it reads format ${FORMAT_VERSION}): ` +
        're-ingest the corpus into a new index directory',
    );
  }
}

function typedView(buffer: SharedArrayBuffer, spec: ArraySpec): Uint8Array | Uint32Array | Int32Array | Float64Array {
  switch (spec.type) {
    case 'u8':
      return new Uint8Array(buffer, spec.byteOffset, spec.length);
    case 'u32':
      return new Uint32Array(buffer, spec.byteOffset, spec.length);
    case 'i32':
      return new Int32Array(buffer, spec.byteOffset, spec.length);
    case 'f64':
      return new Float64Array(buffer, spec.byteOffset, spec.length);
  }
}

/**
 * Reads only the article ids of a segment file (for ingestion's replace-by-id), not the whole file, with its
 * count of paragraphs: a writer checks the manifest's counts against the segment's, as a server loading it does.
 */
export async function readSegmentArticleIds(file: string): Promise<{ ids: string[]; paragraphs: number }> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const preamble = Buffer.alloc(Math.min(size, PREAMBLE_BYTES));
    await handle.read(preamble, 0, preamble.length, 0);
    withFileName(file, () => checkPreamble(preamble));
    const start = Buffer.alloc(Math.min(size, PREAMBLE_BYTES + preamble.readUInt32LE(8)));
    await handle.read(start, 0, start.length, 0);
    // The checks loading it for serving makes, so that ingestion does not build on a segment no server can load.
    const header = withFileName(file, () => {
      const read = readHeader(start, size);
      checkArraysFit(read, size);
      return read;
    });
    const readArray = async (name: string) => {
      const spec = header.arrays.find((a) => a.name === name);
      if (!spec) throw new SegmentFormatError(`${file} lacks array ${name}`);
      const bytes = Buffer.alloc(spec.length * (spec.type === 'u8' ? 1 : 4));
      await handle.read(bytes, 0, bytes.length, spec.byteOffset);
      if (crc32(bytes) !== spec.crc32) throw new SegmentFormatError(`${file}: damaged: array ${name} does not match its checksum`);
      return bytes;
    };
    const idBytes = await readArray('article.id.bytes');
    const offsetBytes = await readArray('article.id.offsets');
    const offsets = new Uint32Array(offsetBytes.buffer, offsetBytes.byteOffset, offsetBytes.length / 4);
    const ids: string[] = [];
    for (let i = 0; i + 1 < offsets.length; i++) ids.push(idBytes.toString('utf8', offsets[i], offsets[i + 1]));
    return { ids, paragraphs: header.paragraphs };
  } finally {
    await handle.close();
  }
}
