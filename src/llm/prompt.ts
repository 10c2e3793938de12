/**
 * The prompt given to the language model, after the reference service
 * (scholarag-reference section 2): a system instruction, then
 * "QUESTION: ..." and the numbered contexts between "=========" rules.
 */
import type { Context } from './types.js';

export const SYSTEM_PROMPT = [
  'You answer questions about scientific articles using only the numbered contexts given with the question.',
  'Reply with a JSON object with three fields:',
  '- has_answer: true when the contexts contain the answer, false otherwise.',
  '- answer: when has_answer is true, a concise answer based on the contexts; when it is false, one sentence saying that the contexts do not answer the question.',
  '- sources: the Source numbers of the contexts the answer relies on, most important first; empty when has_answer is false.',
  'Do not use knowledge from outside the contexts and do not cite a Source number that is not listed.',
].join('\n');

/** One context as the prompt numbers it. */
export function contextBlock(context: Context): string {
  return [context.title ? `Title: ${context.title}` : null, `Content: ${context.text}`, `Source: ${context.id}`]
    .filter((line) => line !== null)
    .join('\n');
}

export function userMessage(question: string, contexts: readonly Context[]): string {
  return ['QUESTION: ' + question, '=========', ...contexts.map(contextBlock), '=========', 'FINAL ANSWER:'].join('\n');
}

/** The whole prompt for models without a chat template, which simply continue the text. */
export function completionPrompt(question: string, contexts: readonly Context[]): string {
  return `${SYSTEM_PROMPT}\n\n${userMessage(question, contexts)}\n`;
}

export interface PromptMeasure<T> {
  /** Tokens of the whole prompt with these contexts. */
  prompt(kept: readonly T[]): number;
  /** Tokens one context adds to the prompt (measured alone, so about what it adds). */
  context(context: T): number;
}

// Contexts measured between two turns of the event loop: tokenising is synchronous, and hundreds of
// retrieved paragraphs took a third of a second, during which the server answered nothing.
const CONTEXTS_PER_TURN = 16;

/**
 * Chooses the contexts the prompt carries within `budget` tokens: best-ranked
 * first, each that still fits; one that does not is skipped, so a single huge
 * paragraph cannot push out everything ranked below it. Each context is
 * tokenised once, and the whole prompt about once more: contexts measured
 * apart may tokenise a little differently joined, so the lowest-ranked are
 * dropped until the whole prompt fits (a binary search).
 * Resolves to null when even the question alone does not fit.
 */
export async function fitContexts<T>(contexts: readonly T[], measure: PromptMeasure<T>, budget: number): Promise<T[] | null> {
  let used = measure.prompt([]);
  if (used > budget) return null;
  const chosen: T[] = [];
  for (const [index, context] of contexts.entries()) {
    if (used >= budget) break; // every context takes at least a token
    if (index > 0 && index % CONTEXTS_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
    const size = measure.context(context);
    if (used + size > budget) continue;
    chosen.push(context);
    used += size;
  }
  return longestFittingPrefix(chosen, measure.prompt, budget);
}

function longestFittingPrefix<T>(contexts: readonly T[], countTokens: (kept: readonly T[]) => number, budget: number): T[] {
  if (countTokens(contexts) <= budget) return [...contexts];
  let fits = 0; // invariant: a prefix of `fits` contexts fits (the empty one was checked by the caller)
  let tooMany = contexts.length; // and one of `tooMany` does not
  while (tooMany - fits > 1) {
    const middle = (fits + tooMany) >> 1;
    if (countTokens(contexts.slice(0, middle)) <= budget) fits = middle;
    else tooMany = middle;
  }
  return contexts.slice(0, fits);
}
