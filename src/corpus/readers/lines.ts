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
  let pending = '';
  let number = 0;
  for await (const text of readText(file, onBytes)) {
    // Only the new text can hold the next line break: a very long line is
    // scanned once, not once per chunk.
    let searchFrom = pending.length;
    pending += text;
    let start = 0;
    let end: number;
    while ((end = pending.indexOf('\n', searchFrom)) !== -1) {
      number += 1;
      yield { number, text: withoutCarriageReturn(pending.slice(start, end)) };
      start = end + 1;
      searchFrom = start;
    }
    pending = pending.slice(start);
  }
  if (pending.length > 0) {
    number += 1;
    yield { number, text: withoutCarriageReturn(pending) };
  }
}

function withoutCarriageReturn(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}
