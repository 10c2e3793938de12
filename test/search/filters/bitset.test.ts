/** Bitset against a plain Set of indexes: every operation, at sizes around word boundaries. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Bitset } from '../../../src/search/filters/bitset.js';

const sizes = fc.constantFrom(1, 31, 32, 33, 63, 64, 65, 100, 257);

function bitsetOf(size: number, indexes: readonly number[]): Bitset {
  const bits = new Bitset(size);
  for (const index of indexes) bits.add(index % size);
  return bits;
}

function members(bits: Bitset): number[] {
  const found: number[] = [];
  bits.forEach((index) => found.push(index));
  return found;
}

const sorted = (values: Iterable<number>) => [...values].sort((a, b) => a - b);

describe('Bitset', () => {
  it('add, remove, has, count and forEach agree with a Set', () => {
    fc.assert(
      fc.property(sizes, fc.array(fc.tuple(fc.boolean(), fc.nat(1000)), { maxLength: 200 }), (size, steps) => {
        const bits = new Bitset(size);
        const model = new Set<number>();
        for (const [adding, raw] of steps) {
          const index = raw % size;
          if (adding) {
            bits.add(index);
            model.add(index);
          } else {
            bits.remove(index);
            model.delete(index);
          }
        }
        expect(members(bits)).toEqual(sorted(model));
        expect(bits.count()).toBe(model.size);
        for (let index = 0; index < size; index++) expect(bits.has(index)).toBe(model.has(index));
      }),
      { numRuns: 200 },
    );
  });

  it('and, or, andNot are set intersection, union and difference, in place', () => {
    fc.assert(
      fc.property(sizes, fc.array(fc.nat(1000)), fc.array(fc.nat(1000)), (size, left, right) => {
        const a = new Set(left.map((i) => i % size));
        const b = new Set(right.map((i) => i % size));
        const intersection = bitsetOf(size, left);
        expect(intersection.and(bitsetOf(size, right))).toBe(intersection);
        expect(members(intersection)).toEqual(sorted([...a].filter((i) => b.has(i))));
        expect(members(bitsetOf(size, left).or(bitsetOf(size, right)))).toEqual(sorted(new Set([...a, ...b])));
        expect(members(bitsetOf(size, left).andNot(bitsetOf(size, right)))).toEqual(sorted([...a].filter((i) => !b.has(i))));
      }),
      { numRuns: 200 },
    );
  });

  it('full sets exactly size bits: none past the end, so count and andNot stay exact', () => {
    for (const size of [1, 31, 32, 33, 64, 65, 1000]) {
      const full = Bitset.full(size);
      expect(full.count()).toBe(size);
      expect(members(full)).toEqual(Array.from({ length: size }, (_, i) => i));
      expect(Bitset.full(size).andNot(full).count()).toBe(0);
    }
  });

  it('a clone is independent of its source', () => {
    const source = bitsetOf(70, [1, 40, 69]);
    const copy = source.clone();
    copy.remove(40);
    copy.add(2);
    expect(members(source)).toEqual([1, 40, 69]);
    expect(members(copy)).toEqual([1, 2, 69]);
  });

  it('round-trips through its bytes (what deletion files hold), little-endian', () => {
    fc.assert(
      fc.property(sizes, fc.array(fc.nat(1000)), (size, indexes) => {
        const bits = bitsetOf(size, indexes);
        const bytes = Uint8Array.from(bits.toBytes());
        expect(bytes.length).toBe(Math.ceil(size / 32) * 4);
        expect(members(Bitset.fromBytes(size, bytes))).toEqual(members(bits));
      }),
      { numRuns: 100 },
    );
    expect(Array.from(bitsetOf(40, [0, 9, 32]).toBytes())).toEqual([0x01, 0x02, 0, 0, 0x01, 0, 0, 0]);
  });

  it('lives in shared memory, so workers read the same words without a copy', () => {
    const bits = bitsetOf(64, [5]);
    expect(bits.words.buffer).toBeInstanceOf(SharedArrayBuffer);
    const view = new Bitset(64, bits.words);
    bits.add(6);
    expect(view.has(6)).toBe(true);
  });
});
