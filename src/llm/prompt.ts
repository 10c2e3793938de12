/**
 * The prompt given to the language model, after the reference service
 * (scholarag-reference section 2): a system instruction, then
 * "QUESTION: ..." and the numbered contexts between "=========" rules.
 */
import { giveTurn, TURN_MS } from './turns.js';
import type { Context } from './types.js';

export const SYSTEM_PROMPT = [
  'You answer questions about scientific articles using only the numbered contexts given with the question.',
  'Reply with a JSON object with three fields:',
  '- has_answer: true when the contexts contain the answer, false otherwise.',
  '- answer: when has_answer is true, a concise answer based on the contexts; when it is false, one sentence saying that the contexts do not answer the question.',
  '- sources: the Source numbers of the contexts the answer relies on, most important first; empty when has_answer is false.',
  'Do not use knowledge from outside the contexts and do not cite a Source number that is not listed.',
].join('\n');

// What tokenizers and models read as line breaks. A question or an article carrying one could start lines of
// its own: a forged "=========" rule and "Content: ... Source: 0" block that the model would take for a
// context and cite. Every text goes on the one line after its label, so only the server writes the structure.
const LINE_BREAKS = /\r\n|[\n\v\f\r\u0085\u2028\u2029]/g;

function oneLine(text: string): string {
  return text.replace(LINE_BREAKS, ' ');
}

/** One context as the prompt numbers it. */
export function contextBlock(context: Context): string {
  return [context.title ? `Title: ${oneLine(context.title)}` : null, `Content: ${oneLine(context.text)}`, `Source: ${context.id}`]
    .filter((line) => line !== null)
    .join('\n');
}

export function userMessage(question: string, contexts: readonly Context[]): string {
  return ['QUESTION: ' + oneLine(question), '=========', ...contexts.map(contextBlock), '=========', 'FINAL ANSWER:'].join('\n');
}

/** The whole prompt for models without a chat template, which simply continue the text. */
export function completionPrompt(question: string, contexts: readonly Context[]): string {
  return `${SYSTEM_PROMPT}\n\n${userMessage(question, contexts)}\n`;
}

interface PromptMeasure<T> {
  /** Tokens of the whole prompt with these contexts. */
  prompt(kept: readonly T[]): number;
  /** Tokens one context adds to the prompt (measured alone, so about what it adds). */
  context(context: T): number;
}

// Tokenising is synchronous: hundreds of retrieved paragraphs took a third of a second, during which the
// server answered nothing. The event loop gets a turn after this many contexts, or sooner once measuring
// has taken TURN_MS: one paragraph of 100,000 characters took 50 to 170 ms (a 32,000-token llama vocabulary).
const CONTEXTS_PER_TURN = 16;

// Contexts that do not fit measured before the rest are given up. With the window nearly full, every
// lower-ranked paragraph was tokenised in search of one short enough: 500 paragraphs of 1.5 KB (retriever_k's
// default, unreranked) took 0.3 s per question with a 32,000-token vocabulary, 1,000 of 100,000 characters 50 to 170 s.
const MAX_MISSES = 64;

/**
 * Chooses the contexts the prompt carries within `budget` tokens: best-ranked
 * first, each that still fits; one that does not is skipped, so a single huge
 * paragraph cannot push out everything ranked below it (once MAX_MISSES were
 * skipped, the rest are dropped unmeasured). Each context is
 * tokenised once, and the whole prompt about once more: contexts measured
 * apart may tokenise a little differently joined, so the lowest-ranked are
 * dropped until the whole prompt fits (a binary search).
 * Resolves to null when even the question alone does not fit.
 */
export async function fitContexts<T>(contexts: readonly T[], measure: PromptMeasure<T>, budget: number): Promise<T[] | null> {
  let used = measure.prompt([]);
  if (used > budget) return null;
  const chosen: T[] = [];
  let turnStarted = performance.now();
  let measuredThisTurn = 0;
  let misses = 0;
  for (const context of contexts) {
    if (used >= budget) break; // every context takes at least a token
    if (misses === MAX_MISSES) break;
    if (measuredThisTurn === CONTEXTS_PER_TURN || performance.now() - turnStarted >= TURN_MS) {
      await giveTurn();
      turnStarted = performance.now();
      measuredThisTurn = 0;
    }
    measuredThisTurn++;
    const size = measure.context(context);
    if (used + size > budget) {
      misses++;
      continue;
    }
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
