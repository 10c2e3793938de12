/**
 * Streams an XML file through a SAX parser into a record builder, so that a
 * file with thousands of records is read with memory bounded by one record.
 *
 * The first well-formedness error ends the file: what follows a broken tag
 * cannot be trusted, but the records completed before it are kept.
 */
import { characterEntities } from 'character-entities';
import { SaxesParser } from 'saxes';
import { alternatives } from '../../alternatives.js';
import { INVALID_UTF8, InvalidUtf8Error, readText } from './input.js';
import { collapseWhitespace } from './normalise.js';
import { codePointCount, startOf } from '../../text/unicode.js';
import type { ReadEvent, ReadOptions } from './types.js';

export interface XmlElement {
  name: string;
  attributes: Readonly<Record<string, string>>;
}

/**
 * Builds records from parse events. `path` holds the names of the open
 * elements, outermost first, including the one being opened or closed.
 */
export interface XmlRecordBuilder {
  open(element: XmlElement, path: readonly string[], line: number): void;
  close(name: string, path: readonly string[]): void;
  text(text: string): void;
  /** Articles and rejections completed since the previous call. */
  drain(): ReadEvent[];
  /** Names the record being built, for the error of a file that breaks off inside it. */
  currentRecord(): string | undefined;
  /** The format's name in messages, e.g. "PubMed". */
  readonly formatName: string;
  /** The root elements of the format's files: a file with another root and no record in it is not of the format. */
  readonly roots: readonly string[];
}

/**
 * Every HTML5 named character reference (2,125 names), which takes in the common names of the ISO 8879
 * and MathML entity sets (isolat1, isogrk3, isonum, isotech, mmlalias, ...) that the JATS and PubMed
 * DTDs declare: files that name the DTD in their DOCTYPE may write `&eacute;` or `&InvisibleTimes;`,
 * and the parser reads no DTD. A Map, so that `&constructor;` is no entity.
 */
const NAMED_CHARACTERS: ReadonlyMap<string, string> = new Map(Object.entries(characterEntities));

/** The longest entity name an error message repeats; a name is bounded only by MAX_TEXT_RUN. */
const MAX_NAME_SHOWN = 64;

/**
 * Has the parser resolve the HTML5 names besides XML's five (saxes's own table, consulted first), and
 * returns what tells the name it last failed to resolve, which saxes's "undefined entity" leaves out.
 * saxes reads its table only to resolve a `&name;`, so wrapping the lookup costs a call per reference
 * and spares copying 2,125 names into each file's parser.
 */
function resolveNamedCharacters(parser: SaxesParser): () => string | undefined {
  let unresolved: string | undefined;
  parser.ENTITIES = new Proxy(parser.ENTITIES, {
    get(predefined, name) {
      if (typeof name !== 'string') return undefined;
      const characters = predefined[name] ?? NAMED_CHARACTERS.get(name);
      if (characters === undefined) unresolved = name;
      return characters;
    },
  });
  return () => unresolved;
}

/** saxes's message for a name in no table, without its full stop. */
const UNDEFINED_ENTITY = 'undefined entity';

function undefinedEntityMessage(name: string): string {
  const shown = codePointCount(name) > MAX_NAME_SHOWN ? `${startOf(name, MAX_NAME_SHOWN)}…` : name;
  return `${UNDEFINED_ENTITY} &${shown}; (neither one of XML's five nor an HTML5 named character reference)`;
}

/**
 * The most characters of text (or of one tag, comment or CDATA section) between two `<`. The
 * parser keeps such a run whole until it ends: one text node of 600 M characters (a 600 KB
 * .xml.gz) took 700 MB and ended the file with "Invalid string length". A JATS paragraph,
 * tables included, is far shorter; the bound matches a JSON line's (MAX_LINE_BYTES).
 */
const MAX_TEXT_RUN = 64 * 1024 * 1024;

/** Follows the run of characters since the last `<` across chunks, before the parser holds them. */
class MarkupGap {
  private sinceMarkup = 0;

  constructor(private readonly limit: number) {}

  /** Takes the next chunk; false when it makes a run longer than the limit. */
  accept(text: string): boolean {
    const first = text.indexOf('<');
    // Runs inside one chunk are shorter than the chunk; only the one continuing from the previous chunks can be long.
    if (this.sinceMarkup + (first < 0 ? text.length : first) > this.limit) return false;
    this.sinceMarkup = first < 0 ? this.sinceMarkup + text.length : text.length - text.lastIndexOf('<') - 1;
    return true;
  }
}

interface XmlFailure {
  message: string;
  line: number;
  column: number;
  record: string | undefined;
  path: string;
}

export async function* readXmlRecords(
  file: string,
  builder: XmlRecordBuilder,
  options: ReadOptions = {},
): AsyncGenerator<ReadEvent> {
  const parser = new SaxesParser({ xmlns: false, position: true });
  const unresolvedEntity = resolveNamedCharacters(parser);
  const path: string[] = [];
  let failure: XmlFailure | null = null;
  let root: string | undefined;
  let recordsSeen = false;
  const drain = (): ReadEvent[] => {
    const events = builder.drain();
    if (events.length > 0) recordsSeen = true;
    return events;
  };
  // Where a file ends (or breaks off) having given no record: one of another format says so, rather than
  // count as an empty file of this one (a JATS <article> read as PubMed, say), or as malformed; so does
  // one with no element at all (a text file, an empty one, in a folder read with --format).
  const otherFormat = (): ReadEvent | null => {
    if (recordsSeen || (root !== undefined && builder.roots.includes(root))) return null;
    return notOfFormat(file, builder, root);
  };

  parser.on('opentag', (tag) => {
    if (failure) return;
    root ??= tag.name;
    path.push(tag.name);
    builder.open({ name: tag.name, attributes: tag.attributes as Record<string, string> }, path, parser.line);
  });
  parser.on('closetag', (tag) => {
    if (failure) return;
    builder.close(tag.name, path);
    path.pop();
  });
  const onText = (text: string) => {
    if (!failure) builder.text(text);
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('error', (error) => {
    // saxes prefixes "line:column: "; the position is reported separately.
    const message = error.message.replace(/^\d+:\d+:\s*/, '').replace(/\.$/, '');
    const entity = message === UNDEFINED_ENTITY ? unresolvedEntity() : undefined;
    failure ??= {
      message: entity === undefined ? message : undefinedEntityMessage(entity),
      line: parser.line,
      column: parser.column,
      record: builder.currentRecord(),
      path: path.join('/'),
    };
  });

  const maxTextRun = options.maxTextRun ?? MAX_TEXT_RUN;
  const gap = new MarkupGap(maxTextRun);
  try {
    for await (const text of readText(file, options.onBytes)) {
      if (!gap.accept(text)) {
        const message = `over ${maxTextRun} characters without markup, the longest run a reader keeps`;
        yield otherFormat() ?? failureEvent(file, { message, line: parser.line, column: parser.column, record: builder.currentRecord(), path: path.join('/') });
        return;
      }
      parser.write(text);
      yield* drain();
      if (failure) {
        yield otherFormat() ?? failureEvent(file, failure);
        return;
      }
    }
  } catch (error) {
    if (!(error instanceof InvalidUtf8Error)) throw error;
    // Where the parser stands is where the bytes stopped being text. Bytes that are no text before any
    // element are said as such (a UTF-16 file is named as not UTF-8), not as a file of no element.
    yield (root === undefined ? null : otherFormat()) ??
      failureEvent(file, { message: INVALID_UTF8, line: parser.line, column: parser.column, record: builder.currentRecord(), path: path.join('/') });
    return;
  }
  parser.close();
  yield* drain();
  const ending = otherFormat() ?? (failure && failureEvent(file, failure));
  if (ending) yield ending;
}

function notOfFormat(file: string, builder: XmlRecordBuilder, root: string | undefined): ReadEvent {
  const roots = alternatives(builder.roots.map((name) => `<${name}>`));
  const why = root === undefined ? `no XML element in it (its root would be ${roots})` : `its root element is <${root}>, not ${roots}`;
  return { kind: 'unrecognised', source: { file }, message: `not ${builder.formatName} XML: ${why}` };
}

function failureEvent(file: string, failure: XmlFailure): ReadEvent {
  const where = failure.path ? ` inside <${failure.path}>` : '';
  return {
    kind: 'error',
    source: { file, line: failure.line, element: failure.record ?? (failure.path || undefined) },
    message:
      `malformed XML at line ${failure.line}, column ${failure.column}${where}: ${failure.message}; ` +
      'the rest of the file is skipped',
  };
}

/** True when `path` ends with the element names in `suffix`. */
export function pathEndsWith(path: readonly string[], ...suffix: string[]): boolean {
  if (suffix.length > path.length) return false;
  const offset = path.length - suffix.length;
  return suffix.every((name, i) => path[offset + i] === name);
}

/**
 * Collects the text content of one element at a time, including the text of
 * inline markup inside it (<italic>, <sub>, <xref>, ...), and hands it over,
 * whitespace collapsed, when the element closes.
 */
export class ElementText {
  private active: { depth: number; parts: string[]; deliver: (text: string) => void } | null = null;

  get capturing(): boolean {
    return this.active !== null;
  }

  /** Starts collecting for the element just opened at `path.length === depth`. */
  start(depth: number, deliver: (text: string) => void): void {
    this.active = { depth, parts: [], deliver };
  }

  append(text: string): void {
    this.active?.parts.push(text);
  }

  /** Keeps block-level children such as list items from running together. */
  separate(): void {
    this.active?.parts.push(' ');
  }

  /** Call on every close; delivers and returns true when the collected element closes. */
  end(depth: number): boolean {
    const active = this.active;
    if (!active || active.depth !== depth) return false;
    this.active = null;
    active.deliver(collapseWhitespace(active.parts.join('')));
    return true;
  }
}
