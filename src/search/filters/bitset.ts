/**
 * Fixed-size bitsets over document or article ordinals, backed by a
 * SharedArrayBuffer so a filter computed once can be read by every search
 * worker without a copy.
 */
export class Bitset {
  readonly words: Uint32Array;

  constructor(
    readonly size: number,
    words?: Uint32Array,
  ) {
    this.words = words ?? new Uint32Array(new SharedArrayBuffer(Math.ceil(size / 32) * 4));
  }

  static full(size: number): Bitset {
    const bits = new Bitset(size);
    bits.words.fill(0xffffffff);
    bits.clearTail();
    return bits;
  }

  /** A bitset read back from `toBytes` output. */
  static fromBytes(size: number, bytes: Uint8Array): Bitset {
    const bits = new Bitset(size);
    new Uint8Array(bits.words.buffer).set(bytes.subarray(0, bits.words.byteLength));
    return bits;
  }

  /** The words as little-endian bytes, for writing to disk. */
  toBytes(): Uint8Array {
    return new Uint8Array(this.words.buffer, this.words.byteOffset, this.words.byteLength);
  }

  has(index: number): boolean {
    return ((this.words[index >>> 5]! >>> (index & 31)) & 1) === 1;
  }

  add(index: number): void {
    this.words[index >>> 5]! |= 1 << (index & 31);
  }

  remove(index: number): void {
    this.words[index >>> 5]! &= ~(1 << (index & 31));
  }

  and(other: Bitset): this {
    for (let i = 0; i < this.words.length; i++) this.words[i]! &= other.words[i]!;
    return this;
  }

  or(other: Bitset): this {
    for (let i = 0; i < this.words.length; i++) this.words[i]! |= other.words[i]!;
    return this;
  }

  andNot(other: Bitset): this {
    for (let i = 0; i < this.words.length; i++) this.words[i]! &= ~other.words[i]!;
    return this;
  }

  clone(): Bitset {
    const copy = new Bitset(this.size);
    copy.words.set(this.words);
    return copy;
  }

  count(): number {
    let total = 0;
    for (let i = 0; i < this.words.length; i++) {
      let w = this.words[i]!;
      w -= (w >>> 1) & 0x55555555;
      w = (w & 0x33333333) + ((w >>> 2) & 0x33333333);
      total += (((w + (w >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
    }
    return total;
  }

  /** Calls `visit` for every set index, in increasing order. */
  forEach(visit: (index: number) => void): void {
    for (let i = 0; i < this.words.length; i++) {
      let w = this.words[i]!;
      while (w !== 0) {
        const low = w & -w;
        visit(i * 32 + 31 - Math.clz32(low));
        w ^= low;
      }
    }
  }

  private clearTail(): void {
    const extra = this.words.length * 32 - this.size;
    if (extra > 0) this.words[this.words.length - 1] = 0xffffffff >>> extra;
  }
}
