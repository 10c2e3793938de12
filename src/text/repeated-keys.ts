/**
 * Finds keys given twice in one JSON object. JSON.parse keeps the last value
 * and says nothing, so a field pasted twice, or an edit that added a field
 * instead of replacing it, silently decided which title or text was indexed.
 */

/** A container being scanned: an object (with the keys seen so far) or an array (with its element count). */
interface Container {
  /** Where it lies in the document, as messages name it: "" for the line's object, "paragraphs[2]". */
  path: string;
  keys: Set<string> | null;
  /** In an object: the last key read, which names the next container opened. In an array: the element index. */
  lastKey: string;
  index: number;
  expectingKey: boolean;
}

export interface RepeatedKey {
  /** The object holding the key, as a path ("" for the outermost object). */
  path: string;
  key: string;
}

/**
 * Every key repeated within one object, in the order found. The text must be
 * valid JSON (JSON.parse it first): the scan follows only strings, brackets
 * and commas, crossing each string with indexOf, so it costs a fraction of the
 * parse (0.3 to 0.7 of it on SciFact's lines).
 */
export function repeatedKeys(text: string): RepeatedKey[] {
  const repeated: RepeatedKey[] = [];
  const open: Container[] = [];
  for (let at = 0; at < text.length; at++) {
    const char = text.charCodeAt(at);
    const current = open.at(-1);
    if (char === QUOTE) {
      const end = closingQuote(text, at);
      if (current?.keys && current.expectingKey) {
        const raw = text.slice(at + 1, end);
        // Escapes are decoded as JSON.parse does, so "\u0074itle" repeats "title".
        const key = raw.includes('\\') ? (JSON.parse(text.slice(at, end + 1)) as string) : raw;
        if (current.keys.has(key)) repeated.push({ path: current.path, key });
        current.keys.add(key);
        current.lastKey = key;
        current.expectingKey = false;
      }
      at = end;
    } else if (char === OPEN_BRACE || char === OPEN_BRACKET) {
      open.push({ path: childPath(current), keys: char === OPEN_BRACE ? new Set() : null, lastKey: '', index: 0, expectingKey: char === OPEN_BRACE });
    } else if (char === CLOSE_BRACE || char === CLOSE_BRACKET) {
      open.pop();
    } else if (char === COMMA && current) {
      if (current.keys) current.expectingKey = true;
      else current.index++;
    }
  }
  return repeated;
}

/**
 * How many keys a valid JSON text writes in all its objects, repeats included: the strings a colon
 * follows. JSON.parse keeps one of each repeated key, so a parse that holds fewer keys than this holds
 * a repeat; counting makes no key's text and no set: a fifth of repeatedKeys' time or less on 100,000 keys.
 */
export function writtenKeyCount(text: string): number {
  let keys = 0;
  // Outside strings a quote only opens one: each is found from the end of the last.
  for (let at = text.indexOf('"'); at !== -1; at = text.indexOf('"', at + 1)) {
    at = closingQuote(text, at);
    let next = at + 1;
    while (JSON_WHITESPACE.has(text.charCodeAt(next))) next++;
    if (text.charCodeAt(next) === COLON) keys++;
  }
  return keys;
}

const JSON_WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
const COLON = 0x3a;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** The index of the quote closing the string opened at `start`: the next one not escaped by an odd run of backslashes. */
function closingQuote(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  while (end !== -1) {
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
  throw new Error('unterminated string: repeatedKeys takes only text JSON.parse accepted');
}

function childPath(parent: Container | undefined): string {
  if (!parent) return '';
  if (!parent.keys) return `${parent.path}[${parent.index}]`;
  if (!PLAIN_NAME.test(parent.lastKey)) return `${parent.path}[${quotedKey(parent.lastKey)}]`;
  return parent.path === '' ? parent.lastKey : `${parent.path}.${parent.lastKey}`;
}

const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * A key of the corpus as messages quote it: JSON, with the characters JSON leaves as they are but a
 * terminal or a log viewer acts on (DEL, C1 controls such as CSI, line separators, bidirectional
 * controls) escaped too, so no key can rewrite or reorder the ingest output around it.
 */
export function quotedKey(key: string): string {
  return JSON.stringify(key).replace(UNSAFE_IN_OUTPUT, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const UNSAFE_IN_OUTPUT = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
