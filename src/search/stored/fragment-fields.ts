/**
 * A stored fragment's fields parsed back (render.ts writes them), checked to
 * be what it writes. The checks at open do not read the data, so a byte
 * changed on disk since is met here: as JSON that does not parse, or parses
 * to members that are missing or of another type, which the callers would
 * otherwise meet as a TypeError far from the file.
 */
import type { ArticleMetadata } from '../../corpus/model.js';

/** A paragraph fragment's fields. */
export interface ParagraphFields {
  paragraph: string;
  paragraph_id: string;
  section: string;
}

/** A fragment that is not what render.ts writes; the reader says which file (StoredFields.articleFields). */
export class FragmentDamagedError extends Error {}

type Kind = 'string' | 'string or null' | 'number or null' | 'list of strings';

const ARTICLE_MEMBERS: Record<keyof ArticleMetadata, Kind> = {
  article_title: 'string',
  article_authors: 'list of strings',
  article_id: 'string',
  article_doi: 'string or null',
  pubmed_id: 'string or null',
  date: 'string or null',
  article_type: 'string',
  journal_issn: 'string or null',
  journal_name: 'string or null',
  cited_by: 'number or null',
  impact_factor: 'number or null',
  abstract: 'string',
};

const PARAGRAPH_MEMBERS: Record<keyof ParagraphFields, Kind> = { paragraph: 'string', paragraph_id: 'string', section: 'string' };

export function articleFieldsOf(fragment: string): ArticleMetadata {
  return fieldsOf(fragment, ARTICLE_MEMBERS);
}

export function paragraphFieldsOf(fragment: string): ParagraphFields {
  return fieldsOf(fragment, PARAGRAPH_MEMBERS);
}

/** A fragment (an object's members, without braces) parsed, each of `members` of its kind. */
function fieldsOf<T>(fragment: string, members: Record<keyof T, Kind>): T {
  let fields: Record<string, unknown>;
  try {
    fields = JSON.parse(`{${fragment}}`) as Record<string, unknown>;
  } catch (error) {
    throw new FragmentDamagedError(`is not JSON: ${(error as Error).message}`);
  }
  for (const [member, kind] of Object.entries(members) as [string, Kind][]) {
    if (!holds(fields[member], kind)) throw new FragmentDamagedError(`has no ${member} that is a ${kind}`);
  }
  return fields as T;
}

function holds(value: unknown, kind: Kind): boolean {
  switch (kind) {
    case 'string':
      return typeof value === 'string';
    case 'string or null':
      return value === null || typeof value === 'string';
    case 'number or null':
      return value === null || typeof value === 'number';
    case 'list of strings':
      return Array.isArray(value) && value.every((item) => typeof item === 'string');
  }
}
