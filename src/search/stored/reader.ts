/**
 * A segment's stored-fields file opened for positional reads: only the offset
 * tables live in process memory; fragments are read from the file (the page
 * cache) when a response needs them. Everything structural is checked at
 * open, so a truncated or damaged file is refused at load with its name, not
 * discovered by a request later.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { crc32, inflateSync } from 'node:zlib';
import {
  STORED_PREAMBLE_BYTES,
  StoredFormatError,
  decodePreamble,
  tablesLayout,
  type StoredHeader,
} from './format.js';

/** Inflated chunks kept, when the file is compressed (the cache is per file). */
export const DEFAULT_CHUNK_CACHE_BYTES = 8 * 1024 * 1024;

/** Longest span read at once for a hit's article and paragraph; farther apart, they are read separately. */
const MAX_JOINT_READ = 64 * 1024;

export class StoredFields {
  private fd: number;
  private readonly articleStarts: Float64Array;
  private readonly paragraphStarts: Float64Array;
  private readonly chunkOffsets: Float64Array;
  private readonly articleLengths: Uint32Array;
  private readonly paragraphLengths: Uint32Array;
  private readonly dataStart: number;
  private readonly chunkCache = new Map<number, Buffer>();
  private readonly maxCachedChunks: number;
  private scratch = Buffer.alloc(0);
  /** Snapshots holding the file open (see share). */
  private holders = 1;

  private constructor(
    readonly file: string,
    fd: number,
    readonly header: StoredHeader,
    tables: Buffer,
    chunkCacheBytes: number,
  ) {
    this.fd = fd;
    const { articles, paragraphs } = header;
    const layout = tablesLayout(header);
    const f64 = new Float64Array(tables.buffer, tables.byteOffset, layout.f64Entries);
    const u32 = new Uint32Array(tables.buffer, tables.byteOffset + 8 * layout.f64Entries, layout.u32Entries);
    this.articleStarts = f64.subarray(0, articles);
    this.paragraphStarts = f64.subarray(articles, articles + paragraphs);
    this.chunkOffsets = f64.subarray(articles + paragraphs);
    this.articleLengths = u32.subarray(0, articles);
    this.paragraphLengths = u32.subarray(articles);
    this.dataStart = STORED_PREAMBLE_BYTES + layout.bytes;
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
      if (STORED_PREAMBLE_BYTES + bytes > size) throw new StoredFormatError(`${file} is truncated (its tables end past the file)`);
      const tables = Buffer.alloc(bytes);
      readFully(fd, file, tables, 0, bytes, STORED_PREAMBLE_BYTES);
      if (crc32(tables) !== header.tablesCrc) throw new StoredFormatError(`${file} is damaged (table checksum mismatch)`);
      const stored = new StoredFields(file, fd, header, tables, options.chunkCacheBytes ?? DEFAULT_CHUNK_CACHE_BYTES);
      stored.checkLayout(size);
      return stored;
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  /** Every fragment inside the data, and the fragments' bytes adding up to it; the file as long as its tables say. */
  private checkLayout(fileSize: number): void {
    const { header, file } = this;
    let total = 0;
    for (const [starts, lengths] of [[this.articleStarts, this.articleLengths], [this.paragraphStarts, this.paragraphLengths]] as const) {
      for (let i = 0; i < starts.length; i++) {
        if (!(starts[i]! >= 0 && starts[i]! + lengths[i]! <= header.dataLength)) throw new StoredFormatError(`${file} is damaged (fragment ${i} lies outside the data)`);
        total += lengths[i]!;
      }
    }
    if (total !== header.dataLength) throw new StoredFormatError(`${file} is damaged (fragments hold ${total} of ${header.dataLength} bytes)`);
    if (header.compression === 'none') {
      if (this.dataStart + header.dataLength !== fileSize) {
        throw new StoredFormatError(`${file} is ${fileSize} bytes, expected ${this.dataStart + header.dataLength} (truncated or damaged)`);
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

  /** Copies an article's fragment into `target` at `at`; returns the position after it. */
  copyArticle(article: number, target: Buffer, at: number): number {
    return this.copyRange(this.articleStarts[article]!, this.articleLengths[article]!, target, at);
  }

  copyParagraph(paragraph: number, target: Buffer, at: number): number {
    return this.copyRange(this.paragraphStarts[paragraph]!, this.paragraphLengths[paragraph]!, target, at);
  }

  /**
   * Copies an article's fragment to `articleAt` and one of its paragraphs' to
   * `paragraphAt`. The paragraph follows its article in the file, so when they
   * are close this is one read instead of two (reads, not bytes, are the cost).
   */
  copyArticleAndParagraph(article: number, paragraph: number, target: Buffer, articleAt: number, paragraphAt: number): void {
    const articleStart = this.articleStarts[article]!;
    const paragraphStart = this.paragraphStarts[paragraph]!;
    const articleLength = this.articleLengths[article]!;
    const paragraphLength = this.paragraphLengths[paragraph]!;
    const span = paragraphStart + paragraphLength - articleStart;
    if (this.header.compression !== 'none' || paragraphStart < articleStart || span > MAX_JOINT_READ) {
      this.copyArticle(article, target, articleAt);
      this.copyParagraph(paragraph, target, paragraphAt);
      return;
    }
    if (this.scratch.length < span) this.scratch = Buffer.allocUnsafe(MAX_JOINT_READ);
    readFully(this.fd, this.file, this.scratch, 0, span, this.dataStart + articleStart);
    this.scratch.copy(target, articleAt, 0, articleLength);
    this.scratch.copy(target, paragraphAt, paragraphStart - articleStart, span);
  }

  articleJson(article: number): string {
    const bytes = Buffer.allocUnsafe(this.articleLength(article));
    this.copyArticle(article, bytes, 0);
    return bytes.toString('utf8');
  }

  paragraphJson(paragraph: number): string {
    const bytes = Buffer.allocUnsafe(this.paragraphLength(paragraph));
    this.copyParagraph(paragraph, bytes, 0);
    return bytes.toString('utf8');
  }

  /** A paragraph's text, parsed back out of its fragment (for the reranker and the generator). */
  paragraphText(paragraph: number): string {
    return (JSON.parse(`{${this.paragraphJson(paragraph)}}`) as { paragraph: string }).paragraph;
  }

  private copyRange(start: number, length: number, target: Buffer, at: number): number {
    const end = start + length;
    if (this.header.compression === 'none') {
      readFully(this.fd, this.file, target, at, length, this.dataStart + start);
      return at + length;
    }
    const size = this.header.chunkSize;
    for (let c = Math.floor(start / size); c * size < end; c++) {
      const chunk = this.chunk(c);
      const from = Math.max(start, c * size) - c * size;
      const to = Math.min(end, (c + 1) * size) - c * size;
      at += chunk.copy(target, at, from, to);
    }
    return at;
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
    readFully(this.fd, this.file, compressed, 0, compressed.length, position);
    let chunk: Buffer;
    try {
      chunk = inflateSync(compressed);
    } catch (error) {
      throw new StoredFormatError(`${this.file}: chunk ${c} is damaged (${(error as Error).message})`);
    }
    const expected = Math.min(this.header.chunkSize, this.header.dataLength - c * this.header.chunkSize);
    if (chunk.length !== expected) throw new StoredFormatError(`${this.file}: chunk ${c} inflates to ${chunk.length} bytes, expected ${expected}`);
    if (this.chunkCache.size >= this.maxCachedChunks) this.chunkCache.delete(this.chunkCache.keys().next().value!);
    this.chunkCache.set(c, chunk);
    return chunk;
  }

  /**
   * Another holder of this file (a newer index generation sharing the
   * segment): the file stays open until every holder has closed it, so
   * releasing an old generation never closes what a newer one still reads.
   */
  share(): this {
    if (this.fd < 0) throw new Error(`${this.file} is closed and cannot be shared`);
    this.holders++;
    return this;
  }

  /** Drops one holder; the file is closed when the last one drops it. */
  close(): void {
    if (this.holders > 0 && --this.holders > 0) return;
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
    this.chunkCache.clear();
  }
}

function readFully(fd: number, file: string, target: Uint8Array, at: number, length: number, position: number): void {
  let done = 0;
  while (done < length) {
    const read = readSync(fd, target, at + done, length - done, position + done);
    if (read === 0) throw new StoredFormatError(`${file} ended early: a read at ${position + done} found no data (file truncated after load?)`);
    done += read;
  }
}
