/**
 * How many JSON-LD contexts a payload defines. The JSON-LD processor copies the active context
 * for every context it processes, so the time a payload takes grows with the square of its
 * contexts: 2,000 one-term contexts in an array took 3.4 s to expand, 6,000 took 49 s (while one
 * context of 5,000 terms takes 59 ms). A resource is expanded when written and again at every
 * rendering, so such a payload would hold a render thread for as long at each read.
 */
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

/** What processing a payload's contexts may cost: how many contexts it defines, their terms, and how often they may be processed. */
export interface ContextCost {
  /** Each `@context` value anywhere in the payload, an array counting as its items. */
  definitions: number;
  /** The keys of all context objects: a processing copies up to this many term definitions. */
  terms: number;
  /** How many times contexts may be processed: each definition once, and each value outside the contexts again when a context is scoped. */
  processings: number;
}

export function contextCost(value: unknown): ContextCost {
  let definitions = 0;
  let terms = 0;
  let values = 0;
  let scoped = false;
  const pending: { value: unknown; inContext: boolean }[] = [{ value, inContext: false }];
  while (pending.length > 0) {
    const { value: current, inContext } = pending.pop()!;
    // Values inside contexts are definitions, not uses.
    if (!inContext) values++;
    if (typeof current !== 'object' || current === null) continue;
    if (Array.isArray(current)) {
      for (const item of current) pending.push({ value: item, inContext });
      continue;
    }
    for (const [key, child] of Object.entries(current)) {
      if (key === '@context') {
        const contexts: unknown[] = Array.isArray(child) ? child : [child];
        definitions += contexts.length;
        for (const context of contexts) if (typeof context === 'object' && context !== null && !Array.isArray(context)) terms += Object.keys(context).length;
        // A context inside a context belongs to a term definition: it is processed at each use of its term or type.
        if (inContext) scoped = true;
      }
      pending.push({ value: child, inContext: inContext || key === '@context' });
    }
  }
  return { definitions, terms, processings: definitions + (scoped ? values : 0) };
}

/** The problem with a payload whose contexts are too many or too costly to process, or null. */
export function contextProblem(value: unknown): string | null {
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
