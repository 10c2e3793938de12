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
  tablesBytes,
  type StoredHeader,
} from './format.js';

/** Inflated chunks kept, when the file is compressed (the cache is per file). */
export const DEFAULT_CHUNK_CACHE_BYTES = 8 * 1024 * 1024;

export class StoredFields {
  private fd: number;
  /** Logical offsets: articles 0..A, then paragraphs at `paragraphBase`. */
  private readonly offsets: Float64Array;
  private readonly paragraphBase: number;
  private readonly chunkOffsets: Float64Array;
  private readonly dataStart: number;
  private readonly chunkCache = new Map<number, Buffer>();
  private readonly maxCachedChunks: number;

  private constructor(
    readonly file: string,
    fd: number,
    readonly header: StoredHeader,
    tables: Float64Array,
    chunkCacheBytes: number,
  ) {
    this.fd = fd;
    const offsetCount = header.articles + 1 + header.paragraphs + 1;
    this.offsets = tables.subarray(0, offsetCount);
    this.paragraphBase = header.articles + 1;
    this.chunkOffsets = tables.subarray(offsetCount);
    this.dataStart = STORED_PREAMBLE_BYTES + tables.byteLength;
    this.maxCachedChunks = Math.max(1, Math.floor(chunkCacheBytes / Math.max(1, header.chunkSize)));
  }

  static open(file: string, options: { chunkCacheBytes?: number } = {}): StoredFields {
    const fd = openSync(file, 'r');
    try {
      const size = fstatSync(fd).size;
      const preamble = Buffer.alloc(STORED_PREAMBLE_BYTES);
      readFully(fd, file, preamble, 0, Math.min(size, STORED_PREAMBLE_BYTES), 0);
      const header = decodePreamble(preamble.subarray(0, Math.min(size, STORED_PREAMBLE_BYTES)), file);
      const tableBytes = tablesBytes(header);
      if (STORED_PREAMBLE_BYTES + tableBytes > size) throw new StoredFormatError(`${file} is truncated (its offset tables end past the file)`);
      const tables = new Float64Array(tableBytes / 8);
      const tableView = Buffer.from(tables.buffer);
      readFully(fd, file, tableView, 0, tableBytes, STORED_PREAMBLE_BYTES);
      if (crc32(tableView) !== header.tablesCrc) throw new StoredFormatError(`${file} is damaged (offset table checksum mismatch)`);
      const stored = new StoredFields(file, fd, header, tables, options.chunkCacheBytes ?? DEFAULT_CHUNK_CACHE_BYTES);
      stored.checkLayout(size);
      return stored;
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  private checkLayout(fileSize: number): void {
    const { header, offsets, file } = this;
    for (let i = 1; i < offsets.length; i++) {
      if (!(offsets[i]! >= offsets[i - 1]!)) throw new StoredFormatError(`${file} is damaged (fragment offsets decrease at ${i})`);
    }
    if (offsets[0] !== 0 || offsets[header.articles] !== offsets[this.paragraphBase] || offsets[offsets.length - 1] !== header.dataLength) {
      throw new StoredFormatError(`${file} is damaged (fragment offsets do not cover the data)`);
    }
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
    return this.offsets[article + 1]! - this.offsets[article]!;
  }

  paragraphLength(paragraph: number): number {
    const i = this.paragraphBase + paragraph;
    return this.offsets[i + 1]! - this.offsets[i]!;
  }

  /** Copies an article's fragment into `target` at `at`; returns the position after it. */
  copyArticle(article: number, target: Buffer, at: number): number {
    return this.copyRange(this.offsets[article]!, this.offsets[article + 1]!, target, at);
  }

  copyParagraph(paragraph: number, target: Buffer, at: number): number {
    const i = this.paragraphBase + paragraph;
    return this.copyRange(this.offsets[i]!, this.offsets[i + 1]!, target, at);
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

  private copyRange(start: number, end: number, target: Buffer, at: number): number {
    if (this.header.compression === 'none') {
      readFully(this.fd, this.file, target, at, end - start, this.dataStart + start);
      return at + end - start;
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

  close(): void {
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
