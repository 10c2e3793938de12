/**
 * How deeply a JSON value nests. Payloads are refused above a fixed depth at
 * write time: the JSON-LD processor, the store's serialiser and the renderers
 * all recurse, and a few kilobytes of nested arrays otherwise render to
 * hundreds of megabytes or overflow the stack. The walk is iterative, so
 * measuring cannot overflow the stack itself.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * The nesting depth of `value` (a scalar is 0, `{}` and `[]` are 1), counted up to `limit + 1` at most.
 * Only containers are stacked, with their depths beside them, and keys are read by index: a payload of
 * 100,000 keys under the body bound costs one pass over its keys, not an entry array and a pair per child.
 */
export function jsonDepth(value: unknown, limit = MAX_JSON_DEPTH): number {
  if (typeof value !== 'object' || value === null) return 0;
  let deepest = 0;
  const pending: object[] = [value];
  const depths: number[] = [1];
  while (pending.length > 0) {
    const current = pending.pop()!;
    const depth = depths.pop()!;
    if (depth > deepest) deepest = depth;
    if (deepest > limit) return deepest;
    if (Array.isArray(current)) {
      for (const child of current) {
        if (typeof child === 'object' && child !== null) {
          pending.push(child);
          depths.push(depth + 1);
        }
      }
      continue;
    }
    const keys = Object.keys(current);
    for (let i = 0; i < keys.length; i++) {
      const child = (current as Record<string, unknown>)[keys[i]!];
      if (typeof child === 'object' && child !== null) {
        pending.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return deepest;
}

/** The problem with a payload nested deeper than the limit, or null. */
export function depthProblem(value: unknown, limit = MAX_JSON_DEPTH): string | null {
  return jsonDepth(value, limit) > limit ? `The payload is nested more than ${limit} levels deep (objects and arrays); at most ${limit} are allowed.` : null;
}
