/**
 * The copying half of assembling a response from stored fragments: a list of
 * copies (which article and paragraph fragments go where in the body) carried
 * out against the segments' stored-fields files. The list is plain integers,
 * so a share of it can be handed to a search worker thread, which writes its
 * fragments into the same shared body (SearchPool.copyFragments).
 */
import type { StoredFields } from './reader.js';

/** Integers per copy: segment, article, paragraph (NO_PARAGRAPH: the article only), article position, paragraph position. */
export const COPY_FIELDS = 5;
export const NO_PARAGRAPH = -1;

/** A list of at most `capacity` copies, written straight into the Int32Array copyFragments reads. */
export class FragmentCopyList {
  private readonly values: Int32Array;
  private length = 0;

  constructor(capacity: number) {
    this.values = new Int32Array(capacity * COPY_FIELDS);
  }

  add(segment: number, article: number, paragraph: number, articleAt: number, paragraphAt: number): void {
    const { values, length } = this;
    values[length] = segment;
    values[length + 1] = article;
    values[length + 2] = paragraph;
    values[length + 3] = articleAt;
    values[length + 4] = paragraphAt;
    this.length += COPY_FIELDS;
  }

  rows(): Int32Array {
    return this.values.subarray(0, this.length);
  }
}

/**
 * Carries out the copies of `rows` into `body`. An article met again is
 * copied from where this call already wrote it rather than read again (a
 * response often holds several paragraphs of one article).
 */
export function copyFragments(stored: readonly StoredFields[], rows: Int32Array, body: Buffer): void {
  const written = new Map<number, number>();
  for (let row = 0; row + COPY_FIELDS <= rows.length; row += COPY_FIELDS) {
    const segment = rows[row]!;
    const article = rows[row + 1]!;
    const paragraph = rows[row + 2]!;
    const articleAt = rows[row + 3]!;
    const fields = stored[segment]!;
    const key = segment * 0x1_0000_0000 + article;
    const previous = written.get(key);
    if (previous !== undefined) {
      body.copy(body, articleAt, previous, previous + fields.articleLength(article));
      if (paragraph !== NO_PARAGRAPH) fields.copyParagraph(paragraph, body, rows[row + 4]!);
      continue;
    }
    written.set(key, articleAt);
    if (paragraph === NO_PARAGRAPH) fields.copyArticle(article, body, articleAt);
    else fields.copyArticleAndParagraph(article, paragraph, body, articleAt, rows[row + 4]!);
  }
}
