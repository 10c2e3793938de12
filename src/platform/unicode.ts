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

/** The length of `text` in characters as users count them, code points (an emoji is one, not two UTF-16 units), as limits are stated. */
export function codePointCount(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/**
 * The tag characters a subdivision flag is spelled with (UTS #51 ED-14a, emoji tag sequence): the black
 * flag U+1F3F4, a subdivision id in tag digits and lowercase tag letters, and CANCEL TAG U+E007F, as
 * 🏴 g b s c t CANCEL for Scotland. Only the flags vendors draw (UTS #51's RGI_Emoji_Tag_Sequence) are
 * allowed: any other well-formed one (🏴 u s c a CANCEL) shows as a plain black flag, so two names holding
 * different ones would look alike.
 */
const FLAG_TAG_CHARACTERS = String.raw`\u{E0030}-\u{E0039}\u{E0061}-\u{E007A}`;
const FLAG_TAG = `[${FLAG_TAG_CHARACTERS}]`;
/** England, Scotland, Wales: the whole of RGI_Emoji_Tag_Sequence (emoji-sequences.txt; the same since Emoji 5.0). */
const RGI_SUBDIVISIONS = ['gbeng', 'gbsct', 'gbwls'];
/** An ASCII subdivision id as the tag characters spelling it (each its ASCII character + U+E0000), in regular-expression escapes. */
const inTagCharacters = (id: string) => Array.from(id, (c) => `\\u{${(0xe0000 + c.codePointAt(0)!).toString(16)}}`).join('');
const SUBDIVISION_ID = `(?:${RGI_SUBDIVISIONS.map(inTagCharacters).join('|')})`;
const LONGEST_SUBDIVISION_ID = Math.max(...RGI_SUBDIVISIONS.map((id) => id.length));
/** A black flag followed by a whole subdivision id and its CANCEL TAG. */
const FLAG_START = String.raw`\u{1F3F4}(?=${SUBDIVISION_ID}\u{E007F})`;
/**
 * A flag tag character or CANCEL TAG that is not part of such a flag: a stray one, one of an unterminated
 * sequence, one after another base than the black flag. Inside a flag, at most the whole id stands
 * between the black flag and the character, which bounds the look-behind.
 */
const STRAY_FLAG_TAG = String.raw`(?<!${FLAG_START}${FLAG_TAG}{0,${LONGEST_SUBDIVISION_ID}})[${FLAG_TAG_CHARACTERS}\u{E007F}]`;

/**
 * Characters that make one name display as another, or as nothing: control characters (Unicode's Cc:
 * C0, DEL and C1), line and paragraph separators, and every default-ignorable code point (what a
 * renderer shows as nothing: soft hyphen, zero-width space, word joiner, BOM, invisible operators
 * U+2061–U+2064, Hangul fillers, U+034F, U+180E, U+17B4, musical formatting U+1D173–U+1D17A, tag
 * characters U+E0000–U+E0FFF, and the bidirectional controls and marks U+061C, U+200E, U+200F,
 * U+202A–U+202E, U+2066–U+2069: 'invoice\u202Efdp.exe' shows as 'invoiceexe.pdf'), plus the braille
 * blank U+2800, which renders empty too. The zero-width joiner and non-joiner and the variation
 * selectors stay allowed: some scripts and emoji sequences need them. So do the tag digits and
 * lowercase tag letters, but only inside the flag of England, Scotland or Wales (STRAY_FLAG_TAG).
 */
const DECEPTIVE = String.raw`\p{Cc}\p{Zl}\p{Zp}\u2800[\p{Default_Ignorable_Code_Point}--[\u200c\u200d\p{Variation_Selector}${FLAG_TAG_CHARACTERS}\u{E007F}]]`;

/** Characters no file name or archive path may hold: the deceptive ones, and backslashes (a separator on Windows). The `v` flag allows the set difference. */
export const UNSAFE_IN_NAMES = new RegExp(String.raw`[\\${DECEPTIVE}]|${STRAY_FLAG_TAG}`, 'v');

/**
 * Characters no user subject or group name may hold (global: to list them): the deceptive ones, and
 * lone surrogates. Backslashes stay allowed, as in a domain account (`DOMAIN\user`).
 */
export const UNSAFE_IN_IDENTITIES = new RegExp(String.raw`[\p{Surrogate}${DECEPTIVE}]|${STRAY_FLAG_TAG}`, 'gv');

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
  const characters = Array.from(name);
  // Whole characters, so a surrogate pair is never split into a lone half.
  return characters.length <= limit ? name : `${characters.slice(0, limit).join('')}… (${characters.length} characters)`;
}
