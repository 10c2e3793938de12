/**
 * Reads a field's postings from the segment file on the first use of each
 * term, as the pages of a memory map would come in (Node cannot map a file).
 * Opening a segment then reads its dictionary, block metadata, norms and
 * columns; the postings, most of its bytes, enter memory only for the terms
 * queries ask for. The segment's SharedArrayBuffer is allocated whole, but
 * the operating system commits a page only when it is first written, so the
 * postings of terms never asked for take no memory.
 *
 * Every thread mapping the segment shares the file descriptor (descriptors
 * belong to the process) and one "paged in" flag per term, so a term read by
 * one worker is not read again by another. A reader trusts a term's bytes
 * only after its flag is set, and the flag is set after the read (Atomics
 * order the two). Two threads paging the same term in at once both write the
 * same bytes from the same immutable file, so neither can see anything else.
 *
 * A term's bytes are checked before they are trusted: the pages of
 * POSTINGS_PAGE_BYTES it lies in are read whole into scratch memory, each is
 * checked against its CRC-32, and only then is the term's range copied into
 * the shared buffer. A page that does not match (changed on disk since the
 * segment was written) is an error naming the file, and the term stays unread.
 */
import { crc32 } from 'node:zlib';
import { readExactly } from '../positional-read.js';
import { SegmentFormatError } from './errors.js';
import { POSTINGS_PAGE_BYTES, type FieldName } from './format.js';

/** A segment's file and paging flags, as every thread mapping the segment shares them. */
export interface PagedFile {
  /** The file's path, named when a read finds it cut short. */
  file: string;
  fd: number;
  /** Per field, one byte per term: 1 once its postings are in the segment's buffer. */
  flags: Record<FieldName, SharedArrayBuffer>;
}

export class PostingsPager {
  private readonly file: string;
  private readonly fd: number;
  private readonly paged: Uint8Array;
  private readonly bytes: Uint8Array;
  /** The pages a term lies in, read before they are checked, for the terms of two pages at most (most of them). */
  private readonly scratch = new Uint8Array(2 * POSTINGS_PAGE_BYTES);

  constructor(
    { file, fd }: Pick<PagedFile, 'file' | 'fd'>,
    flags: SharedArrayBuffer,
    /** The field's postings array (a view over the segment's buffer, at the same offset as in the file). */
    postings: Uint32Array,
    private readonly blockStart: Uint32Array,
    private readonly blockOffset: Uint32Array,
    /** CRC-32 of each POSTINGS_PAGE_BYTES of the postings. */
    private readonly pageCrcs: Uint32Array,
  ) {
    this.file = file;
    this.fd = fd;
    this.paged = new Uint8Array(flags);
    this.bytes = new Uint8Array(postings.buffer, postings.byteOffset, postings.byteLength);
  }

  /** Makes sure the term's postings are in memory (a no-op once they are). */
  pageIn(termOrdinal: number): void {
    if (Atomics.load(this.paged, termOrdinal) === 1) return;
    const firstBlock = this.blockStart[termOrdinal]!;
    const endBlock = this.blockStart[termOrdinal + 1]!;
    const from = firstBlock < this.blockOffset.length ? this.blockOffset[firstBlock]! * 4 : this.bytes.length;
    const to = endBlock < this.blockOffset.length ? this.blockOffset[endBlock]! * 4 : this.bytes.length;
    if (to > from) this.readChecked(from, to);
    Atomics.store(this.paged, termOrdinal, 1);
  }

  /** Puts the postings bytes [from, to) into the buffer once the pages holding them match their checksums. */
  private readChecked(from: number, to: number): void {
    const firstPage = Math.floor(from / POSTINGS_PAGE_BYTES);
    const pagesFrom = firstPage * POSTINGS_PAGE_BYTES;
    const pagesBytes = Math.min(this.bytes.length, Math.ceil(to / POSTINGS_PAGE_BYTES) * POSTINGS_PAGE_BYTES) - pagesFrom;
    // A longer term (a common word's, megabytes at 1M paragraphs) is read into memory of its own, let go once copied:
    // kept, it would stay for every segment, field and thread.
    const scratch = pagesBytes <= this.scratch.length ? this.scratch : new Uint8Array(pagesBytes);
    const ended = readExactly(this.fd, scratch, 0, pagesBytes, this.bytes.byteOffset + pagesFrom);
    if (ended >= 0) {
      throw new SegmentFormatError(`segment file ${this.file} ended at byte ${ended}: truncated after it was opened`, { damagedFile: this.file });
    }
    for (let at = 0; at < pagesBytes; at += POSTINGS_PAGE_BYTES) {
      const page = firstPage + at / POSTINGS_PAGE_BYTES;
      if (crc32(scratch.subarray(at, Math.min(at + POSTINGS_PAGE_BYTES, pagesBytes))) !== this.pageCrcs[page]) {
        throw new SegmentFormatError(`segment file ${this.file} is damaged: postings page ${page} does not match its checksum (changed on disk?)`, { damagedFile: this.file });
      }
    }
    this.bytes.set(scratch.subarray(from - pagesFrom, to - pagesFrom), from);
  }
}
