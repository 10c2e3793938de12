/**
 * The `Range` header of a file download (RFC 9110 §14.2), so that a client can resume a large
 * download or read part of a file. One range is served; anything else is answered whole, as the
 * RFC lets a server do: several ranges (a multipart/byteranges answer buys clients little), another
 * unit, a header that does not parse, and ranges of an empty file.
 */
import type { ByteRange } from '../../platform/blobs.js';

/** What to send for a Range header: a part, the whole content (`whole`), or 416 (`unsatisfiable`). */
type RangeAnswer = ByteRange | 'whole' | 'unsatisfiable';

const SINGLE_RANGE = /^bytes[ \t]*=[ \t]*(?:(\d+)[ \t]*-[ \t]*(\d*)|-[ \t]*(\d+))[ \t]*$/i;

export function byteRangeOf(header: string | undefined, length: number): RangeAnswer {
  if (header === undefined || length === 0) return 'whole';
  const match = SINGLE_RANGE.exec(header);
  if (match === null) return 'whole';
  const [, first, last, suffix] = match;
  if (suffix !== undefined) {
    // The last `suffix` bytes; a suffix of zero bytes selects nothing.
    const count = Number(suffix);
    return count === 0 ? 'unsatisfiable' : { start: Math.max(0, length - count), end: length - 1 };
  }
  const start = Number(first);
  if (start >= length) return 'unsatisfiable';
  const end = last === '' ? length - 1 : Number(last);
  // A last position before the first makes the range invalid, so the header is ignored (§14.1.1).
  if (end < start) return 'whole';
  return { start, end: Math.min(end, length - 1) };
}

/**
 * Whether an `If-Range` header lets the range apply: absent, or the entity tag of these bytes
 * (compared strongly, §13.1.5). A date never matches: files carry no Last-Modified, so the whole
 * content is sent, which is always correct.
 */
export function rangeStillApplies(ifRange: string | string[] | undefined, etag: string): boolean {
  return ifRange === undefined || (typeof ifRange === 'string' && ifRange.trim() === etag);
}
