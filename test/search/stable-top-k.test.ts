/** stableTopK gives exactly what a stable sort of everything, then a slice, gives. */
import { describe, expect, it } from 'vitest';
import { stableTopK } from '../../src/search/stable-top-k.js';
import { random } from '../../scripts/lib/random.js';

interface Item {
  rank: number;
  count: number;
  name: string;
  id: number;
}

const order = (x: Item, y: Item) => x.rank - y.rank || y.count - x.count || x.name.localeCompare(y.name);

describe('stableTopK', () => {
  it('matches sort-then-slice on random inputs full of ties', () => {
    const next = random(7);
    const pick = (n: number) => Math.floor(next() * n);
    for (let round = 0; round < 500; round++) {
      // Few distinct ranks, counts and names: most items tie with others on every key.
      const items: Item[] = Array.from({ length: pick(60) }, (_, id) => ({ rank: pick(4), count: pick(3), name: ['b', 'a', 'A', 'é', 'e', 'ab'][pick(6)]!, id }));
      const k = pick(items.length + 3);
      expect(stableTopK(items, k, order)).toEqual([...items].sort(order).slice(0, k));
    }
  });

  it('keeps input order among equal items', () => {
    const items = [3, 1, 2, 1, 3, 1].map((rank, id) => ({ rank, count: 0, name: '', id }));
    expect(stableTopK(items, 4, order).map((i) => i.id)).toEqual([1, 3, 5, 2]);
  });

  it('returns nothing for a limit of zero', () => {
    expect(stableTopK([1, 2], 0, (a, b) => a - b)).toEqual([]);
  });
});
