/**
 * A small, self-contained sentence scorer for the extractive generator:
 * sentence splitting, a crude term normaliser and BM25 over the sentences
 * of the given contexts (each sentence is a "document"). The work pauses
 * after every sentence and every few words (see turns.ts), so a caller can
 * give the event loop turns while it scores long paragraphs.
 */
import { finishNow, type Steps } from './turns.js';

// Function words that would make every sentence look relevant.
const STOPWORDS = new Set(
  ('a an and are as at be been but by can could did do does for from had has have how i if in into is it its ' +
    'may might no not of on or our should so such than that the their them then there these they this those to ' +
    'was we were what when where which while who whom why will with would you your about between both each ' +
    'more most other over some any all also only very much many one two ' +
    // Generic words of everyday questions: "the meaning of life" must not match "quality of life" and "meaningful".
    'meaning purpose life')
    .split(' '),
);

// Abbreviations whose trailing period does not end a sentence.
const ABBREVIATIONS = /\b(?:e\.g|i\.e|et al|fig|figs|eq|ref|refs|vs|approx|ca|cf|no|dr|mr|mrs|ms|st|resp|incl)\.$/i;

// Candidate boundaries: end punctuation followed by space and an uppercase letter, digit or quote; or a blank line.
const SENTENCE_BOUNDARY = /(?<=[.!?])\s+(?=[\p{Lu}\p{N}"'(\[])|\n\s*\n/gu;

export function splitSentences(text: string): string[] {
  return finishNow(sentencesOf(text));
}

function* sentencesOf(text: string): Steps<string[]> {
  const sentences: string[] = [];
  let current = '';
  for (const piece of piecesBetween(text, SENTENCE_BOUNDARY)) {
    current = current ? `${current} ${piece}` : piece;
    if (!ABBREVIATIONS.test(current.trimEnd())) {
      if (current.trim()) sentences.push(current.trim());
      current = '';
    }
    yield;
  }
  if (current.trim()) sentences.push(current.trim());
  return sentences;
}

/** The pieces `text.split(boundary)` gives, one at a time (split cuts a long text all at once). */
function* piecesBetween(text: string, boundary: RegExp): Generator<string, void, void> {
  let start = 0;
  for (const match of text.matchAll(boundary)) {
    yield text.slice(start, match.index);
    start = match.index + match[0].length;
  }
  yield text.slice(start);
}

const ELLIPSIS = '\u2026';

/**
 * The sentence as an answer quotes it: whole when within `maxChars`, else cut at the last
 * word boundary before the limit (mid-word only for a single word longer than half of it)
 * and ended with an ellipsis, so the quote shows it stops there.
 */
export function quoteOf(sentence: string, maxChars: number): string {
  if (sentence.length <= maxChars) return sentence;
  let end = maxChars - ELLIPSIS.length;
  const lastSpace = sentence.slice(0, end + 1).search(/\s\S*$/);
  if (lastSpace >= end / 2) end = lastSpace;
  // Never cut between the two halves of a surrogate pair.
  else if (/[\ud800-\udbff]/.test(sentence[end - 1]!)) end--;
  return sentence.slice(0, end).trimEnd() + ELLIPSIS;
}

/** Lowercased content words, lightly stemmed ("treated" ~ "treatment" ~ "treat"). */
export function terms(text: string): string[] {
  return finishNow(termsOf(text));
}

// A "sentence" can be a whole paragraph without end punctuation (a table dumped as text): its words are
// taken a thousand at a time, so it pauses too.
const WORDS_PER_PAUSE = 1024;

function* termsOf(text: string): Steps<string[]> {
  const out: string[] = [];
  let words = 0;
  for (const match of text.toLowerCase().matchAll(/[\p{L}\p{N}]+(?:[-'][\p{L}\p{N}]+)*/gu)) {
    if (++words % WORDS_PER_PAUSE === 0) yield;
    const word = match[0].replace(/'s?$/, '');
    if (STOPWORDS.has(word) || (word.length < 2 && !/\d/.test(word))) continue;
    out.push(stem(word));
  }
  return out;
}

// Tried in order; the first that leaves a stem of 3+ letters is removed.
const SUFFIXES = ['ational', 'ation', 'ement', 'ment', 'ness', 'ing', 'ies', 'ed', 'ly', 'es', 's'];

/** A crude suffix stripper: enough to match inflections of the same word, not a linguistic stemmer. */
function stem(word: string): string {
  if (/\d/.test(word)) return word;
  for (const suffix of SUFFIXES) {
    if (!word.endsWith(suffix) || word.length - suffix.length < 3) continue;
    // "analysis", "status", "class" are not plurals.
    if (suffix === 's' && /(?:ss|us|is)$/.test(word)) break;
    word = word.slice(0, -suffix.length) + (suffix === 'ies' ? 'y' : '');
    break;
  }
  // "disease" ~ "diseas(es)", "require" ~ "requir(ed)".
  return word.length > 3 && word.endsWith('e') ? word.slice(0, -1) : word;
}

export interface ScoredSentence {
  text: string;
  /** Index of the context the sentence comes from (0 = best-ranked). */
  contextIndex: number;
  /** BM25 score of the sentence against the question. */
  score: number;
  /** Share of the question's idf weight the sentence contains, in [0, 1]. */
  coverage: number;
  /** Distinct question terms the sentence contains. */
  matched: number;
  /** Distinct terms of the question. */
  questionTerms: number;
}

const K1 = 1.2;
const B = 0.5;

/** Scores every sentence of `passages` against `question`, best first. */
export function scoreSentences(question: string, passages: readonly string[]): ScoredSentence[] {
  return finishNow(sentenceScoring(question, passages));
}

/**
 * scoreSentences as work that pauses (see turns.ts). A passage is taken from `passages` only once
 * the ones before it are analysed, so a text read on use is read in its own turn.
 */
export function* sentenceScoring(question: string, passages: Iterable<string>): Steps<ScoredSentence[]> {
  const queryTerms = [...new Set(terms(question))];
  const docs: { text: string; contextIndex: number; terms: string[] }[] = [];
  let contextIndex = 0;
  for (const passage of passages) {
    for (const text of yield* sentencesOf(passage)) {
      docs.push({ text, contextIndex, terms: yield* termsOf(text) });
      yield;
    }
    contextIndex++;
  }
  if (docs.length === 0 || queryTerms.length === 0) return [];

  const docFreq = new Map<string, number>();
  for (const doc of docs) {
    for (const t of new Set(doc.terms)) docFreq.set(t, (docFreq.get(t) ?? 0) + 1);
    yield;
  }
  const idf = (t: string) => {
    const df = docFreq.get(t) ?? 0;
    return Math.log(1 + (docs.length - df + 0.5) / (df + 0.5));
  };
  const queryWeight = queryTerms.reduce((sum, t) => sum + idf(t), 0);
  const avgLength = docs.reduce((sum, d) => sum + d.terms.length, 0) / docs.length || 1;

  const scored: ScoredSentence[] = [];
  for (const doc of docs) {
    const tf = new Map<string, number>();
    for (const t of doc.terms) tf.set(t, (tf.get(t) ?? 0) + 1);
    let score = 0;
    let covered = 0;
    let matched = 0;
    for (const t of queryTerms) {
      const f = tf.get(t);
      if (!f) continue;
      const w = idf(t);
      covered += w;
      matched++;
      score += (w * f * (K1 + 1)) / (f + K1 * (1 - B + (B * doc.terms.length) / avgLength));
    }
    scored.push({ text: doc.text, contextIndex: doc.contextIndex, score, coverage: covered / queryWeight, matched, questionTerms: queryTerms.length });
    yield;
  }
  // Ties go to the better-ranked context, then to the earlier sentence (stable sort).
  return scored.sort((a, b) => b.score - a.score || a.contextIndex - b.contextIndex);
}
