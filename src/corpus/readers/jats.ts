/**
 * Reader for JATS full text (PMC .nxml files; one <article> per file, or
 * several inside a <pmc-articleset> as returned by NCBI efetch).
 *
 * Paragraphs are the <p> elements of the article's <abstract> and <body>.
 * Tables, figures, supplementary material, the back matter (references,
 * acknowledgements, appendices) and sub-articles are left out: they are
 * either not prose or not the article's own text.
 */
import { nonEmpty, withLabel } from './normalise.js';
import type { ReadEvent, ReadOptions } from './types.js';
import { authorName, emptyRecord, recordEvent, recordLabel, sectionPath, type JatsRecord } from './jats-record.js';
import { ElementText, pathEndsWith, readXmlRecords, type XmlElement, type XmlRecordBuilder } from './xml-stream.js';

/** Subtrees whose text never reaches an article. */
const SKIPPED_ELEMENTS = new Set([
  'back',
  'floats-group',
  'sub-article',
  'response',
  'table-wrap',
  'table-wrap-group',
  'fig',
  'fig-group',
  'supplementary-material',
  'ref-list',
  // Alternatives to MathML that would otherwise spill markup source into the text.
  'tex-math',
  'mml:annotation',
  'mml:annotation-xml',
]);

/** Elements that break text inside a paragraph, so their words must not run together. */
const BLOCK_ELEMENTS = new Set([
  'p',
  'list',
  'list-item',
  'def-list',
  'def-item',
  'term',
  'def',
  'disp-formula',
  'disp-quote',
  'boxed-text',
  'break',
  'title',
  'label',
  'caption',
]);

export function readJats(file: string, options: ReadOptions = {}): AsyncGenerator<ReadEvent> {
  return readXmlRecords(file, new JatsBuilder(file), options);
}

class JatsBuilder implements XmlRecordBuilder {
  readonly formatName = 'JATS';
  readonly roots = ['article', 'pmc-articleset'];
  private record: JatsRecord | null = null;
  private recordCount = 0;
  /** Depth of the skipped element being passed over, if any. */
  private skipDepth: number | null = null;
  private readonly collected = new ElementText();
  private events: ReadEvent[] = [];

  constructor(private readonly file: string) {}

  open(element: XmlElement, path: readonly string[], line: number): void {
    if (this.skipDepth !== null) return;
    const depth = path.length;
    if (element.name === 'article' && !this.record) {
      this.recordCount += 1;
      this.record = emptyRecord(this.recordCount, line, depth, element.attributes['article-type']);
      return;
    }
    const record = this.record;
    if (!record) return;
    if (this.startsSkippedSubtree(element.name, path)) {
      this.skipDepth = depth;
      return;
    }
    if (this.collected.capturing) {
      if (BLOCK_ELEMENTS.has(element.name)) this.collected.separate();
      return;
    }
    this.openInArticle(record, element, path);
  }

  close(name: string, path: readonly string[]): void {
    const depth = path.length;
    if (this.skipDepth !== null) {
      if (depth === this.skipDepth) this.skipDepth = null;
      return;
    }
    const record = this.record;
    if (!record) return;
    if (this.collected.capturing) {
      if (!this.collected.end(depth) && BLOCK_ELEMENTS.has(name)) this.collected.separate();
      return;
    }
    const parent = path[depth - 2];
    switch (name) {
      case 'contrib':
        if (record.contributor?.depth === depth) {
          const author = authorName(record.contributor);
          if (author) record.authors.push(author);
          record.contributor = null;
        }
        break;
      case 'pub-date':
        if (record.date && parent === 'article-meta') {
          record.dates.push(record.date);
          record.date = null;
        }
        break;
      case 'abstract':
        if (record.abstract && parent === 'article-meta') {
          record.abstracts.push(record.abstract);
          record.abstract = null;
          record.sections = [];
        }
        break;
      case 'sec':
        if (record.sections.at(-1)?.depth === depth) record.sections.pop();
        break;
      case 'article':
        if (depth === record.depth) {
          this.events.push(recordEvent(record, this.file));
          this.record = null;
        }
        break;
    }
  }

  text(text: string): void {
    if (this.skipDepth === null) this.collected.append(text);
  }

  drain(): ReadEvent[] {
    const events = this.events;
    this.events = [];
    return events;
  }

  currentRecord(): string | undefined {
    return this.record ? recordLabel(this.record) : undefined;
  }

  private startsSkippedSubtree(name: string, path: readonly string[]): boolean {
    if (SKIPPED_ELEMENTS.has(name)) return true;
    const contributor = this.record?.contributor;
    if (contributor && this.collected.capturing) {
      // Affiliation markers and a collaboration's member list are not part of a name.
      return name === 'xref' || name === 'contrib-group' || name === 'sup';
    }
    return name === 'contrib-group' && path.includes('collab');
  }

  private openInArticle(record: JatsRecord, element: XmlElement, path: readonly string[]): void {
    const depth = path.length;
    const parent = path[depth - 2];
    const attributes = element.attributes;
    const collect = (deliver: (text: string) => void) => this.collected.start(depth, deliver);
    const contributor = record.contributor;

    switch (element.name) {
      case 'article-title':
        if (pathEndsWith(path, 'article-meta', 'title-group', 'article-title')) {
          collect((text) => (record.title ??= nonEmpty(text)));
        }
        break;
      case 'article-id':
        if (parent === 'article-meta') {
          const type = attributes['pub-id-type'] ?? '';
          collect((text) => {
            if (!record.ids.has(type) && text) record.ids.set(type, text);
          });
        }
        break;
      case 'issn':
        if (parent === 'journal-meta') {
          const pubType = attributes['pub-type'];
          const format = attributes['publication-format'];
          collect((value) => record.issns.push({ pubType, format, value }));
        }
        break;
      case 'journal-title':
        if (path.includes('journal-meta') && (parent === 'journal-meta' || parent === 'journal-title-group')) {
          collect((text) => (record.journal ??= nonEmpty(text)));
        }
        break;
      case 'contrib':
        if (parent === 'contrib-group' && path.includes('article-meta') && !contributor) {
          record.contributor = { depth, isAuthor: attributes['contrib-type']?.trim() === 'author' };
        }
        break;
      case 'surname':
      case 'given-names':
        // contrib/name/surname or contrib/name-alternatives/name/surname: the first name only.
        if (contributor && parent === 'name' && depth - contributor.depth <= 3) {
          const field = element.name === 'surname' ? 'surname' : 'givenNames';
          if (contributor[field] === undefined) collect((text) => (contributor[field] = text));
        }
        break;
      case 'string-name':
        if (contributor && contributor.stringName === undefined) {
          collect((text) => (contributor.stringName = text));
        }
        break;
      case 'collab':
        if (contributor && contributor.collab === undefined) collect((text) => (contributor.collab = text));
        break;
      case 'pub-date':
        if (parent === 'article-meta') {
          record.date = {
            pubType: attributes['pub-type'],
            dateType: attributes['date-type'],
            format: attributes['publication-format'],
            parts: {},
          };
        }
        break;
      case 'year':
      case 'month':
      case 'day':
        if (record.date && parent === 'pub-date') {
          const parts = record.date.parts;
          const key = element.name;
          collect((text) => (parts[key] ??= text));
        }
        break;
      case 'abstract':
        if (parent === 'article-meta') {
          record.abstract = { type: nonEmpty(attributes['abstract-type']) ?? undefined, title: null, paragraphs: [] };
          record.sections = [];
        }
        break;
      case 'sec':
        if (record.abstract || path.includes('body')) {
          record.sections.push({ depth, title: null, labelUsed: false });
        }
        break;
      case 'title':
        this.openTitle(record, parent, collect);
        break;
      case 'p':
        this.openParagraph(record, path, collect);
        break;
    }
  }

  private openTitle(
    record: JatsRecord,
    parent: string | undefined,
    collect: (deliver: (text: string) => void) => void,
  ): void {
    const section = record.sections.at(-1);
    if (parent === 'sec' && section) {
      collect((text) => (section.title = nonEmpty(text)));
    } else if (parent === 'abstract' && record.abstract) {
      const abstract = record.abstract;
      collect((text) => (abstract.title = nonEmpty(text)));
    }
  }

  private openParagraph(
    record: JatsRecord,
    path: readonly string[],
    collect: (deliver: (text: string) => void) => void,
  ): void {
    const abstract = record.abstract;
    if (abstract) {
      // A structured abstract's part title ("Background") goes in front of
      // the part's first paragraph: see withLabel for why it is not a section.
      const part = [...record.sections].reverse().find((section) => section.title !== null);
      collect((text) => {
        if (!text) return;
        const label = part && !part.labelUsed ? part.title : null;
        if (part) part.labelUsed = true;
        abstract.paragraphs.push(withLabel(label, text));
      });
    } else if (path.includes('body')) {
      const section = sectionPath(record.sections);
      collect((text) => {
        if (text) record.body.push({ section, text });
      });
    }
  }
}
