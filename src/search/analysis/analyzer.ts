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
 * A soft hyphen (U+00AD) is no separator: "neu\u00ADron" is "neuron".
 *
 * Chinese, Japanese and Korean text (Han, Hiragana, Katakana, Hangul) is written without spaces between
 * words, so a run of it is indexed as its overlapping pairs of characters ("场所细胞" -> "场所", "所细",
 * "细胞"; a lone character as itself), as Lucene's CJK analysis does: a word inside a sentence is then
 * found by the pairs it is made of, where as one term it would be found only as a whole. The run ends
 * where another script begins ("CA1场所" -> "ca1", "场所"); its pairs are neither stemmed nor stopwords.
 *
 * Thai, Lao, Khmer and Burmese are written without spaces between words too, and their vowel and tone
 * marks belong to the word ("ใกล้", near, is not "ใกล"): their marks are not folded away, and a run of
 * them is cut into words by ICU's dictionaries (Intl.Segmenter, as Lucene's Thai analysis uses ICU's word
 * break iterator), neither stemmed nor stopwords, rather than kept as one term found only as a whole.
 */
import { stemmer } from 'stemmer';
import { ENGLISH_STOPWORDS } from './stopwords.js';
import { WordTable } from './word-table.js';

/**
 * Marks, but the kana voicing marks (デ is not テ, a Japanese word read as another, as é is e) and the marks
 * of the scripts cut into words by dictionary, which are their vowels and tones.
 */
const COMBINING_MARKS = /[^\P{M}\u3099\u309a\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]+/gu;
/**
 * Soft hyphens: invisible break points inside a word, left by typesetting and by text copied from a web
 * page or a PDF ("neu\u00ADron"). Removed, so the word is one term and not two fragments.
 */
const SOFT_HYPHENS = /\u00ad/g;
const NON_ASCII = /[^\x00-\x7f]/;

/** Latin letters that Unicode does not decompose into a base letter plus a mark. */
const UNDECOMPOSABLE: Record<string, string> = { ø: 'o', æ: 'ae', œ: 'oe', ß: 'ss', ł: 'l', đ: 'd', ð: 'd', þ: 'th', ı: 'i' };
const UNDECOMPOSABLE_PATTERN = new RegExp(`[${Object.keys(UNDECOMPOSABLE).join('')}]`, 'g');

/** Case and diacritic folding: the normal form used for terms and exact-name matching. */
export function fold(text: string): string {
  // ASCII text has nothing to decompose: folding is lower-casing (and much cheaper).
  if (!NON_ASCII.test(text)) return text.toLowerCase();
  return text
    .replace(SOFT_HYPHENS, '')
    .normalize('NFKD')
    .replace(COMBINING_MARKS, '')
    .toLowerCase()
    .replace(UNDECOMPOSABLE_PATTERN, (letter) => UNDECOMPOSABLE[letter]!);
}

/*
 * Tokenisation: a word is a run of letters and digits (Unicode \p{L}, \p{N}),
 * continued by `.digits` groups, scanned by code point. Character classes come
 * from a table filled on first use of each code point.
 */
// Letters and numbers last, so that one comparison (type >= LETTER) tells the characters a word runs on.
const OTHER = 1;
/** A letter of Chinese, Japanese or Korean text (the Katakana-Hiragana prolonged sound mark included). */
const CJK = 2;
/** A letter or mark of Thai, Lao, Khmer or Burmese text. */
const SEGMENTED = 3;
const LETTER = 4;
const NUMBER = 5;
const classes = new Uint8Array(0x110000);
const IS_LETTER = /\p{L}/u;
const IS_NUMBER = /\p{N}/u;
/**
 * CJK letters, and what NFKD leaves of them: Hangul's letters (jamo) and the kana voicing marks, which the
 * folding takes apart from their syllable or kana and a run puts together again (cjkPairs).
 */
const IS_CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30fc\u3099\u309a]/u;
/** Letters and marks of the scripts a dictionary cuts into words; their digits are numbers like any other. */
const IS_SEGMENTED = /(?=[\p{L}\p{M}])[\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

function classOf(codePoint: number): number {
  let type = classes[codePoint]!;
  if (type === 0) {
    const char = String.fromCodePoint(codePoint);
    const wordCharacter = IS_LETTER.test(char) || IS_NUMBER.test(char);
    if (IS_CJK.test(char) && (wordCharacter || codePoint === 0x3099 || codePoint === 0x309a)) type = CJK;
    else if (IS_SEGMENTED.test(char)) type = SEGMENTED;
    else type = !wordCharacter ? OTHER : IS_LETTER.test(char) ? LETTER : NUMBER;
    classes[codePoint] = type;
  }
  return type;
}

/**
 * Words of the folded text being analysed: their bounds and kind, reused from text to text. Typed arrays
 * take 10 bytes a word where plain arrays take 32: one 51 MB paragraph (5.8 million words) would make those
 * 263 MB, kept for the rest of the process. Past KEPT_WORDS they are given back after the text.
 */
const FIRST_WORDS = 1024;
const KEPT_WORDS = 1 << 20;
let wordStarts = new Int32Array(FIRST_WORDS);
let wordEnds = new Int32Array(FIRST_WORDS);
/**
 * 1 for digits only (with dots), as "2", "1.5"; CJK_RUN for a run of CJK letters, indexed as its pairs;
 * SEGMENTED_RUN for a run of Thai, Lao, Khmer or Burmese, indexed as its words. Runs are never joined by a hyphen.
 */
let wordNumeric = new Uint8Array(FIRST_WORDS);
const CJK_RUN = 2;
const SEGMENTED_RUN = 3;
/** 1 for at least one digit: identifiers such as "ca1" are not stemmed. */
let wordHasDigit = new Uint8Array(FIRST_WORDS);

function sizeWordArrays(words: number): void {
  const grown = <T extends Int32Array | Uint8Array>(array: T, make: (length: number) => T): T => {
    const bigger = make(words);
    bigger.set(array.subarray(0, Math.min(array.length, words)));
    return bigger;
  };
  wordStarts = grown(wordStarts, (n) => new Int32Array(n));
  wordEnds = grown(wordEnds, (n) => new Int32Array(n));
  wordNumeric = grown(wordNumeric, (n) => new Uint8Array(n));
  wordHasDigit = grown(wordHasDigit, (n) => new Uint8Array(n));
}

/** Finds the words of folded text into the word arrays; returns how many. */
function scanWords(folded: string): number {
  const n = folded.length;
  let count = 0;
  let i = 0;
  while (i < n) {
    let codePoint = folded.codePointAt(i)!;
    let type = classOf(codePoint);
    if (type === OTHER) {
      i += codePoint > 0xffff ? 2 : 1;
      continue;
    }
    const start = i;
    if (type === CJK || type === SEGMENTED) {
      const run = type;
      while (type === run) {
        i += codePoint > 0xffff ? 2 : 1;
        if (i >= n) break;
        codePoint = folded.codePointAt(i)!;
        type = classOf(codePoint);
      }
      count = addWord(count, start, i, run === CJK ? CJK_RUN : SEGMENTED_RUN, 0);
      continue;
    }
    let letters = false;
    let digits = false;
    while (type >= LETTER) {
      if (type === LETTER) letters = true;
      else digits = true;
      i += codePoint > 0xffff ? 2 : 1;
      if (i >= n) break;
      codePoint = folded.codePointAt(i)!;
      type = classOf(codePoint);
    }
    // Decimal and version groups: ".5" in "1.5", ".6" in "nav1.6".
    while (i + 1 < n && folded.charCodeAt(i) === 0x2e && classOf(folded.codePointAt(i + 1)!) === NUMBER) {
      digits = true;
      i++;
      while (i < n && classOf((codePoint = folded.codePointAt(i)!)) === NUMBER) i += codePoint > 0xffff ? 2 : 1;
    }
    count = addWord(count, start, i, letters ? 0 : 1, digits ? 1 : 0);
  }
  return count;
}

/** Records word `count` in the word arrays; returns the new count. */
function addWord(count: number, start: number, end: number, numeric: number, hasDigit: number): number {
  if (count === wordStarts.length) sizeWordArrays(2 * count);
  wordStarts[count] = start;
  wordEnds[count] = end;
  wordNumeric[count] = numeric;
  wordHasDigit[count] = hasDigit;
  return count + 1;
}

/**
 * The overlapping pairs of characters of a CJK run, or the run itself when it is one character. The run is put
 * together again first (NFC): the folding's NFKD took Hangul syllables apart into their letters and voiced kana
 * into kana and mark, and pairs are pairs of the characters written.
 */
function addCjkPairs(run: string, terms: string[]): void {
  const characters = [...run.normalize('NFC')];
  if (characters.length === 1) terms.push(run);
  for (let c = 0; c + 1 < characters.length; c++) terms.push(characters[c]! + characters[c + 1]!);
}

const WORD_BREAKS = new Intl.Segmenter('und', { granularity: 'word' });
/**
 * Thai's and Lao's AM vowels, which the folding's NFKD takes apart into a nikhahit and AA, and which ICU's
 * dictionaries know only whole ("ทำงาน", work, read as "ทํา" + "งาน").
 */
const THAI_AM = /\u0e4d\u0e32/g;
const LAO_AM = /\u0ecd\u0eb2/g;

/** The words ICU's dictionary finds in a run of Thai, Lao, Khmer or Burmese (put together again first). */
function addSegmentedWords(run: string, terms: string[]): void {
  const written = run.normalize('NFC').replace(THAI_AM, '\u0e33').replace(LAO_AM, '\u0eb3');
  for (const { segment, isWordLike } of WORD_BREAKS.segment(written)) if (isWordLike) terms.push(segment);
}

const STEM_CACHE_LIMIT = 200_000;
const stemCache = new Map<string, string>();

function stem(word: string, hasDigit: boolean): string {
  // Stemming mangles identifiers such as "ca1" or "5ht2a"; only pure words are stemmed.
  if (hasDigit) return word;
  let stemmed = stemCache.get(word);
  if (stemmed === undefined) {
    stemmed = stemmer(word);
    if (stemCache.size >= STEM_CACHE_LIMIT) stemCache.clear();
    stemCache.set(word, stemmed);
  }
  return stemmed;
}

/** Analysed forms of words seen before, looked up by their characters in place. */
const seenWords = new WordTable(STEM_CACHE_LIMIT);

/**
 * The index terms of a text, in order, repeated as often as they occur. A
 * word seen before is looked up in place (word-table.ts) rather than sliced
 * out and stemmed again: analysis was half the time of building an index.
 */
export function analyze(text: string): string[] {
  const folded = fold(text);
  const count = scanWords(folded);
  const terms: string[] = [];
  for (let w = 0; w < count; w++) {
    const start = wordStarts[w]!;
    const end = wordEnds[w]!;
    if (wordNumeric[w] === CJK_RUN) {
      addCjkPairs(folded.slice(start, end), terms);
      continue;
    }
    if (wordNumeric[w] === SEGMENTED_RUN) {
      addSegmentedWords(folded.slice(start, end), terms);
      continue;
    }
    if (joinsNext(folded, w, count)) {
      w = joinHyphenChain(folded, w, count, terms);
      continue;
    }
    if (isPossessive(folded, w)) continue;
    const hash = WordTable.hash(folded, start, end);
    const entry = seenWords.find(folded, start, end, hash);
    let term: string | null;
    if (entry >= 0) term = seenWords.term(entry);
    else {
      const word = folded.slice(start, end);
      term = ENGLISH_STOPWORDS.has(word) ? null : stem(word, wordHasDigit[w] === 1);
      seenWords.add(folded, start, end, hash, term);
    }
    if (term !== null) terms.push(term);
  }
  if (wordStarts.length > KEPT_WORDS) sizeWordArrays(FIRST_WORDS);
  return terms;
}

/** Word w is joined to the next by a hyphen: adjacent, one side numeric ("5-ht", "il-6"). */
function joinsNext(folded: string, w: number, count: number): boolean {
  const end = wordEnds[w]!;
  return w + 1 < count && wordNumeric[w + 1]! < CJK_RUN && wordStarts[w + 1] === end + 1 && folded.charCodeAt(end) === 0x2d && (wordNumeric[w] === 1 || wordNumeric[w + 1] === 1);
}

/** Joins the hyphen chain starting at word w into one word and adds its term; returns the chain's last word. */
function joinHyphenChain(folded: string, w: number, count: number, terms: string[]): number {
  let word = folded.slice(wordStarts[w]!, wordEnds[w]!);
  let numeric = wordNumeric[w] === 1;
  let hasDigit = wordHasDigit[w] === 1;
  while (w + 1 < count && wordNumeric[w + 1]! < CJK_RUN && wordStarts[w + 1] === wordEnds[w]! + 1 && folded.charCodeAt(wordEnds[w]!) === 0x2d) {
    if (!numeric && wordNumeric[w + 1] !== 1) break;
    w++;
    word += folded.slice(wordStarts[w]!, wordEnds[w]!);
    numeric &&= wordNumeric[w] === 1;
    hasDigit ||= wordHasDigit[w] === 1;
  }
  if (!ENGLISH_STOPWORDS.has(word)) terms.push(stem(word, hasDigit));
  return w;
}

/** A lone "s" after a straight or curly apostrophe (not the text's first word) belongs to the previous word: dropped. */
function isPossessive(folded: string, w: number): boolean {
  const start = wordStarts[w]!;
  if (w === 0 || wordEnds[w]! - start !== 1 || folded.charCodeAt(start) !== 0x73) return false;
  const before = folded.charCodeAt(start - 1);
  return before === 0x27 || before === 0x2019;
}

/** Distinct terms of a text, in first-seen order (for queries and filter words). */
export function analyzeUnique(text: string): string[] {
  return [...new Set(analyze(text))];
}
