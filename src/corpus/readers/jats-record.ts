/**
 * One JATS article as it is being read, and its conversion to an ArticleInput
 * once its closing tag is reached.
 *
 * article_id is the PMID when the article has one (so the same article read
 * from PubMed XML or JATS gets the same id), else the DOI, else the PMC id
 * ("PMC" + number), else the file's base name (with "#n" for the n-th
 * article of a multi-article file).
 */
import path from 'node:path';
import { ABSTRACT_SECTION, type ArticleInput, type ParagraphInput } from '../model.js';
import { isoDate, type DateParts } from './dates.js';
import { distinctValid, nonEmpty, normaliseDoi, normaliseIssn } from './normalise.js';
import type { ReadEvent } from './types.js';

/** Section of paragraphs that sit directly in <body>, outside any titled <sec>. */
const BODY_SECTION = 'Body';
const DEFAULT_ARTICLE_TYPE = 'research-article';

interface Contributor {
  depth: number;
  isAuthor: boolean;
  givenNames?: string;
  surname?: string;
  stringName?: string;
  collab?: string;
}

interface PublicationDate {
  pubType: string | undefined;
  dateType: string | undefined;
  format: string | undefined;
  parts: DateParts;
}

interface Abstract {
  type: string | undefined;
  title: string | null;
  paragraphs: string[];
}

interface OpenSection {
  depth: number;
  title: string | null;
  /** Whether the title was already put in front of an abstract paragraph. */
  labelUsed: boolean;
}

export interface JatsRecord {
  index: number;
  line: number;
  depth: number;
  articleType: string;
  title: string | null;
  ids: Map<string, string>;
  issns: { pubType: string | undefined; format: string | undefined; value: string }[];
  journal: string | null;
  authors: string[];
  contributor: Contributor | null;
  dates: PublicationDate[];
  date: PublicationDate | null;
  abstracts: Abstract[];
  abstract: Abstract | null;
  sections: OpenSection[];
  body: ParagraphInput[];
}

/** The finished article, or why it cannot be one. */
export function recordEvent(record: JatsRecord, file: string): ReadEvent {
  const label = recordLabel(record);
  const source = { file, line: record.line, element: label };
  if (!record.title) {
    return { kind: 'error', source, message: `${label} has no title (article-meta/title-group/article-title)` };
  }
  const paragraphs = [...abstractParagraphs(record.abstracts), ...record.body];
  if (paragraphs.length === 0) {
    return { kind: 'error', source, message: `${label} has no paragraph (<p>) in its <abstract> or <body>` };
  }
  const pmid = nonEmpty(record.ids.get('pmid'));
  const doi = normaliseDoi(record.ids.get('doi'));
  const article: ArticleInput = {
    article_id: pmid ?? doi ?? pmcId(record) ?? fallbackId(record, file),
    title: record.title,
    authors: record.authors,
    article_doi: doi,
    pubmed_id: pmid,
    date: publicationDate(record.dates),
    article_type: record.articleType,
    journal_issn: journalIssns(record.issns)[0] ?? null,
    journal_issns: journalIssns(record.issns),
    journal_name: record.journal,
    cited_by: null,
    impact_factor: null,
    paragraphs,
  };
  return { kind: 'article', article, source };
}

function fallbackId(record: JatsRecord, file: string): string {
  const base = path.basename(file).replace(/(\.(nxml|xml|gz))+$/i, '');
  return record.index > 1 ? `${base}#${record.index}` : base;
}

export function emptyRecord(index: number, line: number, depth: number, articleType: string | undefined): JatsRecord {
  return {
    index,
    line,
    depth,
    articleType: nonEmpty(articleType) ?? DEFAULT_ARTICLE_TYPE,
    title: null,
    ids: new Map(),
    issns: [],
    journal: null,
    authors: [],
    contributor: null,
    dates: [],
    date: null,
    abstracts: [],
    abstract: null,
    sections: [],
    body: [],
  };
}

export function recordLabel(record: JatsRecord): string {
  // A lone <article> is the file's root; in a <pmc-articleset> the position tells them apart.
  return record.depth === 1 ? 'article' : `article #${record.index}`;
}

/**
 * Bounds on a section name. Every paragraph stores its section, so titles nested thousands deep, or
 * one long title over thousands of paragraphs, would multiply a small file into gigabytes (5,000
 * nested sections, a 290 KB file, took 650 MB to ingest). Real articles nest a few levels deep, with
 * titles of a line.
 */
const MAX_SECTION_TITLES = 6;
const MAX_SECTION_TITLE_CHARS = 200;

/**
 * The titles of the open sections, outermost first: "Methods / Animals". Deeper than
 * MAX_SECTION_TITLES, the outermost and the innermost ones, with "…" for those left out.
 */
export function sectionPath(sections: readonly OpenSection[]): string {
  // Read from the innermost out, and from the outermost in, never the whole depth: this runs for every paragraph.
  const innermost: string[] = [];
  let rest = sections.length;
  while (rest > 0 && innermost.length < MAX_SECTION_TITLES) {
    const title = sections[--rest]!.title;
    if (title !== null) innermost.unshift(title);
  }
  if (innermost.length === 0) return BODY_SECTION;
  let outer = 0;
  while (outer < rest && sections[outer]!.title === null) outer++;
  const shown = outer === rest ? innermost : [sections[outer]!.title!, '…', ...innermost.slice(1)];
  return shown.map(shortTitle).join(' / ');
}

/** A section title cut to MAX_SECTION_TITLE_CHARS, ending in "…" when cut. */
function shortTitle(title: string): string {
  if (title.length <= MAX_SECTION_TITLE_CHARS) return title;
  // Not half of a surrogate pair either.
  return `${title.slice(0, MAX_SECTION_TITLE_CHARS - 1).replace(/[\ud800-\udbff]$/, '')}…`;
}

/**
 * The main abstract (the first without an abstract-type, else the first)
 * becomes the "Abstract" paragraphs. Other abstracts such as PLoS's "Author
 * Summary" are kept as sections named by their own title, so their text is
 * searchable without being mistaken for the abstract.
 */
function abstractParagraphs(abstracts: readonly Abstract[]): ParagraphInput[] {
  const mainIndex = Math.max(
    0,
    abstracts.findIndex((abstract) => abstract.type === undefined),
  );
  const main = abstracts[mainIndex];
  const others = abstracts.filter((_, index) => index !== mainIndex);
  return [
    ...(main?.paragraphs.map((text) => ({ section: ABSTRACT_SECTION, text })) ?? []),
    ...others.flatMap((abstract) =>
      abstract.paragraphs.map((text) => ({ section: abstract.title === null ? 'Summary' : shortTitle(abstract.title), text })),
    ),
  ];
}

export function authorName(contributor: Contributor): string | null {
  if (!contributor.isAuthor) return null;
  const name = [contributor.givenNames, contributor.surname].filter(Boolean).join(' ');
  return nonEmpty(name) ?? nonEmpty(contributor.stringName) ?? nonEmpty(contributor.collab);
}

function pmcId(record: JatsRecord): string | null {
  const id = nonEmpty(record.ids.get('pmc') ?? record.ids.get('pmcid'));
  if (!id) return null;
  return /^PMC/i.test(id) ? id.toUpperCase() : `PMC${id}`;
}

/** Every valid ISSN, distinct: the electronic one first, then print, then any other. */
function journalIssns(issns: JatsRecord['issns']): string[] {
  const rank = (issn: JatsRecord['issns'][number]) => {
    if (issn.pubType === 'epub' || issn.format === 'electronic') return 0;
    if (issn.pubType === 'ppub' || issn.format === 'print') return 1;
    return 2;
  };
  const ranked = [...issns].sort((a, b) => rank(a) - rank(b));
  return distinctValid(ranked.map((issn) => normaliseIssn(issn.value)));
}

/** The electronic publication date, else print, else the issue (collection) date, else any. */
function publicationDate(dates: readonly PublicationDate[]): string | null {
  const rank = (date: PublicationDate) => {
    if (date.pubType === 'epub' || date.format === 'electronic') return 0;
    if (date.pubType === 'ppub' || date.pubType === 'epub-ppub' || date.format === 'print') return 1;
    if (date.pubType === 'collection' || date.dateType === 'collection') return 2;
    return 3;
  };
  const ranked = [...dates].sort((a, b) => rank(a) - rank(b));
  for (const date of ranked) {
    const iso = isoDate(date.parts);
    if (iso) return iso;
  }
  return null;
}
