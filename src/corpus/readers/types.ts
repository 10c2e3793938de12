import type { ArticleInput } from '../model.js';

/** The input formats the ingestion readers understand. */
export type InputFormat = 'articles-jsonl' | 'jats' | 'pubmed' | 'beir';

/** Where a record came from, precise enough for a person to find it. */
export interface RecordSource {
  file: string;
  /** 1-based line: the JSON line, or the line where an XML record starts or fails. */
  line?: number;
  /** The XML element the record comes from, e.g. "PubmedArticle #3" or "article". */
  element?: string;
}

/**
 * What a reader produces: an article, a deletion (PubMed update files'
 * <DeleteCitation>), or a record it had to reject. Readers report bad records
 * and keep going, so one broken line or file does not stop a bulk ingestion.
 * A file that is not of the format read at all (XML whose root element is
 * another format's, and no record in it) is one 'unrecognised' event and
 * nothing else: it is skipped as a file, like one whose format detection could
 * not tell, rather than read as holding no records.
 */
export type ReadEvent =
  | { kind: 'article'; article: ArticleInput; source: RecordSource }
  | { kind: 'delete'; articleId: string; source: RecordSource }
  | { kind: 'error'; source: RecordSource; message: string }
  | { kind: 'unrecognised'; source: RecordSource; message: string };

export interface ReadOptions {
  /**
   * Called as input is consumed with the number of bytes of the file just read
   * (a delta, not a running total). The deltas of one file add up to its size
   * on disk (compressed size for .gz), so a progress bar can be sized from file
   * sizes and advanced with each call.
   */
  onBytes?: (bytesRead: number) => void;
  /** JSON lines formats: the longest line read (default MAX_LINE_BYTES); a longer one is reported and skipped. */
  maxLineBytes?: number;
  /** XML formats: the most characters read without markup (default MAX_TEXT_RUN); a longer run ends the file. */
  maxTextRun?: number;
}
