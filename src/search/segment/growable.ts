/** Append-only typed arrays that double their capacity, for building segments without number[] overhead. */
import { FRESH_MEMORY, type ArrayMemory } from './spare-memory.js';

/** `bytes` rounded up to whole 8-byte words, as every ArrayMemory buffer is. */
function words8(bytes: number): number {
  return Math.ceil(bytes / 8) * 8;
}

export class GrowableUint32 {
  private data: Uint32Array;
  length = 0;

  /** `memory` gives the backing stores (spare-memory.ts: an earlier builder's, in an index writer). */
  constructor(
    initialCapacity = 1024,
    private readonly memory: ArrayMemory = FRESH_MEMORY,
  ) {
    this.data = new Uint32Array(memory.take(words8(4 * initialCapacity)));
  }

  push(value: number): void {
    if (this.length === this.data.length) {
      const bigger = new Uint32Array(this.memory.take(Math.max(32, 8 * this.data.length)));
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = value;
  }

  get(index: number): number {
    return this.data[index]!;
  }

  /** A view of the filled part (shares memory until the next push that grows). */
  view(): Uint32Array {
    return this.data.subarray(0, this.length);
  }
}

export class GrowableBytes {
  private data: Uint8Array;
  length = 0;

  /** `memory` gives the backing stores (spare-memory.ts: an earlier builder's, in an index writer). */
  constructor(
    initialCapacity = 64 * 1024,
    private readonly memory: ArrayMemory = FRESH_MEMORY,
  ) {
    this.data = new Uint8Array(memory.take(words8(initialCapacity)));
  }

  private reserve(extra: number): void {
    if (this.length + extra <= this.data.length) return;
    let capacity = Math.max(8, this.data.length * 2);
    while (capacity < this.length + extra) capacity *= 2;
    const bigger = new Uint8Array(this.memory.take(words8(capacity)));
    bigger.set(this.data.subarray(0, this.length));
    this.data = bigger;
  }

  pushByte(value: number): void {
    this.reserve(1);
    this.data[this.length++] = value;
  }

  /** Variable-byte encoding: 7 bits per byte, high bit set on every byte but the last. */
  pushVarint(value: number): void {
    this.reserve(5);
    while (value >= 0x80) {
      this.data[this.length++] = (value & 0x7f) | 0x80;
      value >>>= 7;
    }
    this.data[this.length++] = value;
  }

  pushBytes(bytes: Uint8Array): void {
    this.reserve(bytes.length);
    this.data.set(bytes, this.length);
    this.length += bytes.length;
  }

  view(): Uint8Array {
    return this.data.subarray(0, this.length);
  }
}
