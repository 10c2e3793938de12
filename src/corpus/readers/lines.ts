import { isUtf8 } from 'node:buffer';
import type { ArticleInput } from '../model.js';
import { BYTE_ORDER_MARK, INVALID_UTF8, readChunks } from './input.js';
import type { ReadEvent, ReadOptions } from './types.js';

/**
 * The longest line kept. Its text takes several times its size while it is decoded and parsed, and
 * a line of 512 MiB cannot be a string at all: one that long ended the file there, losing every
 * line after it. Longer lines are passed over without keeping their bytes.
 */
const MAX_LINE_BYTES = 64 * 1024 * 1024;

export interface TextLine {
  /** 1-based line number in the file. */
  number: number;
  /** The line without its terminator (\n or \r\n); invalid UTF-8 sequences read as U+FFFD; empty when tooLong. */
  text: string;
  /** The line's bytes are not valid UTF-8 (its text then holds U+FFFD where they were). */
  invalidUtf8: boolean;
  /** The line is over the longest kept: its bytes were passed over. */
  tooLong: boolean;
}

/** What a reader reports for a line over `maxLineBytes`. */
export function lineTooLongMessage(maxLineBytes = MAX_LINE_BYTES): string {
  return `line over ${maxLineBytes} bytes, the longest a reader keeps`;
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * The lines of a text file, numbered, streamed with memory bounded by the longest line kept. Lines are
 * split as bytes and decoded one by one, so a line that is not valid UTF-8 is told apart (a decoder
 * over the whole stream would only have turned its bytes into U+FFFD).
 */
export async function* readLines(file: string, options: ReadOptions = {}): AsyncGenerator<TextLine> {
  const maxLineBytes = options.maxLineBytes ?? MAX_LINE_BYTES;
  // The current line's bytes read so far, in the chunks they came in: joined once, when the line ends.
  // Appending to one string instead made each chunk's search flatten the whole line again, so a line
  // of 60 MB took 8 minutes (bytes copied grew with the square of its length).
  let pieces: Buffer[] = [];
  let pieceBytes = 0;
  let overLimit = false;
  let number = 0;
  const line = (last: Buffer): TextLine => {
    number += 1;
    const tooLong = overLimit || pieceBytes + last.length > maxLineBytes;
    const bytes = tooLong || pieces.length === 0 ? last : Buffer.concat([...pieces, last]);
    pieces = [];
    pieceBytes = 0;
    overLimit = false;
    if (tooLong) return { number, text: '', invalidUtf8: false, tooLong };
    const end = bytes.length > 0 && bytes[bytes.length - 1] === CARRIAGE_RETURN ? bytes.length - 1 : bytes.length;
    const content = bytes.subarray(0, end);
    const text = content.toString('utf8');
    // A byte-order mark opens some files; JSON.parse would reject it.
    return { number, text: number === 1 && text.startsWith(BYTE_ORDER_MARK) ? text.slice(1) : text, invalidUtf8: !isUtf8(content), tooLong };
  };
  for await (const chunk of readChunks(file, options.onBytes)) {
    let start = 0;
    let end: number;
    while ((end = chunk.indexOf(NEWLINE, start)) !== -1) {
      yield line(chunk.subarray(start, end));
      start = end + 1;
    }
    if (start < chunk.length && !overLimit) {
      pieces.push(chunk.subarray(start));
      pieceBytes += chunk.length - start;
      if (pieceBytes > maxLineBytes) {
        overLimit = true;
        pieces = [];
      }
    }
  }
  if (pieces.length > 0 || overLimit) yield line(Buffer.alloc(0));
}

/**
 * The records of a JSON lines format (articles-jsonl, BEIR), one per non-blank line as `parse` reads
 * it. A line too long or not UTF-8 is reported with its number, and the lines after it are read.
 */
export async function* readJsonLineRecords(
  file: string,
  options: ReadOptions,
  parse: (text: string) => { article: ArticleInput } | { error: string },
): AsyncGenerator<ReadEvent> {
  for await (const line of readLines(file, options)) {
    const source = { file, line: line.number };
    if (line.tooLong) {
      yield { kind: 'error', source, message: lineTooLongMessage(options.maxLineBytes) };
      continue;
    }
    if (line.text.trim() === '') continue;
    if (line.invalidUtf8) {
      yield { kind: 'error', source, message: INVALID_UTF8 };
      continue;
    }
    const result = parse(line.text);
    // A generator keeps its variables while it waits at a yield, here while the article is indexed: the
    // line's text (up to maxLineBytes, a string of two bytes a character once one is not Latin-1) is let
    // go first. Held, it raised the peak of ingesting one 51 MB line by 50 to 300 MB.
    line.text = '';
    yield 'article' in result ? { kind: 'article', article: result.article, source } : { kind: 'error', source, message: result.error };
  }
}
