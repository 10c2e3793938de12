/**
 * Ingestion readers: turn input files into a stream of articles (and of
 * rejected records, which never stop the stream).
 */
import { readArticlesJsonl } from './articles-jsonl.js';
import { readBeir } from './beir.js';
import { isFileSystemError } from './input.js';
import { readJats } from './jats.js';
import { readPubmed } from './pubmed.js';
import type { InputFormat, ReadEvent, ReadOptions } from './types.js';

export { detectFormat } from './detect.js';
export { expandInputs } from './expand.js';

const READERS: Record<InputFormat, (file: string, options: ReadOptions) => AsyncGenerator<ReadEvent>> = {
  'articles-jsonl': readArticlesJsonl,
  beir: readBeir,
  jats: readJats,
  pubmed: readPubmed,
};

/**
 * The articles of `file` read as `format`. Bad records come out as error
 * events. A file that cannot be read at all (missing, unreadable) throws, as
 * that is a problem with the run rather than with the data; a file whose
 * content breaks off (e.g. a corrupt .gz) ends with an error event.
 */
export async function* readArticles(
  file: string,
  format: InputFormat,
  options: ReadOptions = {},
): AsyncIterable<ReadEvent> {
  try {
    yield* READERS[format](file, options);
  } catch (error) {
    if (isFileSystemError(error)) throw error;
    yield { kind: 'error', source: { file }, message: `cannot read the rest of the file: ${(error as Error).message}` };
  }
}
