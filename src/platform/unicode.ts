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

/**
 * Characters no stored name may hold, whether a file name or a path inside an archive: backslashes
 * (a separator on Windows), control characters (Unicode's Cc: C0, DEL and C1) and bidirectional
 * embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069), which make a name display as
 * another ('invoice\u202Efdp.exe' shows as 'invoiceexe.pdf').
 */
export const UNSAFE_IN_NAMES = /[\\\p{Cc}\u202a-\u202e\u2066-\u2069]/u;
