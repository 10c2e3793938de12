/**
 * Writes a stored-fields file (layout in format.ts) from fragments handed over
 * one at a time in stream order (an article, then its paragraphs), holding
 * only the offset tables and a megabyte of data not yet written. A segment
 * builder hands over the fragments it holds; a merge the ones it copies from
 * its sources, so merging never holds the merged text. The data is written
 * first, after room left for the tables, which are written last.
 */
import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';
import { crc32, deflateSync } from 'node:zlib';
import { TokenCounts, TokenDictionary } from './dictionary.js';
import { stopIfAborted } from '../merge-stop.js';
import {
  COMPRESSIONS,
  STORED_FORMAT_VERSION,
  STORED_PREAMBLE_BYTES,
  dataStartOf,
  encodePreamble,
  padTo8,
  tablesLayout,
  type StoredCompression,
  type StoredHeader,
} from './format.js';

/** Logical bytes per compressed chunk: small enough that one inflate costs tens of µs. */
export const DEFAULT_CHUNK_SIZE = 16 * 1024;
/** Logical bytes of fragments (evenly spread over the segment) from which the token table is chosen. */
const DICTIONARY_SAMPLE_BYTES = 4 * 1024 * 1024;
/** Data gathered before it is written. */
const WRITE_BUFFER_BYTES = 1024 * 1024;

/** What a file holds, known before its fragments are: fragment counts and their bytes in all. */
export interface StoredFileShape {
  articles: number;
  paragraphs: number;
  dataLength: number;
}

/** The token table is chosen from every stride-th fragment of a file of `shape`. */
function sampleStride(shape: StoredFileShape): number {
  return Math.max(1, Math.round(shape.dataLength / DICTIONARY_SAMPLE_BYTES));
}

/** Fragments `chooseDictionary` samples from a file of `shape`: the steps of its progress. */
export function dictionarySampleSize(shape: StoredFileShape): number {
  const stride = sampleStride(shape);
  return Math.ceil(shape.articles / stride) + Math.ceil(shape.paragraphs / stride);
}

/** Every stride-th article, then every stride-th paragraph, of a file of `shape` (about DICTIONARY_SAMPLE_BYTES of them, evenly spread). */
function* sampledFragments(shape: StoredFileShape, article: (i: number) => Buffer, paragraph: (i: number) => Buffer): Generator<Buffer> {
  const stride = sampleStride(shape);
  for (let i = 0; i < shape.articles; i += stride) yield article(i);
  for (let i = 0; i < shape.paragraphs; i += stride) yield paragraph(i);
}

/** Sampled fragments counted between two progress reports. */
const FRAGMENTS_PER_REPORT = 1024;
/**
 * Bytes of sampled fragments counted between two stopping points: 10-16 ms of counting (40-64 µs a KiB), against
 * 7-10 µs a stopping point. Counted in bytes, not fragments: a sample of long paragraphs holds few of them.
 */
const SAMPLE_BYTES_PER_STOP = 256 * 1024;

interface DictionaryChoiceOptions {
  /** Hears now and then how many of the sampled fragments are counted. */
  onSampled?: (done: number) => void;
  /**
   * Stops the choice once aborted (rejecting with its reason): a merge reads and counts its sample for a
   * fraction of a second (0.2-0.4 s at 1M paragraphs), which would otherwise be deaf to a Ctrl-C.
   */
  signal?: AbortSignal;
}

/**
 * The token table of a file of `shape`, chosen from its sampled fragments:
 * `article(i)` and `paragraph(i)` give fragment i of its kind.
 */
export async function chooseDictionary(
  shape: StoredFileShape,
  article: (i: number) => Buffer,
  paragraph: (i: number) => Buffer,
  { onSampled, signal }: DictionaryChoiceOptions = {},
): Promise<TokenDictionary> {
  const counts = new TokenCounts();
  let sampled = 0;
  let bytesSinceStop = SAMPLE_BYTES_PER_STOP;
  for (const fragment of sampledFragments(shape, article, paragraph)) {
    const reporting = onSampled !== undefined && sampled % FRAGMENTS_PER_REPORT === 0;
    // A report is a stopping point too, so that no step is reported once a stop has been asked for.
    if (signal && (bytesSinceStop >= SAMPLE_BYTES_PER_STOP || reporting)) {
      await stopIfAborted(signal);
      bytesSinceStop = 0;
    }
    if (reporting) onSampled(sampled);
    counts.add(fragment);
    bytesSinceStop += fragment.length;
    sampled++;
  }
  return TokenDictionary.choose(counts);
}

export class StoredFileWriter {
  private readonly header: StoredHeader;
  private readonly tables: Buffer;
  /** Article starts, paragraph starts, and (deflate) chunk offsets. */
  private readonly starts: Float64Array;
  /** Article lengths, paragraph lengths, and (dictionary) their coded lengths. */
  private readonly lengths: Uint32Array;
  /** Each article's and paragraph's CRC-32. */
  private readonly checksums: Uint32Array;
  private readonly serializedDictionary: Buffer;
  private articles = 0;
  private paragraphs = 0;
  /** Bytes of the logical stream handed over, and of the data written or gathered. */
  private logical = 0;
  private dataWritten = 0;
  private readonly pending = Buffer.allocUnsafe(WRITE_BUFFER_BYTES);
  private pendingLength = 0;
  /** Deflate: the logical bytes of the chunk being filled, and the chunks done. */
  private readonly chunk: Buffer;
  private chunkLength = 0;
  private chunks = 0;
  private readonly dataStart: number;
  private closed = false;

  private constructor(
    private readonly file: string,
    private readonly fd: number,
    private readonly shape: StoredFileShape,
    private readonly dictionary: TokenDictionary | null,
    compression: StoredCompression,
    chunkSize: number,
  ) {
    const deflated = compression === 'deflate';
    this.serializedDictionary = dictionary?.serialize() ?? Buffer.alloc(0);
    this.header = {
      version: STORED_FORMAT_VERSION,
      compression,
      articles: shape.articles,
      paragraphs: shape.paragraphs,
      chunkSize: deflated ? chunkSize : 0,
      chunks: deflated ? Math.ceil(shape.dataLength / chunkSize) : 0,
      dataLength: shape.dataLength,
      tablesCrc: 0,
      dictionaryBytes: this.serializedDictionary.length,
    };
    const layout = tablesLayout(this.header);
    this.tables = Buffer.alloc(layout.bytes);
    this.starts = new Float64Array(this.tables.buffer, this.tables.byteOffset, layout.f64Entries);
    const u32 = new Uint32Array(this.tables.buffer, this.tables.byteOffset + 8 * layout.f64Entries, layout.u32Entries);
    const fragments = shape.articles + shape.paragraphs;
    this.lengths = u32.subarray(0, layout.u32Entries - fragments);
    this.checksums = u32.subarray(layout.u32Entries - fragments);
    this.chunk = Buffer.allocUnsafe(deflated ? chunkSize : 0);
    this.dataStart = dataStartOf(this.header);
  }

  /** Creates `file` (which must not exist) for fragments adding up to `shape`; `dictionary` for the `dictionary` compression. */
  static create(file: string, shape: StoredFileShape, compression: StoredCompression, dictionary: TokenDictionary | null, chunkSize = DEFAULT_CHUNK_SIZE): StoredFileWriter {
    // Checked here as callers may hand over unchecked values: any other compression would be written as deflate, and
    // an empty chunk never fills, so either would loop for ever in deflateOnward.
    if (!COMPRESSIONS.includes(compression)) throw new Error(`unknown stored compression ${JSON.stringify(compression)} (one of ${COMPRESSIONS.join(', ')})`);
    if (!Number.isSafeInteger(chunkSize) || chunkSize < 1) throw new Error(`a chunk holds a positive whole number of bytes, not ${chunkSize}`);
    if ((compression === 'dictionary') !== (dictionary !== null)) throw new Error(`a token table goes with the dictionary compression only (${compression})`);
    return new StoredFileWriter(file, openSync(file, 'wx'), shape, dictionary, compression, chunkSize);
  }

  /** An article's fragment: `source[from, to)`. Its paragraphs follow it. */
  addArticle(source: Uint8Array, from: number, to: number): void {
    if (this.articles === this.shape.articles) throw new Error(`${this.file}: more than the ${this.shape.articles} articles announced`);
    this.add(source, from, to, this.articles++, 0);
  }

  addParagraph(source: Uint8Array, from: number, to: number): void {
    if (this.paragraphs === this.shape.paragraphs) throw new Error(`${this.file}: more than the ${this.shape.paragraphs} paragraphs announced`);
    this.add(source, from, to, this.paragraphs++, this.shape.articles);
  }

  /** Fragment `index` of its kind, whose entries start at `tableOffset` in the starts and lengths. */
  private add(source: Uint8Array, from: number, to: number, index: number, tableOffset: number): void {
    const { header } = this;
    this.lengths[tableOffset + index] = to - from;
    this.checksums[tableOffset + index] = crc32(source.subarray(from, to));
    if (header.compression === 'dictionary') {
      const coded = this.dictionary!.encode(source, from, to);
      this.starts[tableOffset + index] = this.dataWritten + this.pendingLength;
      this.lengths[header.articles + header.paragraphs + tableOffset + index] = coded.length;
      this.write(coded);
    } else {
      this.starts[tableOffset + index] = this.logical;
      if (header.compression === 'none') this.write(source.subarray(from, to));
      else this.deflateOnward(source.subarray(from, to));
    }
    this.logical += to - from;
  }

  /** Fills the current chunk, deflating and writing each that is full. */
  private deflateOnward(bytes: Uint8Array): void {
    for (let at = 0; at < bytes.length; ) {
      const taken = Math.min(bytes.length - at, this.chunk.length - this.chunkLength);
      this.chunk.set(bytes.subarray(at, at + taken), this.chunkLength);
      this.chunkLength += taken;
      at += taken;
      if (this.chunkLength === this.chunk.length) this.deflateChunk();
    }
  }

  private deflateChunk(): void {
    const { articles, paragraphs } = this.header;
    // Chunk offsets are file positions.
    this.starts[articles + paragraphs + this.chunks++] = this.dataStart + this.dataWritten + this.pendingLength;
    this.write(deflateSync(this.chunk.subarray(0, this.chunkLength)));
    this.chunkLength = 0;
  }

  private write(bytes: Uint8Array): void {
    if (this.pendingLength + bytes.length > this.pending.length) this.flush();
    if (bytes.length > this.pending.length) {
      this.writeAt(bytes, this.dataStart + this.dataWritten);
      this.dataWritten += bytes.length;
      return;
    }
    this.pending.set(bytes, this.pendingLength);
    this.pendingLength += bytes.length;
  }

  private flush(): void {
    this.writeAt(this.pending.subarray(0, this.pendingLength), this.dataStart + this.dataWritten);
    this.dataWritten += this.pendingLength;
    this.pendingLength = 0;
  }

  private writeAt(bytes: Uint8Array, position: number): void {
    for (let done = 0; done < bytes.length; ) done += writeSync(this.fd, bytes, done, bytes.length - done, position + done);
  }

  /** Writes what is left, the tables and the preamble, fsyncs and closes the file; the caller publishes it with its segment. */
  finish(): void {
    const { header, shape } = this;
    try {
      if (this.chunkLength > 0) this.deflateChunk();
      this.flush();
      if (this.articles !== shape.articles || this.paragraphs !== shape.paragraphs || this.logical !== shape.dataLength) {
        throw new Error(`${this.file}: ${this.articles} articles, ${this.paragraphs} paragraphs, ${this.logical} bytes handed over; ${shape.articles}, ${shape.paragraphs}, ${shape.dataLength} announced`);
      }
      if (header.compression === 'deflate') this.starts[this.starts.length - 1] = this.dataStart + this.dataWritten;
      const dictionary = Buffer.alloc(padTo8(this.serializedDictionary.length));
      this.serializedDictionary.copy(dictionary);
      header.tablesCrc = crc32(this.serializedDictionary, crc32(this.tables));
      this.writeAt(encodePreamble(header), 0);
      this.writeAt(this.tables, STORED_PREAMBLE_BYTES);
      this.writeAt(dictionary, STORED_PREAMBLE_BYTES + this.tables.length);
      fsyncSync(this.fd);
    } finally {
      this.abandon();
    }
  }

  /** Closes the file, also after a failure (an unpublished file is garbage the next writer removes). */
  abandon(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }
}
