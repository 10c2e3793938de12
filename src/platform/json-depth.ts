/**
 * How deeply a JSON value nests. Payloads are refused above a fixed depth at
 * write time: the JSON-LD processor, the store's serialiser and the renderers
 * all recurse, and a few kilobytes of nested arrays otherwise render to
 * hundreds of megabytes or overflow the stack. The walk is iterative, so
 * measuring cannot overflow the stack itself.
 */
import { surveyOf } from './payload-survey.js';

export const MAX_JSON_DEPTH = 64;

/** The nesting depth of `value` (a scalar is 0, `{}` and `[]` are 1), counted up to `limit + 1` at most, from its survey (payload-survey.ts). */
export function jsonDepth(value: unknown, limit = MAX_JSON_DEPTH): number {
  return Math.min(surveyOf(value).depth, limit + 1);
}

/** The problem with a payload nested deeper than the limit, or null. */
export function depthProblem(value: unknown, limit = MAX_JSON_DEPTH): string | null {
  return jsonDepth(value, limit) > limit ? `The payload is nested more than ${limit} levels deep (objects and arrays); at most ${limit} are allowed.` : null;
}
