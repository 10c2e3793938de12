/**
 * --max-query-length, alike on every route that takes a `query`: over it is
 * 413 code 4 naming the count and the limit (the reference caps questions with
 * 413; a schema maxLength would have made /retrieval/'s a 422 in Ajv's words).
 */
import { defaultOf } from '../../config.js';
import { ApiError, ErrorCode } from '../errors.js';
import { codePointCount } from '../../text/unicode.js';

/** `query`, or 413 code 4 when it is longer than `limit` characters: code points, as users count them (an emoji is one, not two UTF-16 units). */
export function withinQueryLength(query: string, limit: number): string {
  const characters = codePointCount(query);
  if (characters > limit) throw new ApiError(413, ErrorCode.INPUT_TOO_LARGE, `query is ${characters} characters; the limit is ${limit} (--max-query-length)`);
  return query;
}

/** What a schema's `query` says of its length, for the OpenAPI document. */
export const QUERY_LENGTH_DESCRIPTION = `At most --max-query-length characters (${defaultOf('maxQueryLength').toLocaleString('en')} by default); a longer one is 413 code 4.`;
