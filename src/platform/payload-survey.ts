/**
 * One walk over a parsed JSON payload that collects what each of its checks needs: its first prototype
 * key and how many keys it holds (the /v1 parse), its depth (json-depth.ts), its JSON-LD contexts'
 * cost (context-bound.ts) and whether it holds a lone surrogate (text/unicode.ts). One walk, not one per
 * check: four walks of a 100,000-key body take 333 ms of the main thread, one takes 93 ms
 * (medians, docs/DESIGN.md). The checks still refuse in their own order and at their own step of a write: the walk
 * only answers their questions, at the parse, and a write's later steps read the answers kept then.
 */
import { hasLoneSurrogate } from '../text/unicode.js';

/** What processing a payload's contexts may cost: how many contexts it defines, their terms, and how often they may be processed. */
export interface ContextCost {
  /** Each `@context` value anywhere in the payload, an array counting as its items. */
  definitions: number;
  /** The keys of all context objects: a processing copies up to this many term definitions. */
  terms: number;
  /** How many times contexts may be processed: each definition once, and each value outside the contexts again when a context is scoped. */
  processings: number;
}

/**
 * Terms the JSON-LD processor (jsonld.js) fails on: it calls `hasOwnProperty` on the context objects it builds, so a
 * context defining that term ends its processing with a TypeError of its own words ("localCtx.hasOwnProperty is not a
 * function"), which would reach the client as the refusal's details.
 */
const UNPROCESSABLE_TERMS = new Set(['hasOwnProperty']);

export interface PayloadSurvey {
  /**
   * The first key that could set a prototype if merged with Object.assign or the like (`__proto__`, or
   * `constructor` holding a `prototype`; secure-json-parse's refusals), or null. First as the walk
   * meets them: an object's own keys in order, its children from the last to the first.
   */
  prototypeKey: string | null;
  /** How many keys its objects hold in all (for firstRepeatedKey: fewer than the text writes means a repeat). */
  keys: number;
  /** The nesting depth: a scalar is 0, `{}` and `[]` are 1. */
  depth: number;
  contexts: ContextCost;
  /** The first term a context defines that the JSON-LD processor cannot take (UNPROCESSABLE_TERMS), or null. */
  unprocessableTerm: string | null;
  /** Whether any key or string holds a lone surrogate (where: loneSurrogatePointer, asked only then). */
  holdsLoneSurrogate: boolean;
}

// Where a value stands, for the context cost: outside the contexts (a possible use), inside one, as a
// context itself (its keys are terms), or as an `@context` array (its items are contexts).
const OUTSIDE = 0;
const IN_CONTEXT = 1;
const CONTEXT = 2;
const CONTEXT_LIST = 3;

/**
 * The survey of `value`. Walks with its own stack (a deeply nested body must not overflow the call
 * stack); only containers are stacked, their depths and places beside them, scalars are looked at where
 * they are met and keys are read by index: an entry array, an object per child or a pair per container
 * would each make a 100,000-key body cost twice as much or more.
 */
export function surveyPayload(value: unknown): PayloadSurvey {
  let prototypeKey: string | null = null;
  let keys = 0;
  let depth = 0;
  let definitions = 0;
  let terms = 0;
  let values = 0;
  let scoped = false;
  let unprocessableTerm: string | null = null;
  let loneSurrogate = false;
  const pending: object[] = [];
  const depths: number[] = [];
  const places: number[] = [];
  const visit = (child: unknown, childDepth: number, place: number): void => {
    // Values inside contexts are definitions, not uses.
    if (place === OUTSIDE) values++;
    if (typeof child === 'string') {
      if (!loneSurrogate && hasLoneSurrogate(child)) loneSurrogate = true;
    } else if (typeof child === 'object' && child !== null) {
      pending.push(child);
      depths.push(childDepth);
      places.push(place);
    }
  };
  visit(value, 1, OUTSIDE);
  while (pending.length > 0) {
    const current = pending.pop()!;
    const currentDepth = depths.pop()!;
    const place = places.pop()!;
    if (currentDepth > depth) depth = currentDepth;
    const inner = place === OUTSIDE ? OUTSIDE : IN_CONTEXT;
    if (Array.isArray(current)) {
      for (const item of current) visit(item, currentDepth + 1, place === CONTEXT_LIST ? CONTEXT : inner);
      continue;
    }
    const names = Object.keys(current);
    keys += names.length;
    if (place === CONTEXT) terms += names.length;
    for (let i = 0; i < names.length; i++) {
      const key = names[i]!;
      const child = (current as Record<string, unknown>)[key];
      if (prototypeKey === null && isPrototypeKey(key, child)) prototypeKey = key;
      if (unprocessableTerm === null && place === CONTEXT && UNPROCESSABLE_TERMS.has(key)) unprocessableTerm = key;
      if (!loneSurrogate && hasLoneSurrogate(key)) loneSurrogate = true;
      if (key !== '@context') {
        visit(child, currentDepth + 1, inner);
        continue;
      }
      definitions += Array.isArray(child) ? child.length : 1;
      // A context inside a context belongs to a term definition: it is processed at each use of its term or type.
      if (place !== OUTSIDE) scoped = true;
      visit(child, currentDepth + 1, Array.isArray(child) ? CONTEXT_LIST : CONTEXT);
    }
  }
  return {
    prototypeKey,
    keys,
    depth,
    contexts: { definitions, terms, processings: definitions + (scoped ? values : 0) },
    unprocessableTerm,
    holdsLoneSurrogate: loneSurrogate,
  };
}

function isPrototypeKey(key: string, child: unknown): boolean {
  return key === '__proto__' || (key === 'constructor' && typeof child === 'object' && child !== null && Object.hasOwn(child, 'prototype'));
}

/**
 * The surveys of bodies as parsed. A body is surveyed at its parse, where the prototype key is refused,
 * and checked for depth, contexts and lone surrogates later in its write, after the refusals that come
 * first (a URL's id, preconditions): those read the survey kept here. Only a value just parsed is kept,
 * which nothing else holds yet; any other value is walked when asked about, so a value changed after
 * it was surveyed cannot be answered for with its old survey.
 */
const parsedSurveys = new WeakMap<object, PayloadSurvey>();

/** Surveys a value JSON.parse has just made, keeping the survey for the checks later in its request (surveyOf). */
export function surveyParsed(value: unknown): PayloadSurvey {
  const survey = surveyPayload(value);
  if (typeof value === 'object' && value !== null) parsedSurveys.set(value, survey);
  return survey;
}

/** The survey of `value`: the one kept at its parse (surveyParsed), else a new walk. */
export function surveyOf(value: unknown): PayloadSurvey {
  return (typeof value === 'object' && value !== null ? parsedSurveys.get(value) : undefined) ?? surveyPayload(value);
}
