/**
 * A stored-fields file written from the fragments of other segments' files,
 * as bytes (never parsed or rendered again) and streamed to disk: what a merge
 * writes for its merged segment. The bytes, the token table and therefore the
 * file are those a segment builder fed the same articles would write.
 */
import type { StoredCompression } from './format.js';
import type { StoredFields } from './reader.js';
import type { TokenDictionary } from './dictionary.js';
import { StoredFileWriter, chooseDictionary, dictionarySampleSize, type StoredFileShape } from './file-writer.js';
import { stopIfAborted } from '../merge-stop.js';

/** An article to copy: its ordinal in `source` and its paragraphs there, [from, to). */
export interface CopiedArticle {
  source: StoredFields;
  article: number;
  from: number;
  to: number;
}

/** Articles copied between two stopping points: a turn of the event loop costs microseconds, 1024 articles milliseconds. */
const ARTICLES_PER_STOP = 1024;

/**
 * Writes `file` from `articles`, in that order, each source read in file
 * order (readInFileOrder); `visit` sees each article's fragment (its JSON
 * members) as it is copied. An aborted `signal` stops the token table's choice
 * or the copy between two fragments or articles (rejecting with its reason),
 * the file, if created, left for the caller to remove. `onSampled` hears now and
 * then how many of the token table's sampled fragments are counted, out of all
 * of them, from 0 to the whole before the copy starts (never, without a table).
 */
export async function writeCopiedStoredFields(
  file: string,
  articles: readonly CopiedArticle[],
  compression: StoredCompression,
  visit: (index: number, articleJson: string) => void,
  { signal, onSampled }: { signal?: AbortSignal; onSampled?: (done: number, total: number) => void } = {},
): Promise<void> {
  const shape: StoredFileShape = { articles: articles.length, paragraphs: 0, dataLength: 0 };
  // First paragraph of each copied article in the new file, to find paragraph i of the sample.
  const firstParagraph = new Float64Array(articles.length + 1);
  articles.forEach(({ source, article, from, to }, i) => {
    shape.dataLength += source.articleLength(article);
    for (let p = from; p < to; p++) shape.dataLength += source.paragraphLength(p);
    shape.paragraphs += to - from;
    firstParagraph[i + 1] = shape.paragraphs;
  });
  let dictionary: TokenDictionary | null = null;
  if (compression === 'dictionary') {
    const sampleSize = dictionarySampleSize(shape);
    dictionary = await chooseDictionary(
      shape,
      (i) => articles[i]!.source.articleBytes(articles[i]!.article),
      (i) => {
        const owner = lastAtMost(firstParagraph, i);
        return articles[owner]!.source.paragraphBytes(articles[owner]!.from + i - firstParagraph[owner]!);
      },
      { signal, onSampled: onSampled && ((done) => onSampled(done, sampleSize)) },
    );
    // The choice stops every 256 KiB sampled: a signal heard during a smaller sample stops here, before the step is reported.
    if (signal) await stopIfAborted(signal);
    onSampled?.(sampleSize, sampleSize);
  }
  for (const source of new Set(articles.map((a) => a.source))) source.readInFileOrder();
  const writer = StoredFileWriter.create(file, shape, compression, dictionary);
  try {
    let scratch = Buffer.allocUnsafe(64 * 1024);
    const copied = (length: number, copy: (target: Buffer) => void) => {
      if (scratch.length < length) scratch = Buffer.allocUnsafe(2 * length);
      copy(scratch);
      return scratch;
    };
    for (const [index, { source, article, from, to }] of articles.entries()) {
      if (signal && index % ARTICLES_PER_STOP === 0) await stopIfAborted(signal);
      const length = source.articleLength(article);
      const articleBytes = copied(length, (target) => source.copyArticle(article, target, 0));
      writer.addArticle(articleBytes, 0, length);
      visit(index, articleBytes.toString('utf8', 0, length));
      for (let p = from; p < to; p++) {
        const paragraphLength = source.paragraphLength(p);
        writer.addParagraph(copied(paragraphLength, (target) => source.copyParagraph(p, target, 0)), 0, paragraphLength);
      }
    }
    writer.finish();
  } finally {
    writer.abandon();
  }
}

/** The last index whose value is at most `value`, in ascending `values`. */
function lastAtMost(values: Float64Array, value: number): number {
  let [low, high] = [0, values.length - 1];
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (values[middle]! <= value) low = middle;
    else high = middle - 1;
  }
  return low;
}
