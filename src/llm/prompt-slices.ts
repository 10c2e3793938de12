/**
 * Where a prompt is cut to be evaluated in slices before its answer is generated.
 *
 * node-llama-cpp (3.22) decodes a whole prompt in one call and looks at the abort signal only between
 * generated tokens. So a client that leaves while its prompt is evaluated held the model until the first
 * token: about 2 s for a fresh 4,000-token prompt of stories260K on this 2-core machine, minutes for a
 * model of billions of parameters. Evaluating the prompt's prefixes first, one slice more each time, lets
 * the signal be seen between slices; the answer's own run then finds the prompt in the context sequence
 * (node-llama-cpp keeps the longest common prefix) and evaluates only its last tokens.
 */

import { isHighSurrogate } from '../text/unicode.js';

/** Tokens evaluated between two looks at the signal. A slice costs one extra sampled token and a few re-evaluated ones. */
export const SLICE_TOKENS = 256;

/**
 * The lengths (in UTF-16 units) of the prefixes of `text` to evaluate before the whole of it, about
 * `sliceTokens` apart for a text of `textTokens` tokens; none for a text of one slice. Each cut is moved back
 * to a white space, so that no word is split into tokens the whole text does not have. Prefixes no longer
 * than `held`, the part of `text` the sequence already holds evaluated, are left out: evaluating one would
 * erase what follows it (a question asked again would have its whole prompt read again).
 */
export function sliceCuts(text: string, textTokens: number, held = 0, sliceTokens = SLICE_TOKENS): number[] {
  const slices = Math.ceil(textTokens / sliceTokens);
  const cuts: number[] = [];
  for (let slice = 1; slice < slices; slice++) {
    const previous = cuts.at(-1) ?? 0;
    const cut = whiteSpaceBefore(text, Math.round((text.length * slice) / slices), previous);
    if (cut > previous && cut < text.length) cuts.push(cut);
  }
  return cuts.filter((cut) => cut > held);
}

/** How many UTF-16 units `a` and `b` share from their start. */
export function sharedPrefixLength(a: string, b: string): number {
  const end = Math.min(a.length, b.length);
  let length = 0;
  while (length < end && a.charCodeAt(length) === b.charCodeAt(length)) length++;
  return length;
}

/** The last white space at or before `at` and after `after`; else `at`, moved off the middle of a surrogate pair. */
function whiteSpaceBefore(text: string, at: number, after: number): number {
  for (let i = at; i > after; i--) if (/\s/.test(text[i]!)) return i;
  return isHighSurrogate(text.charCodeAt(at - 1)) ? at - 1 : at;
}
