import { describe, expect, it } from 'vitest';
import { bitWidth, pack, packedWords, unpack, unpackGaps, unpackLoop, unpackPlusOne } from '../../../src/search/segment/bitpack.js';
import { BLOCK_SIZE } from '../../../src/search/segment/format.js';

/** Deterministic values of at most `bits` bits, the largest one included. */
function valuesOfWidth(bits: number, count: number, seed: number): number[] {
  const max = bits === 32 ? 0xffffffff : 2 ** bits - 1;
  let state = seed;
  const values = Array.from({ length: count }, () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return bits === 0 ? 0 : state % (max + 1);
  });
  values[count >> 1] = max;
  return values;
}

describe('frame-of-reference bit packing', () => {
  for (let bits = 0; bits <= 32; bits++) {
    it(`round-trips full and partial blocks at ${bits} bits`, () => {
      for (const count of [BLOCK_SIZE, 1, 77, BLOCK_SIZE - 1]) {
        const values = valuesOfWidth(bits, count, bits * 1000 + count);
        // Packed after a word of other data, so decoders must honour the offset.
        const words = new Uint32Array(1 + packedWords(count, bits) + 1).fill(0xdeadbeef);
        const end = pack(values, count, bits, words, 1);
        expect(end).toBe(1 + packedWords(count, bits));
        expect(words[0]).toBe(0xdeadbeef);
        expect(words[end]).toBe(0xdeadbeef);
        const out = new Int32Array(BLOCK_SIZE).fill(-7);
        unpack(words, 1, bits, count, out);
        expect(Array.from(out.subarray(0, count), (v) => v >>> 0)).toEqual(values);
        const looped = new Int32Array(BLOCK_SIZE);
        unpackLoop(words, 1, bits, count, looped);
        expect(looped.subarray(0, count)).toEqual(out.subarray(0, count));
      }
    });
  }

  // Frequencies and gaps are stored minus one; widths up to 24 bits keep the running sums of documents exact in int32.
  for (let bits = 0; bits <= 24; bits++) {
    it(`decodes frequencies and document gaps in the same pass at ${bits} bits`, () => {
      for (const count of [BLOCK_SIZE, 1, 77]) {
        const values = valuesOfWidth(bits, count, bits * 7919 + count);
        const words = new Uint32Array(1 + packedWords(count, bits)).fill(0xdeadbeef);
        pack(values, count, bits, words, 1);
        const plusOne = new Int32Array(BLOCK_SIZE);
        unpackPlusOne(words, 1, bits, count, plusOne);
        expect(Array.from(plusOne.subarray(0, count))).toEqual(values.map((v) => v + 1));
        const previous = 1000 + bits;
        const docs = new Int32Array(BLOCK_SIZE);
        unpackGaps(words, 1, bits, count, docs, previous);
        let doc = previous;
        expect(Array.from(docs.subarray(0, count))).toEqual(values.map((gap) => (doc += gap + 1)));
      }
    });
  }

  it('sizes widths by the largest value', () => {
    expect([0, 1, 2, 3, 255, 256, 0x7fffffff, 0xffffffff].map(bitWidth)).toEqual([0, 1, 2, 2, 8, 9, 31, 32]);
    expect(packedWords(128, 9)).toBe(36);
    expect(packedWords(3, 0)).toBe(0);
  });
});
