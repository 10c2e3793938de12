/**
 * Values users can pick for the article_types, authors and journals filters,
 * with how many live articles carry each. Built on first use from the
 * segments' string tables and article columns, then kept.
 *
 * Matching is case- and diacritic-insensitive substring search on folded
 * strings; user text is never turned into a regular expression.
 */
import { foldedAuthorNames } from './filters/author-index.js';
import { foldName, isAuthorKey, typeKey } from './query/filter-spec.js';
import { NO_VALUE } from './segment/reader.js';
import type { IndexSnapshot } from './snapshot.js';
import { stableTopK } from './stable-top-k.js';

interface ArticleTypeCount {
  article_type: string;
  docs_in_db: number;
}

interface AuthorSuggestion {
  name: string;
  docs_in_db: number;
}

interface JournalSuggestion {
  journal_name: string;
  journal_issn: string;
  docs_in_db: number;
}

interface Counted<T> {
  value: T;
  folded: string;
  count: number;
}

export class FilterValues {
  private types?: ArticleTypeCount[];
  private authors?: Counted<string>[];
  private journals?: Counted<{ issn: string; name: string; allIssns: Set<string> }>[];

  constructor(private readonly snapshot: IndexSnapshot) {}

  /** Calls `visit` for every live article of every segment. */
  private forEachLiveArticle(visit: (segmentIndex: number, article: number) => void): void {
    this.snapshot.segments.forEach(({ segment, liveArticles }, s) => {
      for (let a = 0; a < segment.articleCount; a++) if (!liveArticles || liveArticles.has(a)) visit(s, a);
    });
  }

  articleTypes(): ArticleTypeCount[] {
    if (!this.types) {
      // Types with one filter key (typeKey) are one filter value: count them together under the
      // first spelling seen. An article counts once under each of its types. A type whose key is
      // empty ("---", "\u0301") is left out: article_types= refuses it, so it could not be picked.
      const byKey = new Map<string, ArticleTypeCount>();
      this.forEachLiveArticle((s, a) => {
        const segment = this.snapshot.segments[s]!.segment;
        const keys = new Set<string>();
        for (const id of segment.articleTypes(a)) {
          const name = segment.types.get(id);
          const key = typeKey(name);
          if (key === '' || keys.has(key)) continue;
          keys.add(key);
          const entry = byKey.get(key) ?? { article_type: name.trim(), docs_in_db: 0 };
          entry.docs_in_db++;
          byKey.set(key, entry);
        }
      });
      this.types = [...byKey.values()].sort((x, y) => y.docs_in_db - x.docs_in_db || x.article_type.localeCompare(y.article_type));
    }
    return this.types;
  }

  /** `maxNameLength` (characters): names longer than the authors filter takes are not offered, as it would refuse them. */
  suggestAuthors(name: string, limit: number, maxNameLength = Infinity): AuthorSuggestion[] {
    if (!this.authors) {
      // Spellings with one folded form are one filter value (authors= matches the folded form):
      // count them together under the first spelling seen, and an article once however many of
      // its authors share that form, so docs_in_db is what article_count gives for the suggestion.
      const byFolded = new Map<string, Counted<string>>();
      // The folded forms the authors filter matches, read from its per-segment index (without the
      // articles-by-author part, which only the filter needs), not folded again.
      const foldedNames = this.snapshot.segments.map(({ segment }) => foldedAuthorNames(segment));
      this.forEachLiveArticle((s, a) => {
        const segment = this.snapshot.segments[s]!.segment;
        const counted = new Set<string>();
        for (const id of segment.articleAuthors(a)) {
          const folded = foldedNames[s]![id]!;
          if (counted.has(folded)) continue;
          counted.add(folded);
          const entry = byFolded.get(folded) ?? { value: segment.authors.get(id), folded, count: 0 };
          entry.count++;
          byFolded.set(folded, entry);
        }
      });
      // A name without a letter or digit ("😀", "-") is left out: authors= refuses it. Tested once
      // per folded form here rather than once per article link above.
      this.authors = [...byFolded.values()].filter((entry) => isAuthorKey(entry.folded));
    }
    const needle = foldName(name);
    const takenByFilter = (value: string) => value.length <= maxNameLength || [...value].length <= maxNameLength;
    return rankMatches(this.authors, needle, limit, (folded, entry) => folded.includes(needle) && takenByFilter(entry.value)).map((e) => ({ name: e.value, docs_in_db: e.count }));
  }

  suggestJournals(keywords: string, limit: number): JournalSuggestion[] {
    if (!this.journals) {
      // One suggestion per primary ISSN; typing any ISSN of its articles (print, electronic,
      // linking) finds it.
      const byIssn = new Map<string, Counted<{ issn: string; name: string; allIssns: Set<string> }>>();
      this.forEachLiveArticle((s, a) => {
        const segment = this.snapshot.segments[s]!.segment;
        const journal = segment.articleJournal[a]!;
        if (journal === NO_VALUE) return;
        const issn = segment.journals.get(journal);
        const name = segment.journalNames.get(journal);
        const entry = byIssn.get(issn) ?? { value: { issn, name, allIssns: new Set<string>() }, folded: foldName(name), count: 0 };
        for (const id of segment.articleIssns(a)) entry.value.allIssns.add(segment.journals.get(id));
        entry.count++;
        byIssn.set(issn, entry);
      });
      this.journals = [...byIssn.values()];
    }
    // Punctuation around a word is no part of it: "Neuroscience," pasted from a citation finds the journal. A
    // hyphen stays, as ISSNs hold one.
    // Each word once: "neuro neuro" asks what "neuro" does, and ranks as it (its needle would start no name).
    const words = [...new Set(foldName(keywords).split(/[^\p{L}\p{N}-]+/u).filter(Boolean))];
    if (words.length === 0) return [];
    const needle = words.join(' ');
    const issnStarts = words.map(issnPrefix);
    return rankMatches(this.journals, needle, limit, (folded, entry) =>
      words.every((w, i) => folded.includes(w) || hasIssnStarting(entry.value.allIssns, issnStarts[i]!)),
    ).map((e) => ({ journal_name: e.value.name, journal_issn: e.value.issn, docs_in_db: e.count }));
  }
}

/** Whether one of `issns` starts with `prefix` (never for a word that is no ISSN start, null). */
function hasIssnStarting(issns: Set<string>, prefix: string | null): boolean {
  if (prefix === null) return false;
  for (const issn of issns) if (issn.startsWith(prefix)) return true;
  return false;
}

/**
 * A typed word as the start of an ISSN as stored (XXXX-XXXX, upper-case X), or null: "0007-0920"
 * and "00070920" -> "0007-0920", "0270" and "0270-" -> "0270", "027064" -> "0270-64".
 */
function issnPrefix(word: string): string | null {
  const parts = /^(\d{4})-?(\d{0,3}[\dX]?)$/.exec(word.toUpperCase());
  if (parts === null) return null;
  return parts[2] ? `${parts[1]}-${parts[2]}` : parts[1]!;
}

/** Compares as String.prototype.localeCompare does, without building a collator per call. */
const alphabetical = new Intl.Collator().compare;

/**
 * The `limit` best matches, best first: exact match, then match at the start, then at the start
 * of a word, then anywhere; within a rank, more articles first, then alphabetical, then table
 * order. Selected without sorting every match (one letter matches most authors).
 */
function rankMatches<T>(entries: Counted<T>[], needle: string, limit: number, matches: (folded: string, entry: Counted<T>) => boolean): Counted<T>[] {
  const rank = (folded: string) =>
    folded === needle ? 0 : folded.startsWith(needle) ? 1 : folded.includes(` ${needle}`) ? 2 : 3;
  function* ranked() {
    for (const e of entries) if (matches(e.folded, e)) yield { e, rank: rank(e.folded) };
  }
  return stableTopK(ranked(), limit, (x, y) => x.rank - y.rank || y.e.count - x.e.count || alphabetical(x.e.folded, y.e.folded)).map(({ e }) => e);
}
