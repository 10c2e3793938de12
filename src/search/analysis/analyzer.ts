/**
 * Text analysis shared by indexing, queries and filters, so that a filter word
 * and an indexed word meet in the same form.
 *
 * Steps: Unicode NFKD normalisation with combining marks removed (diacritic
 * folding: "Núñez" -> "nunez"), lower-casing, tokenisation, English stopword
 * removal, possessive removal and Porter stemming.
 *
 * Tokenisation keeps letters and digits together ("CA1", "Nav1.6", "layer 2/3"
 * -> "layer", "2", "3"). A hyphen joins its neighbours when one side is a bare
 * number, so "5-HT", "5HT" and "5-ht" are one term ("5ht"), as are "IL-6" and
 * "IL6"; otherwise it separates words ("long-term" -> "long", "term";
 * "CA1-CA3" -> "ca1", "ca3"). A dot between digits stays ("1.5", "nav1.6").
 */
import { stemmer } from 'stemmer';
import { ENGLISH_STOPWORDS } from './stopwords.js';

const COMBINING_MARKS = /\p{M}+/gu;
/** A run of letters/digits, optionally continued by `.digit` groups (decimals, versions). */
const WORD = /[\p{L}\p{N}]+(?:\.\p{N}+)*/gu;
const DIGITS_ONLY = /^\p{N}+(?:\.\p{N}+)*$/u;
const HAS_DIGIT = /\p{N}/u;

/** Latin letters that Unicode does not decompose into a base letter plus a mark. */
const UNDECOMPOSABLE: Record<string, string> = { ø: 'o', æ: 'ae', œ: 'oe', ß: 'ss', ł: 'l', đ: 'd', ð: 'd', þ: 'th', ı: 'i' };
const UNDECOMPOSABLE_PATTERN = new RegExp(`[${Object.keys(UNDECOMPOSABLE).join('')}]`, 'g');

/** Case and diacritic folding: the normal form used for terms and exact-name matching. */
export function fold(text: string): string {
  return text
    .normalize('NFKD')
    .replace(COMBINING_MARKS, '')
    .toLowerCase()
    .replace(UNDECOMPOSABLE_PATTERN, (letter) => UNDECOMPOSABLE[letter]!);
}

interface RawToken {
  word: string;
  start: number;
  end: number;
}

function rawTokens(folded: string): RawToken[] {
  const tokens: RawToken[] = [];
  for (const match of folded.matchAll(WORD)) {
    tokens.push({ word: match[0], start: match.index, end: match.index + match[0].length });
  }
  return tokens;
}

/** Splits folded text into words, applying the hyphen and possessive rules above. */
export function tokenize(text: string): string[] {
  const folded = fold(text);
  const tokens = rawTokens(folded);
  const words: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    let { word, end } = tokens[i]!;
    // Join "5-HT" / "IL-6" chains: hyphen directly between this token and the next, one side numeric.
    while (i + 1 < tokens.length && tokens[i + 1]!.start === end + 1 && folded[end] === '-') {
      const next = tokens[i + 1]!.word;
      if (!DIGITS_ONLY.test(word) && !DIGITS_ONLY.test(next)) break;
      word += next;
      end = tokens[i + 1]!.end;
      i++;
    }
    // Possessive "'s" (straight or curly apostrophe) belongs to the previous word: drop it.
    if (word === 's' && i > 0 && /['\u2019]/.test(folded[tokens[i]!.start - 1] ?? '')) continue;
    words.push(word);
  }
  return words;
}

const STEM_CACHE_LIMIT = 200_000;
const stemCache = new Map<string, string>();

function stem(word: string): string {
  // Stemming mangles identifiers such as "ca1" or "5ht2a"; only pure words are stemmed.
  if (HAS_DIGIT.test(word)) return word;
  let stemmed = stemCache.get(word);
  if (stemmed === undefined) {
    stemmed = stemmer(word);
    if (stemCache.size >= STEM_CACHE_LIMIT) stemCache.clear();
    stemCache.set(word, stemmed);
  }
  return stemmed;
}

/** The index terms of a text, in order, repeated as often as they occur. */
export function analyze(text: string): string[] {
  const terms: string[] = [];
  for (const word of tokenize(text)) {
    if (ENGLISH_STOPWORDS.has(word)) continue;
    terms.push(stem(word));
  }
  return terms;
}

/** Distinct terms of a text, in first-seen order (for queries and filter words). */
export function analyzeUnique(text: string): string[] {
  return [...new Set(analyze(text))];
}
