/**
 * Response bodies assembled by copying the stored JSON fragments into one
 * Buffer: the same bytes the route's response schema would serialise from
 * the metadata objects (test/http/served-bytes.test.ts compares them), without
 * decoding text, building objects or re-encoding strings.
 */
import type { ArticleLocation, ParagraphHit } from '../search/searcher.js';
import type { StoredFields } from '../search/stored/reader.js';

const [OPEN_ARRAY, CLOSE_ARRAY, OPEN_OBJECT, CLOSE_OBJECT, COMMA] = [0x5b, 0x5d, 0x7b, 0x7d, 0x2c];

/** What assembly reads of an index (the Searcher): each segment's stored fragments, and which article holds a paragraph. */
export interface StoredSource {
  storedFields(segment: number): StoredFields;
  articleOfParagraph(segment: number, paragraph: number): number;
}

export interface ListingPage {
  items: readonly ArticleLocation[];
  total: number;
  page: number;
  size: number;
  pages: number;
}

/** `[{<article>,<paragraph>,"context_id":<rank>,"reranking_score":null},…]` */
export function contextsJson(source: StoredSource, hits: readonly ParagraphHit[]): Buffer {
  const tails = hits.map((_, rank) => `,"context_id":${rank},"reranking_score":null}`);
  const articles = hits.map((hit) => source.articleOfParagraph(hit.segment, hit.paragraph));
  let size = 2 + Math.max(0, hits.length - 1);
  hits.forEach((hit, i) => {
    const stored = source.storedFields(hit.segment);
    size += 2 + stored.articleLength(articles[i]!) + stored.paragraphLength(hit.paragraph) + tails[i]!.length;
  });
  const body = Buffer.allocUnsafe(size);
  const copies = new ArticleCopies(source, body);
  let at = 0;
  body[at++] = OPEN_ARRAY;
  hits.forEach((hit, i) => {
    if (i > 0) body[at++] = COMMA;
    body[at++] = OPEN_OBJECT;
    const stored = source.storedFields(hit.segment);
    const paragraphAt = at + stored.articleLength(articles[i]!) + 1;
    if (!copies.copyWritten(hit.segment, articles[i]!, at)) {
      copies.remember(hit.segment, articles[i]!, at);
      stored.copyArticleAndParagraph(articles[i]!, hit.paragraph, body, at, paragraphAt);
    } else {
      stored.copyParagraph(hit.paragraph, body, paragraphAt);
    }
    body[paragraphAt - 1] = COMMA;
    at = paragraphAt + stored.paragraphLength(hit.paragraph);
    at += body.write(tails[i]!, at, 'latin1');
  });
  body[at++] = CLOSE_ARRAY;
  return checkedLength(body, at);
}

/** `{"items":[{<article>},…],"total":…,"page":…,"size":…,"pages":…}` */
export function listingJson(source: StoredSource, page: ListingPage): Buffer {
  const head = '{"items":[';
  const tail = `],"total":${page.total},"page":${page.page},"size":${page.size},"pages":${page.pages}}`;
  let size = head.length + tail.length + Math.max(0, page.items.length - 1);
  for (const { segment, article } of page.items) size += 2 + source.storedFields(segment).articleLength(article);
  const body = Buffer.allocUnsafe(size);
  const copies = new ArticleCopies(source, body);
  let at = body.write(head, 0, 'latin1');
  page.items.forEach(({ segment, article }, i) => {
    if (i > 0) body[at++] = COMMA;
    body[at++] = OPEN_OBJECT;
    at = copies.copy(segment, article, at);
    body[at++] = CLOSE_OBJECT;
  });
  at += body.write(tail, at, 'latin1');
  return checkedLength(body, at);
}

/** Copies article fragments into a body; an article met again is copied from its first place in the body, not read again. */
class ArticleCopies {
  private readonly written = new Map<number, number>();

  constructor(
    private readonly source: StoredSource,
    private readonly body: Buffer,
  ) {}

  private key(segment: number, article: number): number {
    return segment * 0x1_0000_0000 + article;
  }

  remember(segment: number, article: number, at: number): void {
    this.written.set(this.key(segment, article), at);
  }

  /** Copies the article to `at` from where the body already holds it; false when it does not yet. */
  copyWritten(segment: number, article: number, at: number): boolean {
    const previous = this.written.get(this.key(segment, article));
    if (previous === undefined) return false;
    this.body.copy(this.body, at, previous, previous + this.source.storedFields(segment).articleLength(article));
    return true;
  }

  copy(segment: number, article: number, at: number): number {
    const stored = this.source.storedFields(segment);
    if (this.copyWritten(segment, article, at)) return at + stored.articleLength(article);
    this.remember(segment, article, at);
    return stored.copyArticle(article, this.body, at);
  }
}

function checkedLength(body: Buffer, written: number): Buffer {
  // Sizes come from the offset tables; a mismatch would send garbage after the JSON.
  if (written !== body.length) throw new Error(`response assembly wrote ${written} of ${body.length} bytes`);
  return body;
}
