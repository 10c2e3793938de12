/**
 * Retrieval responses cut texts at --max-paragraph-length, so one huge
 * paragraph (a data dump, a whole table) cannot make a response of megabytes.
 * The cut says so and how long the text was.
 */
import type { ArticleMetadata } from '../../corpus/model.js';
import { isHighSurrogate } from '../../text/unicode.js';

export function cutText(text: string, limit: number): string {
  if (text.length <= limit) return text;
  // A cut between the two halves of a surrogate pair (an emoji, a rare CJK character) would leave a
  // lone surrogate, which JSON writes as "\ud83d" and strict clients (serde_json) refuse to parse.
  const end = isHighSurrogate(text.charCodeAt(limit - 1)) ? limit - 1 : limit;
  return `${text.slice(0, end)} [cut at ${limit} of ${text.length} characters]`;
}

/** The metadata with its abstract (and paragraph, for contexts) cut to the limit. */
export function cutMetadata<T extends ArticleMetadata & { paragraph?: string }>(metadata: T, limit: number): T {
  const cut = { ...metadata, abstract: cutText(metadata.abstract, limit) };
  if (metadata.paragraph !== undefined) cut.paragraph = cutText(metadata.paragraph, limit);
  return cut;
}
