/**
 * The store keeps text as UTF-8, where a lone UTF-16 surrogate (possible in
 * JSON: "\ud800") turns into U+FFFD: the text checked would not be the text
 * kept (a grant naming someone else, an archive path that no longer matches),
 * and `encodeURIComponent` throws on it. Such strings are refused before
 * anything is stored.
 */
const LONE_SURROGATE = /\p{Surrogate}/u;

export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

/** Whether a UTF-16 unit is the first half of a surrogate pair: a text cut after it would end in a lone half. */
export function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

/** The length of `text` in characters as users count them, code points (an emoji is one, not two UTF-16 units), as limits are stated. */
export function codePointCount(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/**
 * Where in a JSON value the first lone surrogate stands (a key or a string), as a JSON Pointer
 * (`/a/0/b`), or null. Walked iteratively, like the depth check, so a deep value cannot overflow the stack.
 */
export function loneSurrogatePointer(value: unknown): string | null {
  // The pointers cost a string per key: built only for a value that has one to point at (built for every
  // value, a 100,000-key payload takes 300-400 ms of the main thread to find none).
  if (!holdsLoneSurrogate(value)) return null;
  const pending: [unknown, string][] = [[value, '']];
  while (pending.length > 0) {
    const [current, pointer] = pending.pop()!;
    if (typeof current === 'string') {
      if (hasLoneSurrogate(current)) return pointer === '' ? '/' : pointer;
      continue;
    }
    if (typeof current !== 'object' || current === null) continue;
    const entries: [string, unknown][] = Array.isArray(current) ? current.map((item, i) => [String(i), item]) : Object.entries(current);
    for (const [key, child] of entries) {
      // The pointer goes into an error message: a lone surrogate of a key is written as its escape.
      const step = key.replaceAll('~', '~0').replaceAll('/', '~1').replace(/\p{Surrogate}/gu, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
      const at = `${pointer}/${step}`;
      if (hasLoneSurrogate(key)) return at;
      pending.push([child, at]);
    }
  }
  return null;
}

/** Whether any key or string of a JSON value holds a lone surrogate: loneSurrogatePointer's question, asked without pointers. */
function holdsLoneSurrogate(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const current = pending.pop();
    if (typeof current === 'string') {
      if (hasLoneSurrogate(current)) return true;
    } else if (Array.isArray(current)) {
      for (const item of current) pending.push(item);
    } else if (typeof current === 'object' && current !== null) {
      for (const key in current) {
        if (hasLoneSurrogate(key)) return true;
        pending.push((current as Record<string, unknown>)[key]);
      }
    }
  }
  return false;
}

const SHOWN_CHARACTERS = 64;
/** How much of a request's path a refusal quotes, so that a 4 KB unknown path is not echoed whole. */
export const SHOWN_PATH_LENGTH = 256;

/**
 * A client-chosen name as an error message quotes it: whole up to `limit` characters, else its start and its
 * length. An unknown parameter or field name is as long as the client likes (a query string up to the header
 * bound, a body field up to the body limit), and so is a path or a number's literal; quoting it whole would make
 * every refusal as large as the request. Its start is enough to recognise it.
 */
export function shownName(name: string, limit = SHOWN_CHARACTERS): string {
  const count = codePointCount(name);
  return count <= limit ? name : `${startOf(name, limit)}… (${count} characters)`;
}

/** The first `limit` characters of `text`, whole: a surrogate pair is never split into a lone half, which a message would carry as U+FFFD. */
export function startOf(text: string, limit: number): string {
  let end = 0;
  for (let taken = 0; taken < limit && end < text.length; taken++) end += text.codePointAt(end)! > 0xffff ? 2 : 1;
  return text.slice(0, end);
}
