/**
 * Response bodies assembled by copying the stored JSON fragments into one
 * Buffer: the same bytes the route's response schema would serialise from
 * the metadata objects (test/http/served-bytes.test.ts compares them), without
 * decoding text, building objects or re-encoding strings.
 */
import type { ArticleLocation, ParagraphHit } from '../search/searcher.js';
import type { StoredFields } from '../search/stored/reader.js';
import { FragmentCopyList, NO_PARAGRAPH } from '../search/stored/fragment-copies.js';

const [OPEN_ARRAY, CLOSE_ARRAY, OPEN_OBJECT, CLOSE_OBJECT, COMMA] = [0x5b, 0x5d, 0x7b, 0x7d, 0x2c];

/**
 * What assembly reads of an index (the Searcher): each segment's stored
 * fragment lengths, which article holds a paragraph, and the copying of the
 * fragments themselves, which it may spread over its worker threads.
 */
interface StoredSource {
  storedFields(segment: number): StoredFields;
  articleOfParagraph(segment: number, paragraph: number): number;
  /** A body of `size` bytes that copyFragments can fill with `copies` copies. */
  responseBody(size: number, copies: number): Buffer;
  /** Fills the body; returns the bytes to send (the body, or a copy of it). */
  copyFragments(rows: Int32Array, body: Buffer): Promise<Buffer>;
}

export interface ListingPage {
  items: readonly ArticleLocation[];
  total: number;
  page: number;
  size: number;
  pages: number;
}

/**
 * `[{<article>,<paragraph>,"context_id":<rank>,"reranking_score":null},…]`:
 * the punctuation and tails are written here, the fragments by copyFragments.
 */
export async function contextsJson(source: StoredSource, hits: readonly ParagraphHit[]): Promise<Buffer> {
  const tails = hits.map((_, rank) => `,"context_id":${rank},"reranking_score":null}`);
  const articles = hits.map((hit) => source.articleOfParagraph(hit.segment, hit.paragraph));
  let size = 2 + Math.max(0, hits.length - 1);
  hits.forEach((hit, i) => {
    const stored = source.storedFields(hit.segment);
    size += 2 + stored.articleLength(articles[i]!) + stored.paragraphLength(hit.paragraph) + tails[i]!.length;
  });
  const body = source.responseBody(size, hits.length);
  const copies = new FragmentCopyList(hits.length);
  let at = 0;
  body[at++] = OPEN_ARRAY;
  hits.forEach((hit, i) => {
    if (i > 0) body[at++] = COMMA;
    body[at++] = OPEN_OBJECT;
    const stored = source.storedFields(hit.segment);
    const paragraphAt = at + stored.articleLength(articles[i]!) + 1;
    copies.add(hit.segment, articles[i]!, hit.paragraph, at, paragraphAt);
    body[paragraphAt - 1] = COMMA;
    at = paragraphAt + stored.paragraphLength(hit.paragraph);
    at += body.write(tails[i]!, at, 'latin1');
  });
  body[at++] = CLOSE_ARRAY;
  checkedLength(body, at);
  return source.copyFragments(copies.rows(), body);
}

/** `{"items":[{<article>},…],"total":…,"page":…,"size":…,"pages":…}` */
export async function listingJson(source: StoredSource, page: ListingPage): Promise<Buffer> {
  const head = '{"items":[';
  const tail = `],"total":${page.total},"page":${page.page},"size":${page.size},"pages":${page.pages}}`;
  let size = head.length + tail.length + Math.max(0, page.items.length - 1);
  for (const { segment, article } of page.items) size += 2 + source.storedFields(segment).articleLength(article);
  const body = source.responseBody(size, page.items.length);
  const copies = new FragmentCopyList(page.items.length);
  let at = body.write(head, 0, 'latin1');
  page.items.forEach(({ segment, article }, i) => {
    if (i > 0) body[at++] = COMMA;
    body[at++] = OPEN_OBJECT;
    copies.add(segment, article, NO_PARAGRAPH, at, 0);
    at += source.storedFields(segment).articleLength(article);
    body[at++] = CLOSE_OBJECT;
  });
  at += body.write(tail, at, 'latin1');
  checkedLength(body, at);
  return source.copyFragments(copies.rows(), body);
}

function checkedLength(body: Buffer, written: number): void {
  // Sizes come from the offset tables; a mismatch would send garbage after the JSON.
  if (written !== body.length) throw new Error(`response assembly wrote ${written} of ${body.length} bytes`);
}
