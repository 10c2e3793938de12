/**
 * Keeps the k best (doc, score) pairs. Order: higher score first, then lower
 * document first, so results are deterministic and equal to a full sort.
 */
export interface ScoredDoc {
  doc: number;
  score: number;
}

export function compareScored(a: ScoredDoc, b: ScoredDoc): number {
  return b.score - a.score || a.doc - b.doc;
}

export class TopK {
  private readonly heap: ScoredDoc[] = [];

  constructor(readonly k: number) {}

  get full(): boolean {
    return this.heap.length >= this.k;
  }

  /** Score a candidate must beat; -Infinity until k documents are held. */
  get threshold(): number {
    return this.full ? this.heap[0]!.score : -Infinity;
  }

  /** True when (a) ranks below (b): the heap keeps the worst at its root. */
  private worse(a: ScoredDoc, b: ScoredDoc): boolean {
    return a.score < b.score || (a.score === b.score && a.doc > b.doc);
  }

  /** Offers a candidate; returns true when it was kept. */
  offer(doc: number, score: number): boolean {
    const entry = { doc, score };
    if (!this.full) {
      this.heap.push(entry);
      this.siftUp(this.heap.length - 1);
      return true;
    }
    if (!this.worse(this.heap[0]!, entry)) return false;
    this.heap[0] = entry;
    this.siftDown(0);
    return true;
  }

  /** The kept documents, best first. */
  sorted(): ScoredDoc[] {
    return [...this.heap].sort(compareScored);
  }

  private siftUp(i: number): void {
    const h = this.heap;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.worse(h[i]!, h[parent]!)) break;
      [h[i], h[parent]] = [h[parent]!, h[i]!];
      i = parent;
    }
  }

  private siftDown(i: number): void {
    const h = this.heap;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let worst = i;
      if (left < h.length && this.worse(h[left]!, h[worst]!)) worst = left;
      if (right < h.length && this.worse(h[right]!, h[worst]!)) worst = right;
      if (worst === i) return;
      [h[i], h[worst]] = [h[worst]!, h[i]!];
      i = worst;
    }
  }
}
