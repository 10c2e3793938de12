/**
 * Turns a FilterSpec into bitsets over one segment:
 * - metadata filters (type, author, journal, dates) -> a bitset over articles,
 *   by scanning the article columns once, or with an author filter only the
 *   wanted authors' articles (author-index.ts);
 * - text filters (topics, regions) -> a bitset over paragraphs, by boolean
 *   operations on postings lists (never through a query string);
 * - both, plus replaced articles, combined into the paragraphs a search may
 *   return and the articles a count or listing may return.
 */
import type { LoadedSegment } from '../snapshot.js';
import { expandToParagraphs } from '../snapshot.js';
import type { Segment } from '../segment/reader.js';
import { NO_MORE_DOCS, PostingsCursor } from '../segment/postings.js';
import { Bitset } from './bitset.js';
import { authorIndex } from './author-index.js';
import { hasMetadataFilter, hasTextFilter, typeKey, type FilterSpec } from '../query/filter-spec.js';

export interface SegmentFilter {
  /** Paragraphs a search may return; null = every paragraph. */
  paragraphs: Bitset | null;
  /** Articles a count or listing returns; null = every article. */
  articles: Bitset | null;
}

export function compileSegmentFilter(loaded: LoadedSegment, spec: FilterSpec): SegmentFilter {
  const { segment } = loaded;
  let articles = hasMetadataFilter(spec) ? metadataArticles(segment, spec) : null;
  if (loaded.liveArticles) articles = articles ? articles.and(loaded.liveArticles) : loaded.liveArticles;

  if (!hasTextFilter(spec)) {
    const paragraphs = articles === loaded.liveArticles ? loaded.liveParagraphs : articles && expandToParagraphs(segment, articles);
    return { paragraphs, articles };
  }
  const text = textParagraphs(segment, spec);
  const paragraphs = articles ? text.and(expandToParagraphs(segment, articles)) : text;
  return { paragraphs, articles: articlesWithParagraphs(segment, paragraphs) };
}

function metadataArticles(segment: Segment, spec: FilterSpec): Bitset {
  const wantedTypes = spec.articleTypes.length > 0 ? matchingIds(segment.types.size, (i) => spec.articleTypes.includes(typeKey(segment.types.get(i)))) : null;
  const wantedJournals = spec.journals.length > 0 ? matchingIds(segment.journals.size, (i) => spec.journals.includes(segment.journals.get(i))) : null;
  const from = spec.dateFrom ?? -Infinity;
  const to = spec.dateTo ?? Infinity;
  const checkDate = spec.dateFrom !== null || spec.dateTo !== null;

  const result = new Bitset(segment.articleCount);
  // A type or journal this segment does not hold matches nothing: skip the scan.
  if ([wantedTypes, wantedJournals].some((ids) => ids?.size === 0)) return result;
  const addIfMatching = (a: number) => {
    if (wantedTypes && !segment.articleTypes(a).some((id) => wantedTypes.has(id))) return;
    if (wantedJournals && !segment.articleIssns(a).some((id) => wantedJournals.has(id))) return;
    if (checkDate) {
      const date = segment.articleDate[a]!;
      if (date < 0 || date < from || date > to) return;
    }
    result.add(a);
  };
  // Only the wanted authors' articles can match (none for an author the segment does not hold):
  // check the other conditions on those rather than on every article, which a new author value
  // would otherwise cost on the request thread.
  if (spec.authors.length > 0) authorIndex(segment).articlesListingAny(spec.authors).forEach(addIfMatching);
  else for (let a = 0; a < segment.articleCount; a++) addIfMatching(a);
  return result;
}

/** Ids of a string-table entries that match. */
function matchingIds(size: number, matches: (id: number) => boolean): Set<number> {
  const ids = new Set<number>();
  for (let i = 0; i < size; i++) if (matches(i)) ids.add(i);
  return ids;
}

/** Paragraphs containing every term of `terms` in their text. */
function conjunction(segment: Segment, terms: string[]): Bitset {
  const result = new Bitset(segment.paragraphCount);
  const field = segment.fields.text;
  const ordinals = terms.map((term) => segment.termOrdinal(term));
  if (ordinals.some((ordinal) => ordinal < 0 || field.df[ordinal] === 0)) return result;
  // Leapfrog intersection, led by the rarest list.
  ordinals.sort((a, b) => field.df[a]! - field.df[b]!);
  const cursors = ordinals.map((ordinal) => PostingsCursor.forTerm(field, ordinal));
  let doc = cursors[0]!.next();
  while (doc !== NO_MORE_DOCS) {
    let agreed = true;
    for (let i = 1; i < cursors.length; i++) {
      const other = cursors[i]!.advance(doc);
      if (other !== doc) {
        doc = other === NO_MORE_DOCS ? NO_MORE_DOCS : cursors[0]!.advance(other);
        agreed = false;
        break;
      }
    }
    if (agreed) {
      result.add(doc);
      doc = cursors[0]!.next();
    }
  }
  return result;
}

function textParagraphs(segment: Segment, spec: FilterSpec): Bitset {
  let result: Bitset | null = null;
  for (const topic of spec.topics) {
    const matches = conjunction(segment, topic);
    result = result ? result.and(matches) : matches;
  }
  if (spec.regions.length > 0) {
    const anyRegion = new Bitset(segment.paragraphCount);
    for (const region of spec.regions) anyRegion.or(conjunction(segment, region));
    result = result ? result.and(anyRegion) : anyRegion;
  }
  return result!;
}

function articlesWithParagraphs(segment: Segment, paragraphs: Bitset): Bitset {
  const articles = new Bitset(segment.articleCount);
  paragraphs.forEach((p) => articles.add(segment.paragraphArticle[p]!));
  return articles;
}
