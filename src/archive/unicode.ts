/**
 * Archive definitions are stored as UTF-8, where a lone UTF-16 surrogate
 * (possible in JSON: "\ud800") turns into U+FFFD: the text checked at
 * creation would not be the text kept, and `encodeURIComponent` throws on it.
 * Such strings are refused before anything is stored.
 */
const LONE_SURROGATE = /\p{Surrogate}/u;

export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}
