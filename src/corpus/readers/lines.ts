import { readText } from './input.js';

export interface TextLine {
  /** 1-based line number in the file. */
  number: number;
  /** The line without its terminator (\n or \r\n). */
  text: string;
}

/** The lines of a text file, numbered, streamed with memory bounded by the longest line. */
export async function* readLines(
  file: string,
  onBytes?: (bytesRead: number) => void,
): AsyncGenerator<TextLine> {
  // The current line's text read so far, in the pieces it came in: joined once, when its line ends.
  // Appending to one string instead made each chunk's search flatten the whole line again, so a line
  // of 60 MB took 8 minutes (bytes copied grew with the square of its length).
  let pieces: string[] = [];
  let number = 0;
  for await (const text of readText(file, onBytes)) {
    let start = 0;
    let end: number;
    while ((end = text.indexOf('\n', start)) !== -1) {
      pieces.push(text.slice(start, end));
      number += 1;
      yield { number, text: withoutCarriageReturn(pieces.join('')) };
      pieces = [];
      start = end + 1;
    }
    if (start < text.length) pieces.push(text.slice(start));
  }
  if (pieces.length > 0) {
    number += 1;
    yield { number, text: withoutCarriageReturn(pieces.join('')) };
  }
}

function withoutCarriageReturn(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}
