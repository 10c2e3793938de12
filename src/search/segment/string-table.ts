/** A list of strings stored as one UTF-8 byte array plus offsets, decoded on demand. */
import { GrowableBytes, GrowableUint32 } from './growable.js';

const decoder = new TextDecoder();
const encoder = new TextEncoder();

export class StringTableBuilder {
  readonly bytes = new GrowableBytes();
  readonly offsets = new GrowableUint32();
  private readonly ids = new Map<string, number>();

  constructor() {
    this.offsets.push(0);
  }

  get size(): number {
    return this.offsets.length - 1;
  }

  /** Appends a string (duplicates allowed) and returns its index. */
  append(value: string): number {
    this.bytes.pushBytes(encoder.encode(value));
    this.offsets.push(this.bytes.length);
    return this.size - 1;
  }

  /** Returns the index of `value`, appending it the first time it is seen. */
  intern(value: string): number {
    let id = this.ids.get(value);
    if (id === undefined) {
      id = this.append(value);
      this.ids.set(value, id);
    }
    return id;
  }
}

export class StringTable {
  constructor(
    readonly bytes: Uint8Array,
    readonly offsets: Uint32Array,
  ) {}

  get size(): number {
    return this.offsets.length - 1;
  }

  get(index: number): string {
    return decoder.decode(this.bytes.subarray(this.offsets[index]!, this.offsets[index + 1]!));
  }

  /** Raw UTF-8 bytes of one entry, for comparisons without decoding. */
  raw(index: number): Uint8Array {
    return this.bytes.subarray(this.offsets[index]!, this.offsets[index + 1]!);
  }
}
