/**
 * Reader for BEIR corpus files (corpus.jsonl): one {"_id", "title", "text",
 * "metadata"} object per line, where "text" is the document's abstract.
 * BEIR carries no bibliographic metadata, so everything but the id, title and
 * text takes its empty value; the article type is the neutral "article".
 * A line giving one of its fields twice is refused, as in articles-jsonl.
 */
import { ABSTRACT_SECTION, type ArticleInput } from '../model.js';
import { readJsonLineRecords } from './lines.js';
import { quotedKey, repeatedKeys } from '../../text/repeated-keys.js';
import type { ReadEvent, ReadOptions } from './types.js';

const BEIR_ARTICLE_TYPE = 'article';

export function readBeir(file: string, options: ReadOptions = {}): AsyncGenerator<ReadEvent> {
  return readJsonLineRecords(file, options, parseBeirLine);
}

export function parseBeirLine(text: string): { article: ArticleInput } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { error: `invalid JSON: ${(error as Error).message}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { error: 'line is not a JSON object' };
  }
  // JSON.parse would keep the last of a field given twice, silently deciding which title or text is indexed:
  // refused as in articles-jsonl.ts. Only the line's own fields are read, so a key repeated inside "metadata"
  // decides nothing and is let be.
  const repeated = repeatedKeys(text).filter(({ path }) => path === '');
  if (repeated.length > 0) return { error: repeated.map(({ key }) => `field ${quotedKey(key)} is given twice`).join('; ') };
  const { _id: rawId, title = '', text: body } = value as Record<string, unknown>;
  // Some BEIR exports write numeric ids; they are identifiers all the same.
  const id = typeof rawId === 'number' && Number.isInteger(rawId) ? String(rawId) : rawId;
  if (typeof id !== 'string' || id.trim() === '') return { error: '_id must be a non-empty string' };
  // Several BEIR corpora have documents with an empty title; only the text is indexed.
  if (typeof title !== 'string') return { error: `document ${id}: title must be a string` };
  if (typeof body !== 'string') return { error: `document ${id}: text must be a string` };
  if (body.trim() === '') return { error: `document ${id}: text is empty` };
  return {
    article: {
      article_id: id,
      title: title.trim(),
      authors: [],
      article_doi: null,
      pubmed_id: null,
      date: null,
      article_type: BEIR_ARTICLE_TYPE,
      journal_issn: null,
      journal_name: null,
      cited_by: null,
      impact_factor: null,
      paragraphs: [{ section: ABSTRACT_SECTION, text: body.trim() }],
    },
  };
}
