/**
 * Collects the rendered fragments of one segment while it is built and writes
 * them as its stored-fields file (layout in format.ts).
 */
import { open } from 'node:fs/promises';
import { crc32, deflateSync } from 'node:zlib';
import type { ArticleInput } from '../../corpus/model.js';
import type { StoredFields } from './reader.js';
import { GrowableBytes } from '../segment/growable.js';
import { memoryFor, type SpareMemory } from '../segment/spare-memory.js';
import { renderArticle, renderParagraph } from './render.js';
import { TokenDictionary } from './dictionary.js';
import {
  DEFAULT_STORED_COMPRESSION,
  STORED_FORMAT_VERSION,
  STORED_PREAMBLE_BYTES,
  encodePreamble,
  tablesLayout,
  type StoredCompression,
  type StoredHeader,
} from './format.js';

/** Logical bytes per compressed chunk: small enough that one inflate costs tens of µs. */
export const DEFAULT_CHUNK_SIZE = 16 * 1024;
/** Logical bytes of fragments (evenly spread over the segment) from which the token table is chosen. */
const DICTIONARY_SAMPLE_BYTES = 4 * 1024 * 1024;

export class StoredFieldsBuilder {
  private readonly stream: GrowableBytes;
  private readonly articleStarts: number[] = [];
  private readonly articleLengths: number[] = [];
  private readonly paragraphStarts: number[] = [];
  private readonly paragraphLengths: number[] = [];
  /** First paragraph of each article, and the paragraph count after the last. */
  private readonly articleFirstParagraph: number[] = [0];

  /** With `memory`, the fragments reuse the previous builder's buffer (spare-memory.ts). */
  constructor(memory?: SpareMemory) {
    this.stream = new GrowableBytes(1 << 20, memoryFor(memory, 'stored.stream'));
  }

  /** Bytes held, for the segment size bound of ingestion. */
  get approximateBytes(): number {
    return this.stream.length;
  }

  /** Appends a fragment of `length` bytes to the stream and returns its place there, for the caller to fill. */
  private nextFragment(length: number, starts: number[], lengths: number[]): Uint8Array {
    starts.push(this.stream.length);
    lengths.push(length);
    return this.stream.append(length);
  }

  private append(fragment: string, starts: number[], lengths: number[]): void {
    const bytes = Buffer.from(fragment, 'utf8');
    this.nextFragment(bytes.length, starts, lengths).set(bytes);
  }

  addArticle(article: ArticleInput): void {
    this.append(renderArticle(article), this.articleStarts, this.articleLengths);
    for (let position = 0; position < article.paragraphs.length; position++) {
      this.append(renderParagraph(article, position), this.paragraphStarts, this.paragraphLengths);
    }
    this.articleFirstParagraph.push(this.paragraphStarts.length);
  }

  /**
   * An article and its paragraphs [from, to) copied as they are from another
   * segment's stored fields: a merge moves fragments without parsing and
   * rendering them again (the bytes are those rendering would give).
   */
  copyArticle(source: StoredFields, article: number, from: number, to: number): void {
    source.copyArticle(article, this.nextFragment(source.articleLength(article), this.articleStarts, this.articleLengths), 0);
    for (let paragraph = from; paragraph < to; paragraph++) {
      source.copyParagraph(paragraph, this.nextFragment(source.paragraphLength(paragraph), this.paragraphStarts, this.paragraphLengths), 0);
    }
    this.articleFirstParagraph.push(this.paragraphStarts.length);
  }

  /** Room for `bytes` more of fragments, when the caller knows them (a merge: its sources' sizes). */
  reserve(bytes: number): void {
    this.stream.reserve(bytes);
  }

  /** Writes the file and fsyncs it; the caller publishes it with its segment. */
  async write(file: string, compression: StoredCompression = DEFAULT_STORED_COMPRESSION, chunkSize = DEFAULT_CHUNK_SIZE): Promise<void> {
    const stream = this.stream.view();
    const coded = compression === 'dictionary' ? this.codeFragments(stream) : null;
    const data = compression === 'deflate' ? deflateChunks(stream, chunkSize) : [coded?.data ?? stream];
    const dictionary = coded?.dictionary.serialize() ?? Buffer.alloc(0);
    const header: StoredHeader = {
      version: STORED_FORMAT_VERSION,
      compression,
      articles: this.articleStarts.length,
      paragraphs: this.paragraphStarts.length,
      chunkSize: compression === 'deflate' ? chunkSize : 0,
      chunks: compression === 'deflate' ? data.length : 0,
      dataLength: stream.length,
      tablesCrc: 0,
      dictionaryBytes: dictionary.length,
    };
    const layout = tablesLayout(header);
    const tables = Buffer.alloc(layout.bytes);
    const starts = new Float64Array(tables.buffer, tables.byteOffset, layout.f64Entries);
    starts.set(coded?.articleStarts ?? this.articleStarts);
    starts.set(coded?.paragraphStarts ?? this.paragraphStarts, header.articles);
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
    if (coded) {
      lengths.set(coded.articleLengths, header.articles + header.paragraphs);
      lengths.set(coded.paragraphLengths, 2 * header.articles + header.paragraphs);
    }
    const dictionaryPadded = Buffer.alloc((dictionary.length + 7) & ~7);
    dictionary.copy(dictionaryPadded);
    header.tablesCrc = crc32(dictionary, crc32(tables));

    const handle = await open(file, 'wx');
    try {
      await handle.write(encodePreamble(header));
      await handle.write(tables);
      if (dictionaryPadded.length > 0) await handle.write(dictionaryPadded);
      for (const part of data) await handle.write(part);
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  /** Every fragment coded with a token table chosen from a sample of this segment's, in stream order. */
  private codeFragments(stream: Uint8Array): CodedFragments {
    const bytes = Buffer.from(stream.buffer, stream.byteOffset, stream.length);
    const articles = this.articleStarts.length;
    const paragraphs = this.paragraphStarts.length;
    const fragment = (starts: number[], lengths: number[], i: number) => bytes.subarray(starts[i], starts[i]! + lengths[i]!);
    const sample: Buffer[] = [];
    const stride = Math.max(1, Math.round(stream.length / DICTIONARY_SAMPLE_BYTES));
    for (let article = 0; article < articles; article += stride) sample.push(fragment(this.articleStarts, this.articleLengths, article));
    for (let paragraph = 0; paragraph < paragraphs; paragraph += stride) sample.push(fragment(this.paragraphStarts, this.paragraphLengths, paragraph));
    const dictionary = TokenDictionary.build(sample);

    const coded: CodedFragments = {
      dictionary,
      data: new Uint8Array(0),
      articleStarts: new Float64Array(articles),
      articleLengths: new Uint32Array(articles),
      paragraphStarts: new Float64Array(paragraphs),
      paragraphLengths: new Uint32Array(paragraphs),
    };
    const out = new GrowableBytes(Math.max(1024, stream.length >> 1));
    const code = (starts: number[], lengths: number[], i: number, codedStarts: Float64Array, codedLengths: Uint32Array) => {
      codedStarts[i] = out.length;
      dictionary.encode(stream, starts[i]!, starts[i]! + lengths[i]!, out);
      codedLengths[i] = out.length - codedStarts[i]!;
    };
    // Stream order (an article, then its paragraphs), so a hit's article and paragraph stay one read apart.
    for (let article = 0, paragraph = 0; article < articles; article++) {
      code(this.articleStarts, this.articleLengths, article, coded.articleStarts, coded.articleLengths);
      for (const end = this.articleFirstParagraph[article + 1]!; paragraph < end; paragraph++) {
        code(this.paragraphStarts, this.paragraphLengths, paragraph, coded.paragraphStarts, coded.paragraphLengths);
      }
    }
    coded.data = out.view();
    return coded;
  }
}

/** Where each fragment's coded form starts in the coded data, and how long it is. */
interface CodedFragments {
  dictionary: TokenDictionary;
  data: Uint8Array;
  articleStarts: Float64Array;
  articleLengths: Uint32Array;
  paragraphStarts: Float64Array;
  paragraphLengths: Uint32Array;
}

/** Cuts the logical stream into chunks of `chunkSize` bytes, each deflated on its own. */
function deflateChunks(stream: Uint8Array, chunkSize: number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let start = 0; start < stream.length; start += chunkSize) chunks.push(deflateSync(stream.subarray(start, start + chunkSize)));
  return chunks;
}
