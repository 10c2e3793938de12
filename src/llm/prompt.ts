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

export function userMessage(question: string, contexts: readonly Context[]): string {
  const blocks = contexts.map((c) =>
    [c.title ? `Title: ${c.title}` : null, `Content: ${c.text}`, `Source: ${c.id}`].filter((line) => line !== null).join('\n'),
  );
  return ['QUESTION: ' + question, '=========', ...blocks, '=========', 'FINAL ANSWER:'].join('\n');
}

/** The whole prompt for models without a chat template, which simply continue the text. */
export function completionPrompt(question: string, contexts: readonly Context[]): string {
  return `${SYSTEM_PROMPT}\n\n${userMessage(question, contexts)}\n`;
}

/**
 * Keeps the longest best-ranked prefix of `contexts` whose prompt fits in
 * `budget` tokens (contexts arrive best first, so the lowest-ranked go
 * first). `countTokens` measures the full prompt for a candidate prefix; a
 * binary search keeps the number of tokenisations logarithmic.
 * Returns null when even the question alone does not fit.
 */
export function fitContexts<T>(contexts: readonly T[], countTokens: (kept: readonly T[]) => number, budget: number): T[] | null {
  if (countTokens(contexts) <= budget) return [...contexts];
  if (countTokens([]) > budget) return null;
  let fits = 0; // invariant: a prefix of `fits` contexts fits
  let tooMany = contexts.length; // and one of `tooMany` does not
  while (tooMany - fits > 1) {
    const middle = (fits + tooMany) >> 1;
    if (countTokens(contexts.slice(0, middle)) <= budget) fits = middle;
    else tooMany = middle;
  }
  return contexts.slice(0, fits);
}
