/**
 * Reader for MEDLINE/PubMed citation XML, optionally gzipped: <PubmedArticleSet>
 * files of <PubmedArticle> records (e.g. the annual baseline), and MEDLINE-format
 * <MedlineCitationSet> files of bare <MedlineCitation> records (NLM's older
 * MEDLINE distributions and some exports), which are the <MedlineCitation> of a
 * <PubmedArticle> without its <PubmedData> (so their DOI can only come from
 * ELocationID). Records are built one at a time from SAX events, so memory
 * stays bounded by the largest record whatever the file size.
 *
 * Records become articles (a revised citation in a daily update file replaces
 * the earlier one, as any repeated article id does); each PMID of a
 * <DeleteCitation>, in either kind of set, becomes a deletion;
 * <PubmedBookArticle> entries are ignored.
 */
import { ABSTRACT_SECTION, type ArticleInput } from '../model.js';
import { isoDate, medlineDateParts, type DateParts } from './dates.js';
import { distinctValid, nonEmpty, normaliseDoi, normaliseIssn, slug, withLabel } from './normalise.js';
import type { ReadEvent, ReadOptions } from './types.js';
import { ElementText, pathEndsWith, readXmlRecords, type XmlElement, type XmlRecordBuilder } from './xml-stream.js';

const RECORD = 'PubmedArticle';
/** A record of its own outside a <PubmedArticle>; inside one it is part of that record. */
const CITATION = 'MedlineCitation';
const DELETION = 'DeleteCitation';

interface AuthorParts {
  valid: boolean;
  lastName?: string;
  foreName?: string;
  initials?: string;
  collectiveName?: string;
}

interface PubmedRecord {
  /** The record's element: PubmedArticle, or a bare MedlineCitation. */
  element: typeof RECORD | typeof CITATION;
  index: number;
  line: number;
  depth: number;
  pmid: string | null;
  title: string | null;
  authors: string[];
  author: AuthorParts | null;
  locationDoi: string | null;
  articleIdDoi: string | null;
  issns: { type: string | undefined; value: string }[];
  linkingIssn: string | null;
  journal: string | null;
  articleDate: DateParts | null;
  pubDate: DateParts | null;
  publicationTypes: string[];
  abstract: { label: string | null; text: string }[];
}

export function readPubmed(file: string, options: ReadOptions = {}): AsyncGenerator<ReadEvent> {
  return readXmlRecords(file, new PubmedBuilder(file), options);
}

class PubmedBuilder implements XmlRecordBuilder {
  readonly formatName = 'PubMed';
  readonly roots = ['PubmedArticleSet', RECORD, 'MedlineCitationSet', CITATION];
  private record: PubmedRecord | null = null;
  private recordCount = 0;
  private readonly collected = new ElementText();
  private events: ReadEvent[] = [];

  constructor(private readonly file: string) {}

  open(element: XmlElement, path: readonly string[], line: number): void {
    if (element.name === 'PMID' && path[path.length - 2] === DELETION && !this.record && !this.collected.capturing) {
      const source = { file: this.file, line, element: DELETION };
      this.collected.start(path.length, (text) => {
        if (text) this.events.push({ kind: 'delete', articleId: text, source });
      });
      return;
    }
    if ((element.name === RECORD || element.name === CITATION) && !this.record) {
      this.recordCount += 1;
      this.record = emptyRecord(element.name, this.recordCount, line, path.length);
      return;
    }
    const record = this.record;
    if (!record || this.collected.capturing) return;
    const depth = path.length;
    const parent = path[depth - 2];
    const attributes = element.attributes;
    const collect = (deliver: (text: string) => void) => this.collected.start(depth, deliver);

    switch (element.name) {
      case 'PMID':
        if (parent === CITATION) collect((text) => (record.pmid ??= nonEmpty(text)));
        break;
      case 'ArticleTitle':
        if (parent === 'Article') collect((text) => (record.title ??= nonEmpty(text)));
        break;
      case 'Author':
        if (pathEndsWith(path, 'Article', 'AuthorList', 'Author')) {
          record.author = { valid: attributes.ValidYN !== 'N' };
        }
        break;
      case 'LastName':
      case 'ForeName':
      case 'Initials':
      case 'CollectiveName':
        if (parent === 'Author' && record.author) {
          const author = record.author;
          const field = authorField(element.name);
          collect((text) => (author[field] = text));
        }
        break;
      case 'ELocationID':
        if (parent === 'Article' && attributes.EIdType === 'doi' && attributes.ValidYN !== 'N') {
          collect((text) => (record.locationDoi ??= normaliseDoi(text)));
        }
        break;
      case 'ArticleId':
        if (pathEndsWith(path, 'PubmedData', 'ArticleIdList', 'ArticleId') && attributes.IdType === 'doi') {
          collect((text) => (record.articleIdDoi ??= normaliseDoi(text)));
        }
        break;
      case 'ISSN':
        if (parent === 'Journal') collect((value) => record.issns.push({ type: attributes.IssnType, value }));
        break;
      case 'ISSNLinking':
        if (parent === 'MedlineJournalInfo') collect((text) => (record.linkingIssn = text));
        break;
      case 'Title':
        if (parent === 'Journal') collect((text) => (record.journal ??= nonEmpty(text)));
        break;
      case 'ArticleDate':
        if (parent === 'Article') record.articleDate ??= {};
        break;
      case 'PubDate':
        if (pathEndsWith(path, 'JournalIssue', 'PubDate')) record.pubDate = {};
        break;
      case 'Year':
      case 'Month':
      case 'Day': {
        const parts = this.datePartsFor(record, path);
        const key = element.name === 'Year' ? 'year' : element.name === 'Month' ? 'month' : 'day';
        if (parts) collect((text) => (parts[key] ??= text));
        break;
      }
      case 'MedlineDate':
        if (pathEndsWith(path, 'JournalIssue', 'PubDate', 'MedlineDate')) {
          collect((text) => Object.assign((record.pubDate ??= {}), medlineDateParts(text)));
        }
        break;
      case 'PublicationType':
        if (parent === 'PublicationTypeList') collect((text) => record.publicationTypes.push(text));
        break;
      case 'AbstractText':
        if (pathEndsWith(path, 'Article', 'Abstract', 'AbstractText')) {
          const label = nonEmpty(attributes.Label);
          collect((text) => record.abstract.push({ label, text }));
        }
        break;
    }
  }

  close(name: string, path: readonly string[]): void {
    const record = this.record;
    if (!record) {
      this.collected.end(path.length); // a DeleteCitation PMID
      return;
    }
    if (this.collected.capturing) {
      this.collected.end(path.length);
      return;
    }
    if (name === 'Author' && record.author) {
      const author = authorName(record.author);
      if (author) record.authors.push(author);
      record.author = null;
    } else if (name === record.element && path.length === record.depth) {
      this.events.push(this.finish(record));
      this.record = null;
    }
  }

  text(text: string): void {
    this.collected.append(text);
  }

  drain(): ReadEvent[] {
    const events = this.events;
    this.events = [];
    return events;
  }

  currentRecord(): string | undefined {
    return this.record ? recordLabel(this.record) : undefined;
  }

  /** The date being read when a Year/Month/Day opens at `path`, if it is one of the two dates used. */
  private datePartsFor(record: PubmedRecord, path: readonly string[]): DateParts | null {
    const [grandparent, parent] = path.slice(-3, -1);
    if (grandparent === 'Article' && parent === 'ArticleDate') return record.articleDate;
    if (grandparent === 'JournalIssue' && parent === 'PubDate') return record.pubDate;
    return null;
  }

  private finish(record: PubmedRecord): ReadEvent {
    const label = recordLabel(record);
    const source = { file: this.file, line: record.line, element: label };
    if (!record.pmid) {
      return { kind: 'error', source, message: `${label} has no PMID (MedlineCitation/PMID)` };
    }
    if (!record.title) {
      return { kind: 'error', source, message: `${label} (PMID ${record.pmid}) has no ArticleTitle` };
    }
    const paragraphs = record.abstract
      .filter((part) => part.text.length > 0)
      .map((part) => ({ section: ABSTRACT_SECTION, text: withLabel(part.label, part.text) }));
    if (paragraphs.length === 0) {
      return {
        kind: 'error',
        source,
        message: `${label} (PMID ${record.pmid}) has no abstract text, so it has no paragraph to index`,
      };
    }
    const article: ArticleInput = {
      article_id: record.pmid,
      title: record.title,
      authors: record.authors,
      article_doi: record.locationDoi ?? record.articleIdDoi,
      pubmed_id: record.pmid,
      date: (record.articleDate && isoDate(record.articleDate)) ?? (record.pubDate && isoDate(record.pubDate)),
      article_type: articleTypeOf(record.publicationTypes),
      article_types: articleTypesOf(record.publicationTypes),
      journal_issn: journalIssns(record)[0] ?? null,
      journal_issns: journalIssns(record),
      journal_name: record.journal,
      cited_by: null,
      impact_factor: null,
      paragraphs,
    };
    return { kind: 'article', article, source };
  }
}

function emptyRecord(element: PubmedRecord['element'], index: number, line: number, depth: number): PubmedRecord {
  return {
    element,
    index,
    line,
    depth,
    pmid: null,
    title: null,
    authors: [],
    author: null,
    locationDoi: null,
    articleIdDoi: null,
    issns: [],
    linkingIssn: null,
    journal: null,
    articleDate: null,
    pubDate: null,
    publicationTypes: [],
    abstract: [],
  };
}

function recordLabel(record: PubmedRecord): string {
  return `${record.element} #${record.index}`;
}

function authorField(element: string): 'lastName' | 'foreName' | 'initials' | 'collectiveName' {
  switch (element) {
    case 'LastName':
      return 'lastName';
    case 'ForeName':
      return 'foreName';
    case 'Initials':
      return 'initials';
    default:
      return 'collectiveName';
  }
}

/** "ForeName LastName" (initials when there is no fore name), or the collective name. */
function authorName(author: AuthorParts): string | null {
  // ValidYN="N" marks a name that was published wrongly and later corrected.
  if (!author.valid) return null;
  if (author.lastName) return [author.foreName ?? author.initials, author.lastName].filter(Boolean).join(' ');
  return nonEmpty(author.collectiveName);
}

/** Every valid ISSN, distinct: the electronic one first, then print, then the linking ISSN. */
function journalIssns(record: PubmedRecord): string[] {
  const byPreference = [
    ...record.issns.filter((issn) => issn.type === 'Electronic'),
    ...record.issns.filter((issn) => issn.type !== 'Electronic'),
  ];
  return distinctValid([...byPreference.map((issn) => normaliseIssn(issn.value)), normaliseIssn(record.linkingIssn)]);
}

/** Every publication type as a slug, the primary one (articleTypeOf) first. */
function articleTypesOf(publicationTypes: readonly string[]): string[] {
  const all = publicationTypes.map((type) => type.trim()).filter(Boolean).map(slug);
  return distinctValid([articleTypeOf(publicationTypes), ...all]);
}

/**
 * The article type as a slug of a PubMed publication type: "Review" wins when
 * present (reviews are what users most often filter for or against); else the
 * first type more specific than "Journal Article" that describes the article
 * rather than its funding or language; else "journal-article".
 */
export function articleTypeOf(publicationTypes: readonly string[]): string {
  const types = publicationTypes.map((type) => type.trim()).filter(Boolean);
  if (types.includes('Review')) return 'review';
  const specific = types.find(
    (type) => type !== 'Journal Article' && !/^Research Support\b/.test(type) && type !== 'English Abstract',
  );
  return slug(specific ?? 'Journal Article');
}
