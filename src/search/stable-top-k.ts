/**
 * The `k` first items of a sequence under an order, in that order, without sorting the whole
 * sequence: a bounded max-heap keeps the `k` best seen so far (its root the worst of them), so
 * a suggestion over 100,000 matching names costs n·log k comparisons and k items of memory.
 *
 * Equal items keep their input order, as a stable sort then slice would: the heap compares
 * (item, position) pairs, whose order is total.
 */
export function stableTopK<T>(items: Iterable<T>, k: number, compare: (x: T, y: T) => number): T[] {
  if (k <= 0) return [];
  const heap: { item: T; position: number }[] = [];
  const order = (a: { item: T; position: number }, b: { item: T; position: number }) => compare(a.item, b.item) || a.position - b.position;
  const worse = (a: { item: T; position: number }, b: { item: T; position: number }) => order(a, b) > 0;
  const siftDown = (from: number) => {
    let i = from;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let worst = i;
      if (left < heap.length && worse(heap[left]!, heap[worst]!)) worst = left;
      if (right < heap.length && worse(heap[right]!, heap[worst]!)) worst = right;
      if (worst === i) return;
      [heap[i], heap[worst]] = [heap[worst]!, heap[i]!];
      i = worst;
    }
  };
  let position = 0;
  for (const item of items) {
    const entry = { item, position: position++ };
    if (heap.length < k) {
      heap.push(entry);
      for (let i = heap.length - 1; i > 0; ) {
        const parent = (i - 1) >> 1;
        if (!worse(heap[i]!, heap[parent]!)) break;
        [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
        i = parent;
      }
    } else if (worse(heap[0]!, entry)) {
      heap[0] = entry;
      siftDown(0);
    }
  }
  return heap.sort(order).map((e) => e.item);
}
