/**
 * The retrieval filters of the API, validated and normalised. Text filters
 * (topics, regions) become groups of analysed terms; nothing a user types is
 * ever parsed as query syntax.
 *
 * Matching rules: topics are AND-ed, regions OR-ed, the words inside one
 * topic or region AND-ed (anywhere in the paragraph); topics AND regions;
 * article types, authors and journals are each OR-ed; dates are inclusive.
 */
import { analyzeUnique, fold } from '../analysis/analyzer.js';
import { ISSN_PATTERN, isValidDate } from './formats.js';

export interface FilterInput {
  topics?: string[];
  regions?: string[];
  article_types?: string[];
  authors?: string[];
  journals?: string[];
  date_from?: string;
  date_to?: string;
}

export interface FilterSpec {
  /** Each topic as its analysed terms; every group must match. */
  topics: string[][];
  /** Each region as its analysed terms; at least one group must match. */
  regions: string[][];
  articleTypes: string[];
  /** Folded (case- and diacritic-insensitive) full names. */
  authors: string[];
  journals: string[];
  /** Inclusive bounds as YYYYMMDD integers. */
  dateFrom: number | null;
  dateTo: number | null;
}

export class InvalidFilterError extends Error {
  constructor(
    readonly parameter: string,
    message: string,
  ) {
    super(message);
  }
}

/** Folds a name for comparison: case, diacritics and runs of spaces do not matter. */
export function foldName(name: string): string {
  // Invisible format characters (a zero-width space, bidirectional controls) are no part of a name as read:
  // kept, "Jo\u200bhn Smith" would be suggested, then found by no spelling a user could type.
  return fold(name).replace(FORMAT_CHARACTERS, '').trim().replace(/\s+/g, ' ');
}

const FORMAT_CHARACTERS = /\p{Cf}/gu;

function termGroups(values: string[] | undefined, parameter: string): string[][] {
  return (values ?? []).map((value) => {
    const terms = analyzeUnique(value);
    if (terms.length === 0) {
      throw new InvalidFilterError(parameter, `${parameter} value "${value}" has no searchable word (only stopwords or punctuation)`);
    }
    return terms;
  });
}

function dateBound(value: string | undefined, parameter: string): number | null {
  if (value === undefined) return null;
  if (!isValidDate(value)) throw new InvalidFilterError(parameter, `${parameter} must be a real date written YYYY-MM-DD, got "${value}"`);
  return Number(value.replaceAll('-', ''));
}

function distinct(values: string[]): string[] {
  return [...new Set(values)].sort();
}

/**
 * The values' comparison keys, distinct. A value whose key is empty (accents or punctuation
 * alone: "\u0301", "-") could match nothing and is refused, as a topic without a word is,
 * rather than answered with zero articles.
 */
function keysOf(values: string[] | undefined, parameter: string, key: (value: string) => string): string[] {
  return distinct(
    (values ?? []).map((value) => {
      const folded = key(value);
      if (folded === '') throw new InvalidFilterError(parameter, `${parameter} value "${value}" has no letter or digit to match`);
      return folded;
    }),
  );
}

/**
 * An author value's comparison key: its folded name, or '' (refused) when it has no letter or
 * digit. The key keeps punctuation ("J.-P. Sartre" is not "J P Sartre"), so without this check
 * "-", "." or a zero-width space alone would be a key, match no author and count zero.
 */
function authorKey(value: string): string {
  const folded = foldName(value);
  return isAuthorKey(folded) ? folded : '';
}

/** Whether a folded name (foldName) is one the authors filter accepts: it has a letter or digit. */
export function isAuthorKey(folded: string): boolean {
  return /[\p{L}\p{N}]/u.test(folded);
}

/**
 * An ISSN as stored (XXXX-XXXX, check character an upper-case X), or null. A lower-case x is
 * read as X, as journal suggestions read it, so an ISSN typed either way finds the same journal.
 */
function issnKey(value: string): string | null {
  const issn = value.toUpperCase();
  return ISSN_PATTERN.test(issn) ? issn : null;
}

export function compileFilterSpec(input: FilterInput): FilterSpec {
  const journals = (input.journals ?? []).map((journal) => {
    const issn = issnKey(journal);
    if (issn === null) throw new InvalidFilterError('journals', `journals must be ISSNs written XXXX-XXXX, got "${journal}"`);
    return issn;
  });
  const spec: FilterSpec = {
    topics: termGroups(input.topics, 'topics'),
    regions: termGroups(input.regions, 'regions'),
    articleTypes: keysOf(input.article_types, 'article_types', typeKey),
    authors: keysOf(input.authors, 'authors', authorKey),
    journals: distinct(journals),
    dateFrom: dateBound(input.date_from, 'date_from'),
    dateTo: dateBound(input.date_to, 'date_to'),
  };
  return spec;
}

export function hasTextFilter(spec: FilterSpec): boolean {
  return spec.topics.length > 0 || spec.regions.length > 0;
}

export function hasMetadataFilter(spec: FilterSpec): boolean {
  return (
    spec.articleTypes.length > 0 || spec.authors.length > 0 || spec.journals.length > 0 || spec.dateFrom !== null || spec.dateTo !== null
  );
}

/** A stable key: equal filters (up to order and case of OR-ed values) share one cache entry. */
export function filterKey(spec: FilterSpec): string {
  return JSON.stringify([
    spec.topics.map((g) => [...g].sort()).sort(),
    spec.regions.map((g) => [...g].sort()).sort(),
    spec.articleTypes,
    spec.authors,
    spec.journals,
    spec.dateFrom,
    spec.dateTo,
  ]);
}

/**
 * The form article types are compared in: lower case, runs of other characters
 * as one hyphen, so "Randomized Controlled Trial" matches the stored slug
 * "randomized-controlled-trial" and "review-article" stays itself.
 */
export function typeKey(type: string): string {
  return type.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-+|-+$/g, '');
}
