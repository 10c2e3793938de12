/**
 * Collects the rendered fragments of one segment while it is built and writes
 * them as its stored-fields file (layout in format.ts).
 */
import { open } from 'node:fs/promises';
import { crc32, deflateSync } from 'node:zlib';
import type { ArticleInput } from '../../corpus/model.js';
import { GrowableBytes } from '../segment/growable.js';
import { renderArticle, renderParagraph } from './render.js';
import { STORED_FORMAT_VERSION, STORED_PREAMBLE_BYTES, encodePreamble, type StoredCompression, type StoredHeader } from './format.js';

/** Logical bytes per compressed chunk: small enough that one inflate costs tens of µs. */
export const DEFAULT_CHUNK_SIZE = 16 * 1024;

export class StoredFieldsBuilder {
  private readonly articles = new GrowableBytes(1 << 20);
  private readonly paragraphs = new GrowableBytes(1 << 20);
  private readonly articleEnds: number[] = [];
  private readonly paragraphEnds: number[] = [];

  /** Bytes held, for the segment size bound of ingestion. */
  get approximateBytes(): number {
    return this.articles.length + this.paragraphs.length;
  }

  addArticle(article: ArticleInput): void {
    this.articles.pushBytes(Buffer.from(renderArticle(article), 'utf8'));
    this.articleEnds.push(this.articles.length);
    for (let position = 0; position < article.paragraphs.length; position++) {
      this.paragraphs.pushBytes(Buffer.from(renderParagraph(article, position), 'utf8'));
      this.paragraphEnds.push(this.paragraphs.length);
    }
  }

  /** Writes the file and fsyncs it; the caller publishes it with its segment. */
  async write(file: string, compression: StoredCompression = 'none', chunkSize = DEFAULT_CHUNK_SIZE): Promise<void> {
    const articleBytes = this.articles.view();
    const offsets = new Float64Array(this.articleEnds.length + 1 + this.paragraphEnds.length + 1);
    this.articleEnds.forEach((end, i) => (offsets[i + 1] = end));
    const paragraphBase = this.articleEnds.length + 1;
    offsets[paragraphBase] = articleBytes.length;
    this.paragraphEnds.forEach((end, i) => (offsets[paragraphBase + i + 1] = articleBytes.length + end));
    const dataLength = articleBytes.length + this.paragraphs.length;

    let data: Uint8Array[] = [articleBytes, this.paragraphs.view()];
    let chunkOffsets = new Float64Array(0);
    if (compression === 'deflate') {
      data = deflateChunks(Buffer.concat(data), chunkSize);
      // Chunk offsets are file positions, so they start past the preamble and the tables.
      chunkOffsets = new Float64Array(data.length + 1);
      chunkOffsets[0] = STORED_PREAMBLE_BYTES + offsets.byteLength + chunkOffsets.byteLength;
      data.forEach((chunk, c) => (chunkOffsets[c + 1] = chunkOffsets[c]! + chunk.length));
    }
    const tables = Buffer.concat([bytesOf(offsets), bytesOf(chunkOffsets)]);
    const header: StoredHeader = {
      version: STORED_FORMAT_VERSION,
      compression,
      articles: this.articleEnds.length,
      paragraphs: this.paragraphEnds.length,
      chunkSize: compression === 'none' ? 0 : chunkSize,
      chunks: compression === 'none' ? 0 : data.length,
      dataLength,
      tablesCrc: crc32(tables),
    };
    const handle = await open(file, 'wx');
    try {
      await handle.write(encodePreamble(header));
      await handle.write(tables);
      for (const part of data) await handle.write(part);
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
}

function bytesOf(array: Float64Array): Buffer {
  return Buffer.from(array.buffer, array.byteOffset, array.byteLength);
}

/** Cuts the logical stream into chunks of `chunkSize` bytes, each deflated on its own. */
function deflateChunks(stream: Buffer, chunkSize: number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let start = 0; start < stream.length; start += chunkSize) chunks.push(deflateSync(stream.subarray(start, start + chunkSize)));
  return chunks;
}
