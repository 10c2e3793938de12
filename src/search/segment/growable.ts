/** Append-only typed arrays that double their capacity, for building segments without number[] overhead. */
export class GrowableUint32 {
  private data: Uint32Array;
  length = 0;

  constructor(initialCapacity = 1024) {
    this.data = new Uint32Array(initialCapacity);
  }

  push(value: number): void {
    if (this.length === this.data.length) {
      const bigger = new Uint32Array(this.data.length * 2);
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

  constructor(initialCapacity = 64 * 1024) {
    this.data = new Uint8Array(initialCapacity);
  }

  private reserve(extra: number): void {
    if (this.length + extra <= this.data.length) return;
    let capacity = this.data.length * 2;
    while (capacity < this.length + extra) capacity *= 2;
    const bigger = new Uint8Array(capacity);
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
