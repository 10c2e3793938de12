/**
 * The raw answer format of the spec, shared by every generator:
 *   "<answer>\n<bbs_sources>: 3, 7"            when an answer was found
 *   "<bbs_error><explanation>\n<bbs_sources>:"  when it was not
 * so clients of the original service can split on the sources separator.
 */
import type { Context, GenerationResult } from './types.js';

export const SOURCES_SEPARATOR = '<bbs_sources>';
export const ERROR_SEPARATOR = '<bbs_error>';
const SEPARATORS = [SOURCES_SEPARATOR, ERROR_SEPARATOR];

// A separator copied into the answer (from an article, or by a prompted model) would make clients
// split the raw answer at the wrong place and read invented sources; its '<' becomes a look-alike.
// Case-insensitive, as the reference client splits.
const SEPARATOR_START = /<(?=bbs_sources>|bbs_error>)/gi;
const NEUTRAL_BRACKET = '\u2039';

/** The text with every separator made inert; no new separator can appear, since only '<' is replaced. */
export function neutraliseSeparators(text: string): string {
  return text.replace(SEPARATOR_START, NEUTRAL_BRACKET);
}

/**
 * Where a text that may still grow can be cut so that the part before it can be neutralised now:
 * before a trailing '<…' that could become a separator, else at the end.
 */
export function safeCut(text: string): number {
  const start = text.lastIndexOf('<');
  if (start < 0) return text.length;
  const tail = text.slice(start).toLowerCase();
  return SEPARATORS.some((separator) => tail.length < separator.length && separator.startsWith(tail)) ? start : text.length;
}

export function formatRawAnswer(result: Pick<GenerationResult, 'hasAnswer' | 'answer' | 'sources'>): string {
  const sources = result.sources.length > 0 ? ` ${result.sources.join(', ')}` : '';
  const prefix = result.hasAnswer ? '' : ERROR_SEPARATOR;
  return `${prefix}${result.answer}\n${SOURCES_SEPARATOR}:${sources}`;
}

/**
 * Keeps the cited ids that name one of the given contexts, first citation
 * first, without repeats. Models invent ids; those are dropped, never thrown.
 */
export function knownSources(cited: readonly unknown[], contexts: readonly Context[]): number[] {
  const known = new Set(contexts.map((c) => c.id));
  const kept: number[] = [];
  for (const id of cited) {
    if (typeof id === 'number' && known.has(id) && !kept.includes(id)) kept.push(id);
  }
  return kept;
}

/** Builds the final result; an unanswered question cites nothing. */
export function makeResult(
  hasAnswer: boolean,
  answer: string,
  cited: readonly unknown[],
  contexts: readonly Context[],
): GenerationResult {
  const sources = hasAnswer ? knownSources(cited, contexts) : [];
  const result = { hasAnswer, answer: neutraliseSeparators(answer.trim()), sources };
  return { ...result, raw: formatRawAnswer(result) };
}
