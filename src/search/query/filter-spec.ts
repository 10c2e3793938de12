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
  return fold(name).trim().replace(/\s+/g, ' ');
}

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

export function compileFilterSpec(input: FilterInput): FilterSpec {
  for (const journal of input.journals ?? []) {
    if (!ISSN_PATTERN.test(journal)) throw new InvalidFilterError('journals', `journals must be ISSNs written XXXX-XXXX, got "${journal}"`);
  }
  const spec: FilterSpec = {
    topics: termGroups(input.topics, 'topics'),
    regions: termGroups(input.regions, 'regions'),
    articleTypes: keysOf(input.article_types, 'article_types', typeKey),
    authors: keysOf(input.authors, 'authors', foldName),
    journals: distinct(input.journals ?? []),
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
