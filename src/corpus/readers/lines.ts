import { isUtf8 } from 'node:buffer';
import { BYTE_ORDER_MARK, readChunks } from './input.js';

export interface TextLine {
  /** 1-based line number in the file. */
  number: number;
  /** The line without its terminator (\n or \r\n); invalid UTF-8 sequences read as U+FFFD. */
  text: string;
  /** The line's bytes are not valid UTF-8 (its text then holds U+FFFD where they were). */
  invalidUtf8: boolean;
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * The lines of a text file, numbered, streamed with memory bounded by the longest line. Lines are
 * split as bytes and decoded one by one, so a line that is not valid UTF-8 is told apart (a decoder
 * over the whole stream would only have turned its bytes into U+FFFD).
 */
export async function* readLines(file: string, onBytes?: (bytesRead: number) => void): AsyncGenerator<TextLine> {
  // The current line's bytes read so far, in the chunks they came in: joined once, when the line ends.
  // Appending to one string instead made each chunk's search flatten the whole line again, so a line
  // of 60 MB took 8 minutes (bytes copied grew with the square of its length).
  let pieces: Buffer[] = [];
  let number = 0;
  const line = (last: Buffer): TextLine => {
    const bytes = pieces.length === 0 ? last : Buffer.concat([...pieces, last]);
    pieces = [];
    number += 1;
    const end = bytes.length > 0 && bytes[bytes.length - 1] === CARRIAGE_RETURN ? bytes.length - 1 : bytes.length;
    const content = bytes.subarray(0, end);
    const text = content.toString('utf8');
    // A byte-order mark opens some files; JSON.parse would reject it.
    return { number, text: number === 1 && text.startsWith(BYTE_ORDER_MARK) ? text.slice(1) : text, invalidUtf8: !isUtf8(content) };
  };
  for await (const chunk of readChunks(file, onBytes)) {
    let start = 0;
    let end: number;
    while ((end = chunk.indexOf(NEWLINE, start)) !== -1) {
      yield line(chunk.subarray(start, end));
      start = end + 1;
    }
    if (start < chunk.length) pieces.push(chunk.subarray(start));
  }
  if (pieces.length > 0) yield line(Buffer.alloc(0));
}
