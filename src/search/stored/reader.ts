/**
 * A segment's stored-fields file opened for positional reads: only the offset
 * tables live in process memory; fragments are read from the file (the page
 * cache) when a response needs them. Everything structural is checked at
 * open, so a truncated or damaged file is refused at load with its name, not
 * discovered by a request later.
 */
import { closeSync, fstatSync, openSync } from 'node:fs';
import { crc32, inflateSync } from 'node:zlib';
import { readExactly } from '../positional-read.js';
import type { ArticleMetadata } from '../../corpus/model.js';
import { DictionaryDamagedError, TokenDictionary } from './dictionary.js';
import { FragmentDamagedError, articleFieldsOf, paragraphFieldsOf, type ParagraphFields } from './fragment-fields.js';
import {
  STORED_PREAMBLE_BYTES,
  StoredFormatError,
  dataStartOf,
  decodePreamble,
  tablesLayout,
  type StoredHeader,
} from './format.js';

/** Inflated chunks kept, when the file is compressed (the cache is per file). */
export const DEFAULT_CHUNK_CACHE_BYTES = 8 * 1024 * 1024;

/** Longest span read at once for a hit's article and paragraph; farther apart, they are read separately. */
const MAX_JOINT_READ = 64 * 1024;

/** Bytes read at once in file order (readInFileOrder): a merge reads every fragment, one read per fragment cost it a fifth of its time. */
const READ_AHEAD_BYTES = 1024 * 1024;

/**
 * What a worker thread needs to read an opened file (`StoredFields.fromShare`):
 * the descriptor (one per process, so valid in every thread), the checked
 * header and the tables, in shared memory rather than copied.
 */
export interface StoredShare {
  file: string;
  fd: number;
  header: StoredHeader;
  tables: Uint8Array;
  tokenTable: Uint8Array;
}

export class StoredFields {
  private fd: number;
  private readonly articleStarts: Float64Array;
  private readonly paragraphStarts: Float64Array;
  private readonly chunkOffsets: Float64Array;
  private readonly articleLengths: Uint32Array;
  private readonly paragraphLengths: Uint32Array;
  /** Dictionary compression: the coded fragments' lengths (starts are then coded positions) and the token table. */
  private readonly articleCodedLengths: Uint32Array;
  private readonly paragraphCodedLengths: Uint32Array;
  /** Each fragment's CRC-32, checked on every read of it. */
  private readonly articleChecksums: Uint32Array;
  private readonly paragraphChecksums: Uint32Array;
  private readonly dictionary: TokenDictionary | null;
  private readonly dataStart: number;
  private readonly chunkCache = new Map<number, Buffer>();
  private readonly maxCachedChunks: number;
  private scratch = Buffer.alloc(0);
  /** With readInFileOrder: file bytes read ahead, from file position `aheadStart` to `aheadEnd`. */
  private ahead: Buffer | null = null;
  private aheadStart = 0;
  private aheadEnd = 0;
  /** Snapshots holding the file open (see retain). */
  private holders = 1;
  /** A worker thread's view (fromShare): the descriptor is another thread's to close. */
  private borrowed = false;

  private constructor(
    readonly file: string,
    fd: number,
    readonly header: StoredHeader,
    private readonly tables: Uint8Array,
    private readonly tokenTable: Uint8Array,
    chunkCacheBytes: number,
  ) {
    this.fd = fd;
    const dictionary = tokenTable.length > 0 ? openDictionary(tokenTable, file) : null;
    const { articles, paragraphs } = header;
    const layout = tablesLayout(header);
    const f64 = new Float64Array(tables.buffer, tables.byteOffset, layout.f64Entries);
    const u32 = new Uint32Array(tables.buffer, tables.byteOffset + 8 * layout.f64Entries, layout.u32Entries);
    this.articleStarts = f64.subarray(0, articles);
    this.paragraphStarts = f64.subarray(articles, articles + paragraphs);
    this.chunkOffsets = f64.subarray(articles + paragraphs);
    this.articleLengths = u32.subarray(0, articles);
    this.paragraphLengths = u32.subarray(articles, articles + paragraphs);
    // Uncoded, the bytes to read are the fragment's own.
    const coded = dictionary ? u32.subarray(articles + paragraphs) : u32;
    this.articleCodedLengths = coded.subarray(0, articles);
    this.paragraphCodedLengths = coded.subarray(articles, articles + paragraphs);
    const checksums = u32.subarray(layout.u32Entries - articles - paragraphs);
    this.articleChecksums = checksums.subarray(0, articles);
    this.paragraphChecksums = checksums.subarray(articles);
    this.dictionary = dictionary;
    this.dataStart = dataStartOf(header);
    this.maxCachedChunks = Math.max(1, Math.floor(chunkCacheBytes / Math.max(1, header.chunkSize)));
  }

  static open(file: string, options: { chunkCacheBytes?: number } = {}): StoredFields {
    const fd = openSync(file, 'r');
    try {
      const size = fstatSync(fd).size;
      const preamble = Buffer.alloc(Math.min(size, STORED_PREAMBLE_BYTES));
      readFully(fd, file, preamble, 0, preamble.length, 0);
      const header = decodePreamble(preamble, file);
      const { bytes } = tablesLayout(header);
      const { dictionaryBytes } = header;
      if ((dictionaryBytes > 0) !== (header.compression === 'dictionary')) {
        throw new StoredFormatError(`${file} is damaged (token table size ${dictionaryBytes} for compression ${header.compression})`);
      }
      if (STORED_PREAMBLE_BYTES + bytes + dictionaryBytes > size) throw new StoredFormatError(`${file} is truncated (its tables end past the file)`);
      // In shared memory, so the search pool's threads read them without a copy (see share).
      const tables = Buffer.from(new SharedArrayBuffer(bytes));
      readFully(fd, file, tables, 0, bytes, STORED_PREAMBLE_BYTES);
      // An empty one stays an ordinary buffer: zlib.crc32 of an empty shared one returns 0, not the running value (Node 20).
      const tokenTable = dictionaryBytes > 0 ? Buffer.from(new SharedArrayBuffer(dictionaryBytes)) : Buffer.alloc(0);
      readFully(fd, file, tokenTable, 0, dictionaryBytes, STORED_PREAMBLE_BYTES + bytes);
      if (crc32(tokenTable, crc32(tables)) !== header.tablesCrc) throw new StoredFormatError(`${file} is damaged (table checksum mismatch)`);
      const stored = new StoredFields(file, fd, header, tables, tokenTable, options.chunkCacheBytes ?? DEFAULT_CHUNK_CACHE_BYTES);
      stored.checkLayout(size);
      return stored;
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  /** The file as a worker thread opens it again (fromShare). */
  get share(): StoredShare {
    return { file: this.file, fd: this.fd, header: this.header, tables: this.tables, tokenTable: this.tokenTable };
  }

  /**
   * A worker thread's view of a file another thread opened and checked. It
   * reads through the same descriptor and never closes it: the opening
   * thread's holders decide that, and the pool using the view is closed first.
   */
  static fromShare(share: StoredShare, options: { chunkCacheBytes?: number } = {}): StoredFields {
    const view = new StoredFields(share.file, share.fd, share.header, share.tables, share.tokenTable, options.chunkCacheBytes ?? DEFAULT_CHUNK_CACHE_BYTES);
    view.borrowed = true;
    return view;
  }

  /**
   * Every fragment inside the data, the fragments' bytes adding up to it, and
   * the file as long as its tables say. The data addressed by the starts is the
   * logical stream, or the coded one with the dictionary compression.
   */
  private checkLayout(fileSize: number): void {
    const { header, file } = this;
    const addressed = header.compression === 'dictionary' ? fileSize - this.dataStart : header.dataLength;
    let logicalTotal = 0;
    let addressedTotal = 0;
    const kinds = [
      [this.articleStarts, this.articleLengths, this.articleCodedLengths],
      [this.paragraphStarts, this.paragraphLengths, this.paragraphCodedLengths],
    ] as const;
    for (const [starts, lengths, codedLengths] of kinds) {
      for (let i = 0; i < starts.length; i++) {
        if (!(starts[i]! >= 0 && starts[i]! + codedLengths[i]! <= addressed)) throw new StoredFormatError(`${file} is damaged (fragment ${i} lies outside the data)`);
        logicalTotal += lengths[i]!;
        addressedTotal += codedLengths[i]!;
      }
    }
    if (logicalTotal !== header.dataLength) throw new StoredFormatError(`${file} is damaged (fragments hold ${logicalTotal} of ${header.dataLength} bytes)`);
    if (addressedTotal !== addressed) throw new StoredFormatError(`${file} is damaged or truncated (fragments take ${addressedTotal} of ${addressed} data bytes)`);
    if (header.compression !== 'deflate') {
      if (this.dataStart + addressed !== fileSize) {
        throw new StoredFormatError(`${file} is ${fileSize} bytes, expected ${this.dataStart + addressed} (truncated or damaged)`);
      }
      return;
    }
    const { chunkOffsets } = this;
    if (header.chunkSize === 0 || header.chunks !== Math.ceil(header.dataLength / header.chunkSize) || chunkOffsets[0] !== this.dataStart) {
      throw new StoredFormatError(`${file} is damaged (chunk table does not match the data length)`);
    }
    for (let c = 1; c < chunkOffsets.length; c++) {
      if (!(chunkOffsets[c]! > chunkOffsets[c - 1]!)) throw new StoredFormatError(`${file} is damaged (chunk offsets decrease at ${c})`);
    }
    if (chunkOffsets[header.chunks] !== fileSize) {
      throw new StoredFormatError(`${file} is ${fileSize} bytes, expected ${chunkOffsets[header.chunks]} (truncated or damaged)`);
    }
  }

  get articleCount(): number {
    return this.header.articles;
  }

  get paragraphCount(): number {
    return this.header.paragraphs;
  }

  articleLength(article: number): number {
    return this.articleLengths[article]!;
  }

  paragraphLength(paragraph: number): number {
    return this.paragraphLengths[paragraph]!;
  }

  /**
   * From now on, serves the fragments' bytes from large reads ahead instead
   * of one read per fragment: for a caller that goes through the file in
   * order (a merge copies every article, then its paragraphs, as they are
   * stored). Any order still reads the right bytes, only not faster; a
   * fragment longer than `bytes` is read on its own.
   */
  readInFileOrder(bytes = READ_AHEAD_BYTES): void {
    this.ahead = Buffer.allocUnsafe(bytes);
    this.aheadStart = this.aheadEnd = 0;
  }

  /** Copies an article's fragment into `target` at `at`; returns the position after it. */
  copyArticle(article: number, target: Uint8Array, at: number): number {
    this.copyFragment(this.articleStarts[article]!, this.articleCodedLengths[article]!, this.articleLengths[article]!, target, at);
    return this.checkArticle(article, target, at);
  }

  copyParagraph(paragraph: number, target: Uint8Array, at: number): number {
    this.copyFragment(this.paragraphStarts[paragraph]!, this.paragraphCodedLengths[paragraph]!, this.paragraphLengths[paragraph]!, target, at);
    return this.checkParagraph(paragraph, target, at);
  }

  /** Checks the article's fragment just copied to `target` at `at` against its checksum; returns the position after it. */
  private checkArticle(article: number, target: Uint8Array, at: number): number {
    return this.checkFragment(this.articleChecksums[article]!, target, at, this.articleLengths[article]!, `article ${article}`);
  }

  private checkParagraph(paragraph: number, target: Uint8Array, at: number): number {
    return this.checkFragment(this.paragraphChecksums[paragraph]!, target, at, this.paragraphLengths[paragraph]!, `paragraph ${paragraph}`);
  }

  /**
   * Bytes changed on disk since they were written (which no check of structure sees: a
   * plain fragment is copied as it is) are damage, found before a response or a merge uses them.
   */
  private checkFragment(checksum: number, target: Uint8Array, at: number, length: number, which: string): number {
    if (crc32(target.subarray(at, at + length)) !== checksum) throw this.damaged(`is damaged (the fragment of ${which} does not match its checksum)`);
    return at + length;
  }

  /**
   * Copies an article's fragment to `articleAt` and one of its paragraphs' to
   * `paragraphAt`. The paragraph follows its article in the file, so when they
   * are close this is one read instead of two (reads, not bytes, are the cost).
   */
  copyArticleAndParagraph(article: number, paragraph: number, target: Buffer, articleAt: number, paragraphAt: number): void {
    const articleStart = this.articleStarts[article]!;
    const paragraphStart = this.paragraphStarts[paragraph]!;
    const articleStored = this.articleCodedLengths[article]!;
    const span = paragraphStart + this.paragraphCodedLengths[paragraph]! - articleStart;
    if (this.header.compression === 'deflate' || paragraphStart < articleStart || span > MAX_JOINT_READ) {
      this.copyArticle(article, target, articleAt);
      this.copyParagraph(paragraph, target, paragraphAt);
      return;
    }
    const scratch = this.scratchFor(span);
    this.readData(scratch, 0, span, this.dataStart + articleStart);
    this.place(scratch, 0, articleStored, target, articleAt, this.articleLengths[article]!);
    this.place(scratch, paragraphStart - articleStart, this.paragraphCodedLengths[paragraph]!, target, paragraphAt, this.paragraphLengths[paragraph]!);
    this.checkArticle(article, target, articleAt);
    this.checkParagraph(paragraph, target, paragraphAt);
  }

  /** An article's fragment in a buffer of its own. */
  articleBytes(article: number): Buffer {
    const bytes = Buffer.allocUnsafe(this.articleLength(article));
    this.copyArticle(article, bytes, 0);
    return bytes;
  }

  paragraphBytes(paragraph: number): Buffer {
    const bytes = Buffer.allocUnsafe(this.paragraphLength(paragraph));
    this.copyParagraph(paragraph, bytes, 0);
    return bytes;
  }

  articleJson(article: number): string {
    return this.articleBytes(article).toString('utf8');
  }

  paragraphJson(paragraph: number): string {
    return this.paragraphBytes(paragraph).toString('utf8');
  }

  /** An article's fields, parsed out of its fragment (`fragment`: its JSON, when the caller has read it already). */
  articleFields(article: number, fragment = this.articleJson(article)): ArticleMetadata {
    return this.parsed(() => articleFieldsOf(fragment), `article ${article}`);
  }

  paragraphFields(paragraph: number): ParagraphFields {
    return this.parsed(() => paragraphFieldsOf(this.paragraphJson(paragraph)), `paragraph ${paragraph}`);
  }

  /** A paragraph's text, parsed back out of its fragment (for the reranker and the generator). */
  paragraphText(paragraph: number): string {
    return this.paragraphFields(paragraph).paragraph;
  }

  /** A fragment's fields; one that is not what was written changed on disk since the file was opened (named, as any damage found by a read). */
  private parsed<T>(parse: () => T, which: string): T {
    try {
      return parse();
    } catch (error) {
      throw error instanceof FragmentDamagedError ? this.damaged(`is damaged (the fragment of ${which} ${error.message})`) : error;
    }
  }

  /** A fragment at `start` of the addressed data, `stored` bytes there, `length` bytes once copied to `target` at `at`. */
  private copyFragment(start: number, stored: number, length: number, target: Uint8Array, at: number): void {
    if (this.header.compression === 'deflate') {
      this.copyInflated(start, length, target, at);
      return;
    }
    const position = this.dataStart + start;
    if (this.ahead && stored <= this.ahead.length) {
      this.place(this.ahead, this.readAhead(position, stored), stored, target, at, length);
      return;
    }
    if (!this.dictionary) {
      this.readData(target, at, length, position);
      return;
    }
    const scratch = this.scratchFor(stored);
    this.readData(scratch, 0, stored, position);
    this.place(scratch, 0, stored, target, at, length);
  }

  /** Where `bytes` (at most the read-ahead buffer's size) at file `position` are in that buffer, reading on from there if they are not yet. */
  private readAhead(position: number, bytes: number): number {
    const ahead = this.ahead!;
    if (position < this.aheadStart || position + bytes > this.aheadEnd) {
      // Up to a full buffer: the last read of the file ends short, where the file does.
      const ended = readExactly(this.fd, ahead, 0, ahead.length, position);
      this.aheadStart = position;
      this.aheadEnd = ended < 0 ? position + ahead.length : ended;
      if (this.aheadEnd < position + bytes) throw this.endedEarly(this.aheadEnd);
    }
    return position - this.aheadStart;
  }

  /** Bytes read from the file (`stored` of them at `from` in `source`) put in place: decoded, or copied as they are. */
  private place(source: Buffer, from: number, stored: number, target: Uint8Array, at: number, length: number): void {
    if (!this.dictionary) {
      source.copy(target, at, from, from + stored);
      return;
    }
    try {
      this.dictionary.decode(source, from, from + stored, target, at, length);
    } catch (error) {
      throw error instanceof DictionaryDamagedError ? this.damaged(`is damaged (${error.message})`) : error;
    }
  }

  /** Reads fragment data, which the checks at open say is there: a read that ends early met a file cut short since. */
  private readData(target: Uint8Array, at: number, length: number, position: number): void {
    const ended = readExactly(this.fd, target, at, length, position);
    if (ended >= 0) throw this.endedEarly(ended);
  }

  private endedEarly(at: number): StoredFormatError {
    return this.damaged(`ended early: a read at ${at} found no data (file truncated after load?)`);
  }

  /** Fragment data found damaged after the file was checked at open: named for the server's answer and log (see damagedFileOf). */
  private damaged(what: string): StoredFormatError {
    return new StoredFormatError(`${this.file} ${what}`, { damagedFile: this.file });
  }

  /** A buffer for reading `bytes`: the reused one, or for the rare longer read, one of its own. */
  private scratchFor(bytes: number): Buffer {
    if (bytes > MAX_JOINT_READ) return Buffer.allocUnsafe(bytes);
    if (this.scratch.length === 0) this.scratch = Buffer.allocUnsafe(MAX_JOINT_READ);
    return this.scratch;
  }

  private copyInflated(start: number, length: number, target: Uint8Array, at: number): void {
    const end = start + length;
    const size = this.header.chunkSize;
    for (let c = Math.floor(start / size); c * size < end; c++) {
      const chunk = this.chunk(c);
      const from = Math.max(start, c * size) - c * size;
      const to = Math.min(end, (c + 1) * size) - c * size;
      at += chunk.copy(target, at, from, to);
    }
  }

  /** An inflated chunk, through a small LRU cache (Map order is recency order). */
  private chunk(c: number): Buffer {
    const cached = this.chunkCache.get(c);
    if (cached) {
      this.chunkCache.delete(c);
      this.chunkCache.set(c, cached);
      return cached;
    }
    const position = this.chunkOffsets[c]!;
    const compressed = Buffer.allocUnsafe(this.chunkOffsets[c + 1]! - position);
    this.readData(compressed, 0, compressed.length, position);
    let chunk: Buffer;
    try {
      chunk = inflateSync(compressed);
    } catch (error) {
      throw this.damaged(`chunk ${c} is damaged (${(error as Error).message})`);
    }
    const expected = Math.min(this.header.chunkSize, this.header.dataLength - c * this.header.chunkSize);
    if (chunk.length !== expected) throw this.damaged(`chunk ${c} inflates to ${chunk.length} bytes, expected ${expected}`);
    if (this.chunkCache.size >= this.maxCachedChunks) this.chunkCache.delete(this.chunkCache.keys().next().value!);
    this.chunkCache.set(c, chunk);
    return chunk;
  }

  /**
   * Another holder of this file (a newer index generation sharing the
   * segment): the file stays open until every holder has closed it, so
   * releasing an old generation never closes what a newer one still reads.
   */
  retain(): this {
    if (this.fd < 0 || this.borrowed) throw new Error(`${this.file} is closed or a worker's view, and cannot be shared`);
    this.holders++;
    return this;
  }

  /** Drops one holder; the file is closed when the last one drops it. */
  close(): void {
    if (this.borrowed || (this.holders > 0 && --this.holders > 0)) return;
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
    this.chunkCache.clear();
  }
}

/** Reads what opening the file needs: a read that ends early is a file shorter than its size said. */
function readFully(fd: number, file: string, target: Uint8Array, at: number, length: number, position: number): void {
  const ended = readExactly(fd, target, at, length, position);
  if (ended >= 0) throw new StoredFormatError(`${file} ended early: a read at ${ended} found no data (truncated while it was opened?)`);
}

function openDictionary(tokenTable: Uint8Array, file: string): TokenDictionary {
  try {
    return TokenDictionary.deserialize(tokenTable);
  } catch (error) {
    throw error instanceof DictionaryDamagedError ? new StoredFormatError(`${file} is damaged (${error.message})`) : error;
  }
}
