/**
 * How many JSON-LD contexts a payload defines. The JSON-LD processor copies the active context
 * for every context it processes, so the time a payload takes grows with the square of its
 * contexts: 2,000 one-term contexts in an array took 3.4 s to expand, 6,000 took 49 s (while one
 * context of 5,000 terms takes 59 ms). A resource is expanded when written and again at every
 * rendering, so such a payload would hold a render thread for as long at each read.
 */
import { type ContextCost, surveyOf } from './payload-survey.js';

export const MAX_CONTEXT_DEFINITIONS = 200;

/**
 * Bounds the work of processing a payload's contexts. Each time a context is processed, the processor
 * copies the active context, so a processing costs up to the terms defined in all: 200 contexts
 * defining 20,000 terms in all took 0.7 s to expand. A context scoped to a term or a type is processed
 * again at every use of that term or type, so one scoped context of 1,000 terms used 10,000 times in
 * a 196 KB payload took 2.1 s, at its write and at every rendering. The bound is on processings times
 * terms, counting every value of the payload as a possible use once any context is scoped (whether
 * the processor reuses a processing depends on where the use is). At the bound, the costliest shape
 * measured (200 contexts of 2,500 terms in all, the largest first) took 0.21 s to expand.
 */
export const MAX_CONTEXT_WORK = 500_000;

/** What processing a payload's contexts may cost, from its survey (payload-survey.ts, which counts them in its one walk). */
export function contextCost(value: unknown): ContextCost {
  return surveyOf(value).contexts;
}

/** The problem with a payload whose contexts are too many, too costly to process or define a term the processor fails on, or null. */
export function contextProblem(value: unknown): string | null {
  const { unprocessableTerm } = surveyOf(value);
  if (unprocessableTerm !== null) {
    return `The payload's JSON-LD context defines the term '${unprocessableTerm}', which the JSON-LD processor cannot take: name the term otherwise.`;
  }
  const { definitions, terms, processings } = contextCost(value);
  if (definitions > MAX_CONTEXT_DEFINITIONS) {
    return `The payload defines ${definitions} JSON-LD contexts (each @context, an array counting as its items); at most ${MAX_CONTEXT_DEFINITIONS} are allowed.`;
  }
  if (processings * terms > MAX_CONTEXT_WORK) {
    return (
      `The payload's JSON-LD contexts are too costly to process: they define ${terms} terms and may be processed ${processings} times ` +
      `(each context once, and at every value when a context is scoped to a term or type); terms times processings must not exceed ${MAX_CONTEXT_WORK}.`
    );
  }
  return null;
}
