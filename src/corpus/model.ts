/**
 * The literature data model shared by ingestion, the index and the HTTP layer.
 *
 * An article is a set of metadata plus ordered paragraphs; its abstract is not
 * stored separately but is the concatenation of its paragraphs whose section
 * is "Abstract" (see `abstractOf`).
 */

export const ABSTRACT_SECTION = 'Abstract';

export interface ParagraphInput {
  section: string;
  text: string;
}

/** One article as produced by an ingestion reader, before it gets index ordinals. */
export interface ArticleInput {
  article_id: string;
  title: string;
  authors: string[];
  article_doi: string | null;
  pubmed_id: string | null;
  /** YYYY-MM-DD, or null when the source has no usable date. */
  date: string | null;
  /** The primary type, the one hits show (see README, "Article types"). */
  article_type: string;
  /** Every type the source gives, primary first; the article_types filter matches any. Absent: just article_type. */
  article_types?: string[];
  /** The primary ISSN (electronic, else print, else linking), the one hits show. */
  journal_issn: string | null;
  /** Every valid ISSN of the journal (print, electronic, linking), primary first; the journals filter matches any. */
  journal_issns?: string[];
  journal_name: string | null;
  /** Citations; null when the source does not say (JATS, PubMed and BEIR never do). */
  cited_by: number | null;
  impact_factor: number | null;
  paragraphs: ParagraphInput[];
}

/** Article-level fields as returned by the API (the first 12 Context metadata fields). */
export interface ArticleMetadata {
  article_title: string;
  article_authors: string[];
  article_id: string;
  article_doi: string | null;
  pubmed_id: string | null;
  date: string | null;
  article_type: string;
  journal_issn: string | null;
  journal_name: string | null;
  cited_by: number | null;
  impact_factor: number | null;
  abstract: string;
}

/** A paragraph with its article, as returned by paragraph search and QA. */
export interface ContextMetadata extends ArticleMetadata {
  paragraph: string;
  paragraph_id: string;
  section: string;
  context_id: number;
  reranking_score: number | null;
}

// The formats of ISSNs and dates live with the filter validator, which checks them too.
export { ISSN_PATTERN, isValidDate } from '../search/query/formats.js';

/** Paragraph ids are the article id and the paragraph's position in the article. */
export function paragraphIdOf(articleId: string, position: number): string {
  return `${articleId}:${position}`;
}

export function abstractOf(paragraphs: readonly ParagraphInput[]): string {
  return paragraphs
    .filter((p) => p.section === ABSTRACT_SECTION)
    .map((p) => p.text)
    .join('\n');
}
