/**
 * How many JSON-LD contexts a payload defines. The JSON-LD processor copies the active context
 * for every context it processes, so the time a payload takes grows with the square of its
 * contexts: 2,000 one-term contexts in an array took 3.4 s to expand, 6,000 took 49 s (while one
 * context of 5,000 terms takes 59 ms). A resource is expanded when written and again at every
 * rendering, so such a payload would hold a render thread for as long at each read.
 */
export const MAX_CONTEXT_DEFINITIONS = 200;

/** The contexts `value` defines: each `@context` value anywhere in it, an array counting as its items. */
export function contextDefinitions(value: unknown): number {
  let count = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const current = pending.pop();
    if (typeof current !== 'object' || current === null) continue;
    if (Array.isArray(current)) {
      pending.push(...current);
      continue;
    }
    for (const [key, child] of Object.entries(current)) {
      if (key === '@context') count += Array.isArray(child) ? child.length : 1;
      pending.push(child);
    }
  }
  return count;
}

/** The problem with a payload defining more contexts than the bound, or null. */
export function contextProblem(value: unknown): string | null {
  const count = contextDefinitions(value);
  return count > MAX_CONTEXT_DEFINITIONS
    ? `The payload defines ${count} JSON-LD contexts (each @context, an array counting as its items); at most ${MAX_CONTEXT_DEFINITIONS} are allowed.`
    : null;
}
