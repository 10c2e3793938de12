/**
 * The JSON fragments stored at ingest time: exactly the bytes the routes'
 * response schemas (fast-json-stringify) produce for the same fields, so a
 * response can be assembled by copying bytes (test/search/stored-render.test.ts
 * compares them byte for byte).
 *
 * - article: `"article_title":…,"abstract":…`, the 12 article fields of
 *   ArticleMetadata in schema order, without braces (a listing item wraps it
 *   in `{}`, a context continues it with the paragraph fields);
 * - paragraph: `"paragraph":…,"paragraph_id":…,"section":…`.
 *
 * The schema serialiser writes a string as JSON.stringify does, an integer or
 * finite number as `'' + n`, null as `null`. Strings are made well-formed as
 * UTF-8 storage makes them (a lone surrogate becomes U+FFFD), the way earlier
 * versions stored text, so a client reads the same text from any index.
 */
import { abstractOf, paragraphIdOf, type ArticleInput } from '../../corpus/model.js';

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The string UTF-8 storage would give back: lone surrogates become U+FFFD. */
export function wellFormed(text: string): string {
  return LONE_SURROGATE.test(text) ? Buffer.from(text, 'utf8').toString('utf8') : text;
}

const string = (value: string) => JSON.stringify(wellFormed(value));
const nullableString = (value: string | null) => (value === null ? 'null' : string(value));
const nullableNumber = (value: number | null) => (value === null ? 'null' : JSON.stringify(value));

export function renderArticle(article: ArticleInput): string {
  return (
    `"article_title":${string(article.title)}` +
    `,"article_authors":[${article.authors.map(string).join(',')}]` +
    `,"article_id":${string(article.article_id)}` +
    `,"article_doi":${nullableString(article.article_doi)}` +
    `,"pubmed_id":${nullableString(article.pubmed_id)}` +
    `,"date":${nullableString(article.date)}` +
    `,"article_type":${string(article.article_type)}` +
    `,"journal_issn":${nullableString(article.journal_issn)}` +
    `,"journal_name":${nullableString(article.journal_name)}` +
    `,"cited_by":${JSON.stringify(article.cited_by)}` +
    `,"impact_factor":${nullableNumber(article.impact_factor)}` +
    `,"abstract":${string(abstractOf(article.paragraphs))}`
  );
}

/** The fragment of the paragraph at `position` in `article`. */
export function renderParagraph(article: ArticleInput, position: number): string {
  const paragraph = article.paragraphs[position]!;
  return (
    `"paragraph":${string(paragraph.text)}` +
    `,"paragraph_id":${string(paragraphIdOf(article.article_id, position))}` +
    `,"section":${string(paragraph.section)}`
  );
}
