/**
 * Collects the rendered fragments of one segment while it is built and writes
 * them as its stored-fields file (through file-writer.ts).
 */
import type { ArticleInput } from '../../corpus/model.js';
import { GrowableBytes } from '../segment/growable.js';
import { memoryFor, type SpareMemory } from '../segment/spare-memory.js';
import { renderArticle, renderParagraph } from './render.js';
import { DEFAULT_CHUNK_SIZE, StoredFileWriter, chooseDictionary, dictionarySampleSize, type StoredFileShape } from './file-writer.js';
import { DEFAULT_STORED_COMPRESSION, type StoredCompression } from './format.js';

/** Articles written between two progress reports. */
const ARTICLES_PER_REPORT = 1024;
/**
 * Bytes of fragments written per progress step. The segment's steps count postings (POSTING_STEPS
 * each); the generated corpus stores about 13 bytes per posting, and writing them takes about 1.4 times
 * as long as grouping and encoding the postings, so a step here is about as long as one there and the
 * bar moves at one pace through both files (measured at 50,000 and 200,000 paragraphs).
 */
const BYTES_PER_STEP = 2;

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

  private get shape(): StoredFileShape {
    return { articles: this.articleStarts.length, paragraphs: this.paragraphStarts.length, dataLength: this.stream.length };
  }

  /**
   * Steps `write` reports with `compression`, known before it starts: with a token table, one per
   * fragment its choice samples (a fraction of a second of silence before the first article), then one
   * per BYTES_PER_STEP of the fragments written.
   */
  writeSteps(compression: StoredCompression = DEFAULT_STORED_COMPRESSION): number {
    const { shape } = this;
    return (compression === 'dictionary' ? dictionarySampleSize(shape) : 0) + Math.ceil(shape.dataLength / BYTES_PER_STEP);
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
    this.articleFirstParagraph.push(this.paragraphStarts.length);
  }

  /**
   * Writes the file and fsyncs it; the caller publishes it with its segment. `onSteps` hears now and
   * then how many of the `writeSteps` are done (the token table's choice, then the articles written).
   */
  async write(
    file: string,
    compression: StoredCompression = DEFAULT_STORED_COMPRESSION,
    chunkSize = DEFAULT_CHUNK_SIZE,
    onSteps?: (done: number, total: number) => void,
  ): Promise<void> {
    const view = this.stream.view();
    const stream = Buffer.from(view.buffer, view.byteOffset, view.length);
    const { shape } = this;
    const total = this.writeSteps(compression);
    const sampleSteps = total - Math.ceil(shape.dataLength / BYTES_PER_STEP);
    const fragment = (starts: number[], lengths: number[], i: number) => stream.subarray(starts[i], starts[i]! + lengths[i]!);
    const dictionary =
      compression === 'dictionary'
        ? await chooseDictionary(
            shape,
            (article) => fragment(this.articleStarts, this.articleLengths, article),
            (paragraph) => fragment(this.paragraphStarts, this.paragraphLengths, paragraph),
            { onSampled: onSteps && ((done) => onSteps(done, total)) },
          )
        : null;
    const writer = StoredFileWriter.create(file, shape, compression, dictionary, chunkSize);
    try {
      for (let article = 0, paragraph = 0; article < shape.articles; article++) {
        if (onSteps && article % ARTICLES_PER_REPORT === 0) onSteps(sampleSteps + Math.floor(this.articleStarts[article]! / BYTES_PER_STEP), total);
        writer.addArticle(stream, this.articleStarts[article]!, this.articleStarts[article]! + this.articleLengths[article]!);
        for (const end = this.articleFirstParagraph[article + 1]!; paragraph < end; paragraph++) {
          writer.addParagraph(stream, this.paragraphStarts[paragraph]!, this.paragraphStarts[paragraph]! + this.paragraphLengths[paragraph]!);
        }
      }
      writer.finish();
    } finally {
      writer.abandon();
    }
  }
}
