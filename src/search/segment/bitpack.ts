/**
 * Frame-of-reference bit packing of postings blocks: up to BLOCK_SIZE
 * non-negative integers stored at one bit width (0..32), least significant
 * bit first, in 32-bit words. A value may straddle two words.
 *
 * Full blocks (the bulk of every long list) decode through a function
 * specialised for their width, unrolled over the block: constant shifts and
 * masks and no loop, which V8 compiles to straight-line code. Each is
 * generated on first use (one per kind and width); a partial last block uses
 * the generic loop. Besides the plain values, two kinds fold the postings' own
 * step into the same pass (postings store gaps and frequencies minus one):
 * `unpackGaps` turns gaps into documents by a running sum, `unpackPlusOne`
 * adds one. A separate pass over the block cost as much as the unpacking.
 */
import { BLOCK_SIZE } from './format.js';

/** Bits needed to store `value` (0 for 0). */
export function bitWidth(value: number): number {
  return value === 0 ? 0 : 32 - Math.clz32(value);
}

/** Words taken by `count` values of `bits` bits. */
export function packedWords(count: number, bits: number): number {
  return Math.ceil((count * bits) / 32);
}

/** Packs `count` values of `values` at `bits` bits into `out` from word `offset`; returns the word after them. */
export function pack(values: ArrayLike<number>, count: number, bits: number, out: Uint32Array, offset: number): number {
  const words = packedWords(count, bits);
  out.fill(0, offset, offset + words);
  for (let i = 0, bit = 0; i < count; i++, bit += bits) {
    const word = offset + (bit >>> 5);
    const shift = bit & 31;
    const value = values[i]! >>> 0;
    out[word]! |= value << shift;
    if (shift + bits > 32) out[word + 1]! |= value >>> (32 - shift);
  }
  return offset + words;
}

/** Unpacks `count` values of `bits` bits from `words` at `offset` into `out`. */
export function unpack(words: Uint32Array, offset: number, bits: number, count: number, out: Int32Array): void {
  if (count === BLOCK_SIZE) fullBlockDecoder(UNPACK_FULL_BLOCK, 'plain', bits)(words, offset, out, 0);
  else unpackLoop(words, offset, bits, count, out);
}

/** The generic decoder: one loop for any width and count (partial blocks; bench:engine-v2 compares it with the unrolled ones). */
export function unpackLoop(words: Uint32Array, offset: number, bits: number, count: number, out: Int32Array): void {
  if (bits === 0) {
    out.fill(0, 0, count);
    return;
  }
  const mask = bits === 32 ? 0xffffffff : (1 << bits) - 1;
  for (let i = 0, bit = 0; i < count; i++, bit += bits) {
    const word = offset + (bit >>> 5);
    const shift = bit & 31;
    let value = words[word]! >>> shift;
    if (shift + bits > 32) value |= words[word + 1]! << (32 - shift);
    out[i] = value & mask;
  }
}

/** What a decoder stores for each unpacked value `v`: v itself, v + 1, or the running sum of v + 1 from `d` (gaps minus one to documents). */
type DecoderKind = 'plain' | 'plusOne' | 'gaps';
type FullBlockDecoder = (words: Uint32Array, offset: number, out: Int32Array, previous: number) => void;

/** Source of the unrolled decoder of BLOCK_SIZE values at `bits` bits. */
function fullBlockDecoderSource(bits: number, kind: DecoderKind): string {
  const mask = bits === 32 ? '' : ` & ${(2 ** bits - 1) >>> 0}`;
  const lines: string[] = [];
  for (let i = 0; i < BLOCK_SIZE; i++) {
    const bit = i * bits;
    const word = bit >>> 5;
    const shift = bit & 31;
    const low = shift === 0 ? `w[o + ${word}]` : `(w[o + ${word}] >>> ${shift})`;
    const value = bits === 0 ? '0' : `(${shift + bits > 32 ? `(${low} | (w[o + ${word + 1}] << ${32 - shift}))` : low}${mask})`;
    lines.push(kind === 'plain' ? `out[${i}] = ${value};` : kind === 'plusOne' ? `out[${i}] = ${value} + 1;` : `out[${i}] = d += ${value} + 1;`);
  }
  return lines.join('\n');
}

/**
 * Decoders by width, each compiled on its first use: compiling all 99 at load
 * took about 50 ms in every search thread, for the few widths an index uses.
 */
const UNPACK_FULL_BLOCK: (FullBlockDecoder | undefined)[] = [];
const UNPACK_PLUS_ONE: (FullBlockDecoder | undefined)[] = [];
const UNPACK_GAPS: (FullBlockDecoder | undefined)[] = [];

function fullBlockDecoder(decoders: (FullBlockDecoder | undefined)[], kind: DecoderKind, bits: number): FullBlockDecoder {
  return (decoders[bits] ??= new Function('w', 'o', 'out', 'd', fullBlockDecoderSource(bits, kind)) as FullBlockDecoder);
}

/** Unpacks like `unpack`, storing each value plus one (frequencies are stored minus one). */
export function unpackPlusOne(words: Uint32Array, offset: number, bits: number, count: number, out: Int32Array): void {
  if (count === BLOCK_SIZE) return fullBlockDecoder(UNPACK_PLUS_ONE, 'plusOne', bits)(words, offset, out, 0);
  unpackLoop(words, offset, bits, count, out);
  for (let i = 0; i < count; i++) out[i]! += 1;
}

/** Unpacks gaps minus one and stores the documents they lead to from `previous` (the document before the first). */
export function unpackGaps(words: Uint32Array, offset: number, bits: number, count: number, out: Int32Array, previous: number): void {
  if (count === BLOCK_SIZE) return fullBlockDecoder(UNPACK_GAPS, 'gaps', bits)(words, offset, out, previous);
  unpackLoop(words, offset, bits, count, out);
  for (let i = 0; i < count; i++) out[i] = previous += out[i]! + 1;
}
