/**
 * Collects the rendered fragments of one segment while it is built and writes
 * them as its stored-fields file (layout in format.ts).
 */
import { open } from 'node:fs/promises';
import { crc32, deflateSync } from 'node:zlib';
import type { ArticleInput } from '../../corpus/model.js';
import { GrowableBytes } from '../segment/growable.js';
import { renderArticle, renderParagraph } from './render.js';
import { STORED_FORMAT_VERSION, STORED_PREAMBLE_BYTES, encodePreamble, tablesLayout, type StoredCompression, type StoredHeader } from './format.js';

/** Logical bytes per compressed chunk: small enough that one inflate costs tens of µs. */
export const DEFAULT_CHUNK_SIZE = 16 * 1024;

export class StoredFieldsBuilder {
  private readonly stream = new GrowableBytes(1 << 20);
  private readonly articleStarts: number[] = [];
  private readonly articleLengths: number[] = [];
  private readonly paragraphStarts: number[] = [];
  private readonly paragraphLengths: number[] = [];

  /** Bytes held, for the segment size bound of ingestion. */
  get approximateBytes(): number {
    return this.stream.length;
  }

  private append(fragment: string, starts: number[], lengths: number[]): void {
    const bytes = Buffer.from(fragment, 'utf8');
    starts.push(this.stream.length);
    lengths.push(bytes.length);
    this.stream.pushBytes(bytes);
  }

  addArticle(article: ArticleInput): void {
    this.append(renderArticle(article), this.articleStarts, this.articleLengths);
    for (let position = 0; position < article.paragraphs.length; position++) {
      this.append(renderParagraph(article, position), this.paragraphStarts, this.paragraphLengths);
    }
  }

  /** Writes the file and fsyncs it; the caller publishes it with its segment. */
  async write(file: string, compression: StoredCompression = 'none', chunkSize = DEFAULT_CHUNK_SIZE): Promise<void> {
    const stream = this.stream.view();
    const data = compression === 'deflate' ? deflateChunks(stream, chunkSize) : [stream];
    const header: StoredHeader = {
      version: STORED_FORMAT_VERSION,
      compression,
      articles: this.articleStarts.length,
      paragraphs: this.paragraphStarts.length,
      chunkSize: compression === 'none' ? 0 : chunkSize,
      chunks: compression === 'none' ? 0 : data.length,
      dataLength: stream.length,
      tablesCrc: 0,
    };
    const layout = tablesLayout(header);
    const tables = Buffer.alloc(layout.bytes);
    const starts = new Float64Array(tables.buffer, tables.byteOffset, layout.f64Entries);
    starts.set(this.articleStarts);
    starts.set(this.paragraphStarts, header.articles);
    if (compression === 'deflate') {
      // Chunk offsets are file positions: the data starts after the preamble and the tables.
      let position = STORED_PREAMBLE_BYTES + layout.bytes;
      data.forEach((chunk, c) => {
        starts[header.articles + header.paragraphs + c] = position;
        position += chunk.length;
      });
      starts[layout.f64Entries - 1] = position;
    }
    const lengths = new Uint32Array(tables.buffer, tables.byteOffset + 8 * layout.f64Entries, layout.u32Entries);
    lengths.set(this.articleLengths);
    lengths.set(this.paragraphLengths, header.articles);
    header.tablesCrc = crc32(tables);

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

/** Cuts the logical stream into chunks of `chunkSize` bytes, each deflated on its own. */
function deflateChunks(stream: Uint8Array, chunkSize: number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let start = 0; start < stream.length; start += chunkSize) chunks.push(deflateSync(stream.subarray(start, start + chunkSize)));
  return chunks;
}
