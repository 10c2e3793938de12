/**
 * Top-k traversal of one segment, a window of documents at a time, with
 * MaxScore pruning (Turtle & Flood 1995) on block-level bounds:
 *
 * 1. Windows are fixed runs of WINDOW paragraphs. A window no filtered-in
 *    paragraph falls in is skipped before anything is read.
 * 2. Each clause's bound in the window is the highest bound of its blocks
 *    that overlap it (block metadata only). If the bounds cannot reach the
 *    collector's threshold, the window is skipped without decoding.
 * 3. Clauses sorted by bound: the lowest ones whose bounds together cannot
 *    reach the threshold are non-essential. The essential ones are scored
 *    term at a time, in query order, into an array of partial sums, with a
 *    bitmap of the paragraphs they touched.
 * 4. Each touched paragraph that passes the filter probes the non-essential
 *    clauses, highest bound first, stopping as soon as the remaining bounds
 *    cannot lift it over the threshold. Without a filter, the non-essential
 *    clauses with fewer postings in the window than the essential ones
 *    decoded are first added to the touched paragraphs' sums in one pass
 *    (cheaper than a probe per candidate), and only the rest are probed.
 *    A candidate that all non-essential bounds but the highest cannot lift
 *    to the threshold needs that highest clause: its next match is looked up
 *    once, and the candidates before it are passed over without a probe.
 *
 * Scores equal exhaustive BM25 bit for bit: partial sums add the essential
 * clauses in query order, and a paragraph that also matched a non-essential
 * clause is re-summed from its per-clause contributions in query order, the
 * order an exhaustive scorer adds in. Pruning keeps a small relative margin
 * against rounding.
 *
 * Title clauses list articles: one posting scores every paragraph of its
 * article inside the window, and probing looks the paragraph's article up.
 */
import type { Segment } from '../segment/reader.js';
import type { Bitset } from '../filters/bitset.js';
import { NO_MORE_DOCS, type PostingsCursor } from '../segment/postings.js';
import { BLOCK_SIZE } from '../segment/format.js';
import { termScore } from './bm25.js';
import type { Collector } from './top-k.js';
import { WINDOW, scratch, type OpenClause } from './open-clauses.js';

/** Relative margin that keeps floating-point rounding from pruning a document that ties or wins. */
const PRUNING_MARGIN = 1e-9;

export interface DocRange {
  from: number;
  to: number;
}

/** Offers every document of `range` that can enter the collector's top k, with its exact score, as `docBase + doc`. */
export function scoreWindows(
  segment: Segment,
  clauses: readonly OpenClause[],
  range: DocRange,
  accept: Bitset | null,
  collector: Collector,
  docBase: number,
): void {
  const n = clauses.length;
  if (n === 0) return;
  scratch.ensure(n);
  const { bound, cost, byBound, rank, boundBelow } = scratch;
  const articleOf = segment.paragraphArticle;
  const firstParagraph = segment.articleFirstParagraph;

  let from = range.from;
  while (from < range.to) {
    const windowBase = from & ~(WINDOW - 1);
    const to = Math.min(windowBase + WINDOW, range.to);
    if (accept !== null && !anyWord(accept.words, from >>> 5, (to - 1) >>> 5)) {
      from = to;
      continue;
    }
    // Window bounds per clause, and the first paragraph any clause can still reach.
    let total = 0;
    let nextDoc = NO_MORE_DOCS;
    for (let c = 0; c < n; c++) {
      const clause = clauses[c]!;
      const cursor = clause.cursor;
      const lo = clause.perArticle ? articleOf[from]! : from;
      const hi = clause.perArticle ? articleOf[to - 1]! + 1 : to;
      let block = cursor.seekBlock(lo);
      let windowBound = 0;
      let blocks = 0;
      if (block < cursor.endBlock) {
        const first = cursor.blockFirstDoc(block);
        nextDoc = Math.min(nextDoc, clause.perArticle ? firstParagraph[first]! : first);
        const blockMax = clause.blockMax;
        let highest = 0;
        const firstBlock = block;
        for (; block < cursor.endBlock && cursor.blockFirstDoc(block) < hi; block++) {
          if (blockMax[block]! > highest) highest = blockMax[block]!;
        }
        windowBound = clause.weight * highest;
        blocks = block - firstBlock;
      }
      bound[c] = windowBound;
      cost[c] = blocks;
      total += windowBound;
    }
    if (nextDoc === NO_MORE_DOCS) return;
    if (nextDoc >= to) {
      from = nextDoc; // no clause has a posting before nextDoc
      continue;
    }
    const threshold = collector.threshold;
    if (total < threshold - PRUNING_MARGIN * Math.abs(threshold)) {
      from = to;
      continue;
    }
    const safe = threshold - PRUNING_MARGIN * Math.abs(threshold);
    const firstEssential = partition(n, bound, cost, safe, byBound, rank, boundBelow);

    if (n - firstEssential === 1) {
      const essential = byBound[firstEssential]!;
      scoreOneEssential(clauses, essential, from, to, accept, collector, firstEssential, total, docBase, articleOf, firstParagraph);
      from = to;
      continue;
    }
    const generation = scratch.nextGeneration();
    // Contributions are only needed to re-sum with non-essential ones, and only from three clauses
    // on: two values add up to the same double in either order (addition is commutative, only
    // not associative), so a one-word query (text and title) never re-sums.
    const record = firstEssential > 0 && n > 2;
    let decoded = 0;
    for (let c = 0; c < n; c++) {
      // A block whose bound, with every other clause's window bound, cannot reach the threshold
      // is not decoded: its paragraphs cannot enter the top k (a paragraph another clause
      // touches there gets a partial score, below the threshold anyway, and is dropped).
      const blockFloor = safe - (total - bound[c]!);
      if (rank[c]! >= firstEssential) decoded += accumulate(clauses[c]!, c, from, to, windowBase, articleOf, firstParagraph, record, generation, blockFloor, false);
    }
    // Without a filter every touched paragraph is a candidate: a non-essential clause with fewer
    // postings in the window than the essential ones decoded is added to the candidates' sums
    // in one pass over its blocks, instead of probed candidate by candidate. Highest bound
    // first, so the clauses left to probe are still the lowest (boundBelow stays theirs).
    let probedBelow = firstEssential;
    while (accept === null && record && probedBelow > 0 && cost[byBound[probedBelow - 1]!]! * BLOCK_SIZE <= decoded) {
      const c = byBound[--probedBelow]!;
      accumulate(clauses[c]!, c, from, to, windowBase, articleOf, firstParagraph, true, generation, safe - (total - bound[c]!), true);
    }
    collectWindow(clauses, from, to, windowBase, accept, collector, probedBelow, probedBelow < firstEssential, generation, docBase, articleOf, firstParagraph, total);
    from = to;
  }
}

/** What probeNonEssential returns for a paragraph whose bounds cannot reach the top k. */
const PRUNED = -Infinity;

/**
 * Adds the non-essential clauses' scores of `doc` to `score`, highest bound
 * first, and returns the sum, or PRUNED as soon as the bounds left cannot lift
 * it to `safe`. Each clause's value (0 when it misses) goes to scratch.probed,
 * and scratch.probedAny tells whether any matched.
 */
function probeNonEssential(clauses: readonly OpenClause[], firstEssential: number, doc: number, score: number, safe: number, articleOf: Uint32Array): number {
  const { byBound, boundBelow, probed } = scratch;
  scratch.probedAny = false;
  for (let i = firstEssential - 1; i >= 0; i--) {
    if (score + boundBelow[i + 1]! < safe) return PRUNED;
    const c = byBound[i]!;
    const clause = clauses[c]!;
    const target = clause.perArticle ? articleOf[doc]! : doc;
    probed[c] = 0;
    if (clause.cursor.advance(target) !== target) continue;
    const value = termScore(clause.weight, clause.cursor.freq, clause.lengthFactor[clause.norms[target]!]!);
    probed[c] = value;
    score += value;
    scratch.probedAny = true;
  }
  return score;
}

/**
 * A window where a single clause is essential (most windows of one- and
 * two-word queries): its postings are scored, filtered and probed as they are
 * decoded, with no bitmap and no second pass. A title posting stands for each
 * of its article's paragraphs in the window. Blocks are skipped on their bound
 * against the threshold as it rises.
 *
 * Where a block's bound plus all non-essential bounds but the highest cannot
 * reach the threshold, that highest non-essential clause is required there: a
 * paragraph missing it cannot enter the top k. Its next match is then looked
 * up first, and the paragraphs (and whole blocks) before it are passed over
 * without scoring or decoding: a one-word query's text postings only count
 * inside articles whose title also has the word, once the top k fill up.
 */
function scoreOneEssential(
  clauses: readonly OpenClause[],
  essential: number,
  from: number,
  to: number,
  accept: Bitset | null,
  collector: Collector,
  firstEssential: number,
  total: number,
  docBase: number,
  articleOf: Uint32Array,
  firstParagraph: Uint32Array,
): void {
  const { cursor, weight, norms, lengthFactor, perArticle, blockMax } = clauses[essential]!;
  const { rank, probed, byBound, boundBelow } = scratch;
  const n = clauses.length;
  let threshold = collector.threshold;
  let safe = threshold - PRUNING_MARGIN * Math.abs(threshold);
  // The non-essential clauses' bounds: a block of the essential one below safe minus them is skipped.
  const othersBound = total - scratch.bound[essential]!;
  let blockFloor = safe - othersBound;
  const top = firstEssential > 0 ? clauses[byBound[firstEssential - 1]!]! : null;
  const othersButTop = firstEssential > 0 ? boundBelow[firstEssential - 1]! : 0;
  const nonEssentialBound = boundBelow[firstEssential]!;
  /** Paragraphs from the last one looked up to this one miss `top`. */
  let topNext = 0;
  const lo = perArticle ? articleOf[from]! : from;
  const hi = perArticle ? articleOf[to - 1]! + 1 : to;
  const lastDocs = cursor.field.blockLastDoc;
  for (let block = cursor.seekBlock(lo); block < cursor.endBlock && cursor.blockFirstDoc(block) < hi; block++) {
    const blockBound = weight * blockMax[block]!;
    const lastInWindow = lastDocs[block]! >= hi;
    if (blockBound < blockFloor) {
      if (lastInWindow) break;
      continue;
    }
    const needsTop = top !== null && blockBound + othersButTop < safe;
    if (needsTop) {
      const firstDoc = Math.max(cursor.blockFirstDoc(block), lo);
      const first = perArticle ? Math.max(firstParagraph[firstDoc]!, from) : firstDoc;
      if (topNext < first) topNext = nextMatch(top, first, articleOf, firstParagraph);
      const last = perArticle ? firstParagraph[lastDocs[block]! + 1]! - 1 : lastDocs[block]!;
      if (topNext > Math.min(last, to - 1)) {
        if (lastInWindow) break;
        continue; // no paragraph of the block matches the required clause: not decoded
      }
    }
    const { docs, freqs } = cursor;
    const count = cursor.decodeBlock(block);
    for (let i = firstAtOrAfter(docs, count, lo); i < count; i++) {
      const doc = docs[i]!;
      if (doc >= hi) break;
      // A paragraph's posting the filter leaves out costs its bit only (an article's, each paragraph's bit below).
      if (!perArticle && !accepts(accept, doc)) continue;
      const end = perArticle ? Math.min(firstParagraph[doc + 1]!, to) : doc + 1;
      if (needsTop && end <= topNext) continue;
      const value = termScore(weight, freqs[i]!, lengthFactor[norms[doc]!]!);
      // probeNonEssential's first test, made once per posting and before the required clause is
      // looked up: with every non-essential bound, this posting still cannot reach the top k.
      if (value + nonEssentialBound < safe) continue;
      // The same test as the block's, on the posting's own score: a posting the other
      // non-essential clauses cannot lift alone needs `top`, looked up once for the paragraphs
      // up to its next match rather than probed paragraph by paragraph.
      const postingNeedsTop = needsTop || (top !== null && value + othersButTop < safe);
      if (postingNeedsTop && end <= topNext) continue;
      for (let p = perArticle ? Math.max(firstParagraph[doc]!, from) : doc; p < end; p++) {
        // The filter first: its bit costs less than a lookup of `top`.
        if (perArticle && !accepts(accept, p)) continue;
        if (postingNeedsTop) {
          if (p > topNext) topNext = nextMatch(top, p, articleOf, firstParagraph);
          if (p < topNext) {
            p = topNext - 1; // the paragraphs before topNext miss the required clause
            continue;
          }
        }
        let score = probeNonEssential(clauses, firstEssential, p, value, safe, articleOf);
        // Below safe, the sum in another order cannot reach the threshold either (the margin dwarfs rounding).
        if (score === PRUNED || score < safe) continue;
        if (scratch.probedAny && n > 2) {
          // Re-sum in query order, as the exhaustive scorer adds.
          score = 0;
          for (let c = 0; c < n; c++) score += c === essential ? value : rank[c]! < firstEssential ? probed[c]! : 0;
        }
        if (score < threshold) continue;
        collector.collect(docBase + p, score);
        threshold = collector.threshold;
        safe = threshold - PRUNING_MARGIN * Math.abs(threshold);
        blockFloor = safe - othersBound;
      }
    }
    if (lastInWindow) break;
  }
}

/** Whether the filter (none: every paragraph) lets the paragraph through. */
function accepts(accept: Bitset | null, paragraph: number): boolean {
  return accept === null || (accept.words[paragraph >>> 5]! & (1 << (paragraph & 31))) !== 0;
}

/** Index of the first of a decoded block's `count` documents at or after `lo` (a block may start before the window). */
function firstAtOrAfter(docs: Int32Array, count: number, lo: number): number {
  let i = 0;
  while (i < count && docs[i]! < lo) i++;
  return i;
}

/** The first paragraph at or after `paragraph` that the clause matches (a title clause: by the paragraph's article). */
function nextMatch(clause: OpenClause, paragraph: number, articleOf: Uint32Array, firstParagraph: Uint32Array): number {
  if (!clause.perArticle) return clause.cursor.advance(paragraph);
  const article = clause.cursor.advance(articleOf[paragraph]!);
  return article === NO_MORE_DOCS ? NO_MORE_DOCS : Math.max(paragraph, firstParagraph[article]!);
}

/**
 * The cursor of the non-essential clause every candidate of the window must
 * match, or null. That is the highest-bound non-essential clause when the
 * essential clauses' bounds plus the other non-essential ones cannot reach
 * `safe` (typical of a one-word query once the top k fill up: neither the
 * title nor the text alone can reach the threshold). Only a paragraph-level
 * clause qualifies (its postings are the candidates' own numbers).
 */
function requiredClause(clauses: readonly OpenClause[], firstEssential: number, total: number, safe: number): PostingsCursor | null {
  if (firstEssential === 0) return null;
  const { byBound, boundBelow } = scratch;
  const top = clauses[byBound[firstEssential - 1]!]!;
  const essentialBounds = total - boundBelow[firstEssential]!;
  if (top.perArticle || essentialBounds + boundBelow[firstEssential - 1]! >= safe) return null;
  return top.cursor;
}

/** True when any of words[first..last] is non-zero. */
function anyWord(words: Uint32Array, first: number, last: number): boolean {
  for (let i = first; i <= last; i++) if (words[i] !== 0) return true;
  return false;
}

/**
 * Splits the clauses into non-essential ones, whose bounds together stay below
 * `safe` (a paragraph matching only them cannot enter the top k, so they are
 * only probed), and essential ones, which are decoded. Classic MaxScore takes
 * the lowest bounds first; here clauses are taken greedily by blocks saved per
 * unit of bound (window blocks / bound), skipping any that no longer fits. On a
 * one-word query whose long text list alone cannot reach the k-th score, the
 * text list becomes non-essential and the short title list drives.
 *
 * Leaves in byBound the non-essential clauses first, by increasing bound
 * (probing goes from the highest down), then the essential ones; rank[c] is a
 * clause's position there and boundBelow[i] the sum of the first i bounds.
 * Returns the number of non-essential clauses.
 */
function partition(n: number, bound: Float64Array, cost: Float64Array, safe: number, byBound: Int32Array, rank: Int32Array, boundBelow: Float64Array): number {
  // Insertion sort (few clauses) by cost / bound, highest first; a zero bound costs nothing to leave out.
  for (let i = 0; i < n; i++) {
    const key = bound[i]! > 0 ? cost[i]! / bound[i]! : Infinity;
    let j = i;
    while (j > 0 && keyOf(byBound[j - 1]!, bound, cost) < key) {
      byBound[j] = byBound[j - 1]!;
      j--;
    }
    byBound[j] = i;
  }
  let sum = 0;
  let nonEssential = 0;
  for (let i = 0; i < n; i++) {
    const c = byBound[i]!;
    if (sum + bound[c]! < safe) {
      sum += bound[c]!;
      rank[c] = -1; // marked non-essential
      nonEssential++;
    } else rank[c] = n;
  }
  // Non-essential clauses first, by increasing bound; essential ones after, in any order.
  let front = 0;
  let back = nonEssential;
  for (let c = 0; c < n; c++) {
    if (rank[c] === -1) {
      let j = front++;
      while (j > 0 && bound[byBound[j - 1]!]! > bound[c]!) {
        byBound[j] = byBound[j - 1]!;
        j--;
      }
      byBound[j] = c;
    } else byBound[back++] = c;
  }
  boundBelow[0] = 0;
  for (let i = 0; i < n; i++) {
    rank[byBound[i]!] = i;
    boundBelow[i + 1] = boundBelow[i]! + bound[byBound[i]!]!;
  }
  return nonEssential;
}

function keyOf(c: number, bound: Float64Array, cost: Float64Array): number {
  return bound[c]! > 0 ? cost[c]! / bound[c]! : Infinity;
}

/**
 * Adds one clause's scores for the paragraphs [from, to) of the window to the
 * partial sums, marking the paragraphs touched; with `touchedOnly`, only to
 * paragraphs already touched (a non-essential clause: it adds no candidate).
 * Returns the postings decoded.
 */
function accumulate(
  clause: OpenClause,
  slot: number,
  from: number,
  to: number,
  windowBase: number,
  articleOf: Uint32Array,
  firstParagraph: Uint32Array,
  record: boolean,
  generation: number,
  blockFloor: number,
  touchedOnly: boolean,
): number {
  const { cursor, weight, norms, lengthFactor, perArticle, blockMax } = clause;
  const { partial, touched, contribution, stamp } = scratch;
  const slotBase = slot * WINDOW;
  const lo = perArticle ? articleOf[from]! : from;
  const hi = perArticle ? articleOf[to - 1]! + 1 : to;
  const lastDocs = cursor.field.blockLastDoc;
  let decoded = 0;
  for (let block = cursor.seekBlock(lo); block < cursor.endBlock && cursor.blockFirstDoc(block) < hi; block++) {
    if (weight * blockMax[block]! < blockFloor) {
      if (lastDocs[block]! >= hi) break;
      continue;
    }
    const { docs, freqs } = cursor;
    const count = cursor.decodeBlock(block);
    decoded += count;
    for (let i = firstAtOrAfter(docs, count, lo); i < count; i++) {
      const doc = docs[i]!;
      if (doc >= hi) break;
      const value = termScore(weight, freqs[i]!, lengthFactor[norms[doc]!]!);
      // A title posting scores every paragraph of its article inside the window.
      const first = perArticle ? Math.max(firstParagraph[doc]!, from) : doc;
      const end = perArticle ? Math.min(firstParagraph[doc + 1]!, to) : doc + 1;
      for (let p = first; p < end; p++) {
        const offset = p - windowBase;
        const word = offset >>> 5;
        const bit = 1 << (offset & 31);
        if ((touched[word]! & bit) === 0) {
          if (touchedOnly) continue; // a non-essential clause adds to candidates, it makes none
          touched[word]! |= bit;
          partial[offset] = value;
        } else partial[offset]! += value;
        if (record) {
          contribution[slotBase + offset] = value;
          stamp[slotBase + offset] = generation;
        }
      }
    }
    if (lastDocs[block]! >= hi) break; // the block reaches into the next window
  }
  return decoded;
}

/** Walks the touched paragraphs of the window: filter, probe non-essential clauses, re-sum, collect. */
function collectWindow(
  clauses: readonly OpenClause[],
  from: number,
  to: number,
  windowBase: number,
  accept: Bitset | null,
  collector: Collector,
  firstEssential: number,
  /** Non-essential clauses were added to the sums (accumulate's touchedOnly): the sums are not in query order. */
  added: boolean,
  generation: number,
  docBase: number,
  articleOf: Uint32Array,
  firstParagraph: Uint32Array,
  total: number,
): void {
  const { partial, touched, contribution, stamp, rank, probed } = scratch;
  const n = clauses.length;
  let threshold = collector.threshold;
  let safe = threshold - PRUNING_MARGIN * Math.abs(threshold);
  const required = requiredClause(clauses, firstEssential, total, safe);
  const { byBound, boundBelow } = scratch;
  const top = firstEssential > 0 ? clauses[byBound[firstEssential - 1]!]! : null;
  const othersButTop = firstEssential > 0 ? boundBelow[firstEssential - 1]! : 0;
  const probedBound = boundBelow[firstEssential]!;
  /** Candidates from the last one looked up to this one miss `top`. */
  let topNext = 0;
  const acceptBase = windowBase >>> 5;
  const lastWord = (to - 1 - windowBase) >>> 5;
  for (let w = (from - windowBase) >>> 5; w <= lastWord; w++) {
    let bits = touched[w]!;
    touched[w] = 0;
    if (accept !== null) bits &= accept.words[acceptBase + w]!;
    while (bits !== 0) {
      const low = bits & -bits;
      bits ^= low;
      const offset = (w << 5) + 31 - Math.clz32(low);
      const doc = windowBase + offset;
      if (required !== null) {
        const next = required.advance(doc);
        if (next !== doc) {
          // Every candidate before the required clause's next paragraph misses it: skip them all
          // (clearing their touched bits: the bitmap must be empty for the next window).
          const nextOffset = next - windowBase;
          if (nextOffset > (lastWord << 5) + 31) {
            for (let rest = w + 1; rest <= lastWord; rest++) touched[rest] = 0;
            return;
          }
          const nextWord = nextOffset >>> 5;
          if (nextWord > w) {
            for (let skipped = w + 1; skipped < nextWord; skipped++) touched[skipped] = 0;
            w = nextWord;
            bits = touched[w]!;
            touched[w] = 0;
            if (accept !== null) bits &= accept.words[acceptBase + w]!;
          }
          bits &= ~((1 << (nextOffset & 31)) - 1);
          continue;
        }
      }
      const sum = partial[offset]!;
      if (sum + probedBound < safe) continue; // probeNonEssential's first test, without the call
      // A candidate the clauses below `top` cannot lift alone needs `top`: looked up once for
      // the candidates up to its next match rather than probed candidate by candidate.
      if (top !== null && sum + othersButTop < safe) {
        if (doc > topNext) topNext = nextMatch(top, doc, articleOf, firstParagraph);
        if (doc < topNext) continue;
      }
      let score = probeNonEssential(clauses, firstEssential, doc, sum, safe, articleOf);
      // Below safe, the sum in another order cannot reach the threshold either (the margin dwarfs rounding).
      if (score === PRUNED || score < safe) continue;
      if ((scratch.probedAny || added) && n > 2) {
        // Re-sum in query order (clauses are in query order) so the score is the exhaustive one.
        score = 0;
        for (let c = 0; c < n; c++) {
          if (rank[c]! < firstEssential) score += probed[c]!;
          else if (stamp[c * WINDOW + offset] === generation) score += contribution[c * WINDOW + offset]!;
        }
      }
      if (score < threshold) continue;
      collector.collect(docBase + doc, score);
      threshold = collector.threshold;
      safe = threshold - PRUNING_MARGIN * Math.abs(threshold);
    }
  }
}
