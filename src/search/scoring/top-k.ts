/**
 * Collectors receive scored documents from a traversal (window-scorer.ts),
 * which asks them for the score a document must reach to matter.
 *
 * TopKCollector keeps the k best (doc, score) pairs in a binary heap of typed
 * arrays, worst at the root. Order: higher score first, then lower document
 * first, so results are deterministic and equal to a full sort. It is reused
 * from query to query (`reset`): no allocation per query but the result.
 */
export interface Collector {
  /** Documents scoring below this cannot be kept; -Infinity while anything can. */
  readonly threshold: number;
  collect(doc: number, score: number): void;
}

export interface ScoredDocs {
  /** Best first. */
  docs: Int32Array;
  scores: Float64Array;
}

export class TopKCollector implements Collector {
  private docs = new Int32Array(16);
  private scores = new Float64Array(16);
  private size = 0;
  private k = 0;
  /** A slot shared by every range of one query: the best k-th score any of them reached. */
  private shared: Float64Array | null = null;

  constructor(k = 0, shared: Float64Array | null = null) {
    this.reset(k, shared);
  }

  reset(k: number, shared: Float64Array | null = null): this {
    if (this.docs.length < k) {
      this.docs = new Int32Array(k);
      this.scores = new Float64Array(k);
    }
    this.k = k;
    this.size = 0;
    this.shared = shared;
    return this;
  }

  get full(): boolean {
    return this.size >= this.k;
  }

  get threshold(): number {
    const local = this.size >= this.k ? (this.k === 0 ? Infinity : this.scores[0]!) : -Infinity;
    return this.shared !== null && this.shared[0]! > local ? this.shared[0]! : local;
  }

  /** True when entry i ranks below (score, doc). */
  private worseThan(i: number, score: number, doc: number): boolean {
    const s = this.scores[i]!;
    return s < score || (s === score && this.docs[i]! > doc);
  }

  collect(doc: number, score: number): void {
    if (this.size < this.k) {
      this.siftUp(this.size++, doc, score);
    } else {
      if (this.k === 0 || !this.worseThan(0, score, doc)) return;
      this.siftDown(doc, score);
    }
    if (this.shared !== null && this.size >= this.k && this.scores[0]! > this.shared[0]!) this.shared[0] = this.scores[0]!;
  }

  /** The kept documents, best first; empties the collector. */
  take(): ScoredDocs {
    const n = this.size;
    const docs = new Int32Array(n);
    const scores = new Float64Array(n);
    // Popping the root (the worst) n times fills the result from its end.
    for (let out = n - 1; out >= 0; out--) {
      docs[out] = this.docs[0]!;
      scores[out] = this.scores[0]!;
      const last = --this.size;
      if (last > 0) this.siftDown(this.docs[last]!, this.scores[last]!);
    }
    return { docs, scores };
  }

  /** Places (doc, score) at i or above, moving better parents down. */
  private siftUp(i: number, doc: number, score: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!(score < this.scores[parent]! || (score === this.scores[parent]! && doc > this.docs[parent]!))) break;
      this.docs[i] = this.docs[parent]!;
      this.scores[i] = this.scores[parent]!;
      i = parent;
    }
    this.docs[i] = doc;
    this.scores[i] = score;
  }

  /** Replaces the root by (doc, score) and restores the heap below it. */
  private siftDown(doc: number, score: number): void {
    const n = this.size;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && this.worseThan(child + 1, this.scores[child]!, this.docs[child]!)) child++;
      if (!this.worseThan(child, score, doc)) break;
      this.docs[i] = this.docs[child]!;
      this.scores[i] = this.scores[child]!;
      i = child;
    }
    this.docs[i] = doc;
    this.scores[i] = score;
  }
}

/** Merges lists sorted best first into the k best, ties to the lower document. */
export function mergeScored(lists: readonly ScoredDocs[], k: number): ScoredDocs {
  if (lists.length === 1 && lists[0]!.docs.length <= k) return lists[0]!;
  const collector = new TopKCollector(k);
  for (const list of lists) for (let i = 0; i < list.docs.length; i++) collector.collect(list.docs[i]!, list.scores[i]!);
  return collector.take();
}
