/**
 * Reader for the project's own format: one JSON article per line.
 *
 *   {"article_id": "...", "title": "...", "authors": ["..."], "article_doi": null,
 *    "pubmed_id": null, "date": "2021-03-04", "article_type": "research-article",
 *    "journal_issn": "1234-5678", "journal_name": null, "cited_by": null,
 *    "impact_factor": null, "abstract": "...",
 *    "paragraphs": [{"section": "Introduction", "text": "..."}]}
 *
 * Validation is strict, since this is the format people write by hand or
 * with their own scripts: unknown fields are rejected (a misspelt "titel"
 * would otherwise be dropped silently), so are fields given twice (JSON.parse
 * would keep the last silently), and every problem of a line is
 * reported with its line number while the rest of the file is still read.
 */
import {
  ABSTRACT_SECTION,
  ISSN_PATTERN,
  isValidDate,
  type ArticleInput,
  type ParagraphInput,
} from '../model.js';
import { readJsonLineRecords } from './lines.js';
import { quotedKey, repeatedKeys } from '../../text/repeated-keys.js';
import { codePointCount, startOf } from '../../text/unicode.js';
import type { ReadEvent, ReadOptions } from './types.js';

const DEFAULT_ARTICLE_TYPE = 'research-article';

const KNOWN_FIELDS = new Set([
  'article_id',
  'title',
  'authors',
  'article_doi',
  'pubmed_id',
  'date',
  'article_type',
  'journal_issn',
  'journal_name',
  'cited_by',
  'impact_factor',
  'abstract',
  'paragraphs',
]);
const PARAGRAPH_FIELDS = new Set(['section', 'text']);

export function readArticlesJsonl(file: string, options: ReadOptions = {}): AsyncGenerator<ReadEvent> {
  return readJsonLineRecords(file, options, parseArticleLine);
}

/** One line of articles-jsonl as an article, or a message listing everything wrong with it. */
export function parseArticleLine(text: string): { article: ArticleInput } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { error: `invalid JSON: ${(error as Error).message}` };
  }
  if (!isPlainObject(value)) return { error: 'line is not a JSON object' };
  const fields = new FieldReader(value);
  const article: ArticleInput = {
    article_id: fields.requiredText('article_id'),
    title: fields.requiredText('title').trim(),
    authors: fields.authors(),
    article_doi: fields.optionalText('article_doi'),
    pubmed_id: fields.optionalText('pubmed_id'),
    date: fields.date(),
    article_type: fields.articleType(),
    journal_issn: fields.issn(),
    journal_name: fields.optionalText('journal_name'),
    cited_by: fields.citedBy(),
    impact_factor: fields.impactFactor(),
    paragraphs: fields.paragraphs(),
  };
  for (const name of Object.keys(value)) {
    if (!KNOWN_FIELDS.has(name)) fields.problem(`unknown field ${quotedKey(name)}`);
  }
  for (const { path, key } of repeatedKeys(text)) {
    fields.problem(path === '' ? `field ${quotedKey(key)} is given twice` : `${path} has field ${quotedKey(key)} twice`);
  }
  return fields.problems.length > 0 ? { error: fields.problems.join('; ') } : { article };
}

/** Reads typed fields out of one JSON object, collecting a message per problem. */
class FieldReader {
  readonly problems: string[] = [];

  constructor(private readonly object: Record<string, unknown>) {}

  problem(message: string): void {
    this.problems.push(message);
  }

  requiredText(name: string): string {
    const value = this.object[name];
    if (value === undefined || value === null) {
      this.problem(`${name} is required`);
      return '';
    }
    if (typeof value !== 'string') {
      this.problem(`${name} must be a string, got ${describe(value)}`);
      return '';
    }
    if (value.trim() === '') this.problem(`${name} must not be empty`);
    return value;
  }

  /** A string, or null when absent, null or blank. */
  optionalText(name: string): string | null {
    const value = this.object[name];
    if (value === undefined || value === null) return null;
    if (typeof value !== 'string') {
      this.problem(`${name} must be a string or null, got ${describe(value)}`);
      return null;
    }
    return value.trim() === '' ? null : value;
  }

  authors(): string[] {
    const value = this.object.authors;
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) {
      this.problem(`authors must be an array of strings, got ${describe(value)}`);
      return [];
    }
    const authors: string[] = [];
    value.forEach((author, index) => {
      if (typeof author !== 'string') this.problem(`authors[${index}] must be a string, got ${describe(author)}`);
      else if (author.trim() !== '') authors.push(author.trim());
    });
    return authors;
  }

  date(): string | null {
    const date = this.optionalText('date');
    if (date !== null && !isValidDate(date)) {
      this.problem(`date ${JSON.stringify(date)} is not a real date written YYYY-MM-DD`);
      return null;
    }
    return date;
  }

  articleType(): string {
    const value = this.object.article_type;
    if (value === undefined || value === null) return DEFAULT_ARTICLE_TYPE;
    if (typeof value !== 'string' || value.trim() === '') {
      this.problem(`article_type must be a non-empty string, got ${describe(value)}`);
      return DEFAULT_ARTICLE_TYPE;
    }
    return value;
  }

  /** The ISSN as filters and suggestions key it: a check character `x` is stored as `X`, as they read it. */
  issn(): string | null {
    const issn = this.optionalText('journal_issn');
    if (issn === null) return null;
    const upper = issn.toUpperCase();
    if (!ISSN_PATTERN.test(upper)) {
      this.problem(`journal_issn ${JSON.stringify(issn)} is not an ISSN (XXXX-XXXX)`);
      return null;
    }
    return upper;
  }

  /** Absent means unknown (null), not zero citations. */
  citedBy(): number | null {
    const value = this.object.cited_by;
    if (value === undefined || value === null) return null;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
      this.problem(`cited_by must be a non-negative integer or null, got ${describe(value)}`);
      return null;
    }
    return value;
  }

  impactFactor(): number | null {
    const value = this.object.impact_factor;
    if (value === undefined || value === null) return null;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      this.problem(`impact_factor must be a non-negative number or null, got ${describe(value)}`);
      return null;
    }
    return value;
  }

  /**
   * The "abstract" string (split on blank lines into "Abstract" paragraphs,
   * placed first) followed by "paragraphs". Blank paragraphs are dropped, but
   * at least one paragraph with text must remain.
   */
  paragraphs(): ParagraphInput[] {
    const abstract = this.optionalText('abstract');
    const abstractParagraphs = (abstract ?? '')
      .split(/\n\s*\n/)
      .map((text) => text.trim())
      .filter((text) => text !== '')
      .map((text) => ({ section: ABSTRACT_SECTION, text }));
    const bodyParagraphs = this.listedParagraphs();
    if (abstractParagraphs.length > 0 && bodyParagraphs.some((p) => p.section === ABSTRACT_SECTION)) {
      this.problem(`give the abstract either as "abstract" or as paragraphs of section "${ABSTRACT_SECTION}", not both`);
    }
    const paragraphs = [...abstractParagraphs, ...bodyParagraphs];
    if (paragraphs.length === 0 && this.problems.length === 0) {
      this.problem('the article has no paragraph with text (paragraphs and abstract are empty or missing)');
    }
    return paragraphs;
  }

  private listedParagraphs(): ParagraphInput[] {
    const value = this.object.paragraphs;
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) {
      this.problem(`paragraphs must be an array of {section, text} objects, got ${describe(value)}`);
      return [];
    }
    const paragraphs: ParagraphInput[] = [];
    value.forEach((paragraph, index) => {
      const where = `paragraphs[${index}]`;
      if (!isPlainObject(paragraph)) {
        this.problem(`${where} must be a {section, text} object, got ${describe(paragraph)}`);
        return;
      }
      for (const name of Object.keys(paragraph)) {
        if (!PARAGRAPH_FIELDS.has(name)) this.problem(`${where} has unknown field ${quotedKey(name)}`);
      }
      const { section, text } = paragraph;
      if (typeof section !== 'string' || section.trim() === '') {
        this.problem(`${where}.section must be a non-empty string, got ${describe(section)}`);
        return;
      }
      if (typeof text !== 'string') {
        this.problem(`${where}.text must be a string, got ${describe(text)}`);
        return;
      }
      if (text.trim() !== '') paragraphs.push({ section: section.trim(), text: text.trim() });
    });
    return paragraphs;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A short description of a JSON value for error messages. */
function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  // JSON.stringify writes a non-finite number (1e400 parses to Infinity) as null.
  const text = typeof value === 'number' && !Number.isFinite(value) ? String(value) : JSON.stringify(value);
  return codePointCount(text) > 40 ? `${typeof value} ${startOf(text, 37)}...` : `${typeof value} ${text}`;
}
