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

// Where a value stands, for contextCost: outside the contexts (a possible use), inside one, as a context
// itself (its keys are terms), or as an `@context` array (its items are contexts).
const OUTSIDE = 0;
const IN_CONTEXT = 1;
const CONTEXT = 2;
const CONTEXT_LIST = 3;

/**
 * One pass over the payload, in which only containers are stacked (their places beside them), scalars
 * are counted where they are met, keys are read by index and a context's terms are counted as its keys
 * are visited: an entry array, an object per child and a pass of its own over each context made a
 * payload of 100,000 keys cost 130 to 270 ms.
 */
export function contextCost(value: unknown): ContextCost {
  let definitions = 0;
  let terms = 0;
  let values = 0;
  let scoped = false;
  const pending: object[] = [];
  const places: number[] = [];
  const visit = (child: unknown, place: number): void => {
    // Values inside contexts are definitions, not uses.
    if (place === OUTSIDE) values++;
    if (typeof child === 'object' && child !== null) {
      pending.push(child);
      places.push(place);
    }
  };
  visit(value, OUTSIDE);
  while (pending.length > 0) {
    const current = pending.pop()!;
    const place = places.pop()!;
    const inner = place === OUTSIDE ? OUTSIDE : IN_CONTEXT;
    if (Array.isArray(current)) {
      for (const item of current) visit(item, place === CONTEXT_LIST ? CONTEXT : inner);
      continue;
    }
    const keys = Object.keys(current);
    if (place === CONTEXT) terms += keys.length;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const child = (current as Record<string, unknown>)[key];
      if (key !== '@context') {
        visit(child, inner);
        continue;
      }
      definitions += Array.isArray(child) ? child.length : 1;
      // A context inside a context belongs to a term definition: it is processed at each use of its term or type.
      if (place !== OUTSIDE) scoped = true;
      visit(child, Array.isArray(child) ? CONTEXT_LIST : CONTEXT);
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
