/**
 * The `dictionary` compression of stored fragments: a static table of the
 * segment's most profitable tokens (a word with its leading space, or a run of
 * punctuation), each replaced by a two-byte code. Every fragment is coded on
 * its own, so a hit costs one positional read and a byte loop, with no
 * decompressor state and no chunk to inflate (measured in bench:stored).
 *
 * Coded bytes: a fragment is JSON, so its bytes below 0x20 never occur (JSON
 * escapes control characters); they are free to start codes.
 *   0x20-0xff        the byte itself
 *   0x01-0x1f, c     token (b - 1) * 256 + c of the table
 *   0x00, c          the byte c (only if a fragment did hold a control byte)
 *
 * Serialised table: [u32 entries][u32 offsets × (entries + 1)][token bytes].
 */

/** Codes available: first bytes 0x01-0x1f, each with 256 second bytes. */
export const MAX_TOKENS = 31 * 256;
const FIRST_CODE = 0x100;
const ESCAPE = 0x00;
/** Bytes of a token's slot in the decoding table: four 32-bit words. */
const SLOT = 16;

interface DecodingTable {
  /** Every token's first SLOT bytes, zero-padded, token i at SLOT * i. */
  words: DataView;
  /** Every token's length, SLOT + 1 for any longer one (whose bytes come from the offsets). */
  lengths: Uint8Array;
}

export class DictionaryDamagedError extends Error {}

/** Word bytes: ASCII letters and digits, and every byte of a non-ASCII character (so a character is never split). */
function isWordByte(b: number): boolean {
  return (b >= 0x61 && b <= 0x7a) || (b >= 0x41 && b <= 0x5a) || (b >= 0x30 && b <= 0x39) || b >= 0x80;
}

/** End of the token at `start` (before `to`): optional space + word bytes, a run of punctuation, or one space. */
function tokenEnd(source: Uint8Array, start: number, to: number): number {
  let end = start;
  if (source[end] === 0x20) {
    end++;
    if (end === to || !isWordByte(source[end]!)) return end;
  }
  const word = isWordByte(source[end]!);
  while (end < to) {
    const b = source[end]!;
    if (b === 0x20 || isWordByte(b) !== word) break;
    end++;
  }
  return end;
}

/** FNV-1a of a byte range. */
function hashBytes(source: Uint8Array, from: number, to: number): number {
  let hash = 0x811c9dc5;
  for (let i = from; i < to; i++) hash = Math.imul(hash ^ source[i]!, 0x01000193);
  return hash >>> 0;
}

/** How often each token of the fragments added occurs, which `TokenDictionary.choose` ranks. */
export class TokenCounts {
  // Keyed by the token's bytes as latin1 (one char per byte, exact and cheap).
  readonly counts = new Map<string, number>();

  add(fragment: Buffer): void {
    for (let start = 0; start < fragment.length; ) {
      const end = tokenEnd(fragment, start, fragment.length);
      if (end - start >= 3) {
        const token = fragment.toString('latin1', start, end);
        this.counts.set(token, (this.counts.get(token) ?? 0) + 1);
      }
      start = end;
    }
  }
}

export class TokenDictionary {
  /** Open-addressing hash table for encoding: token index + 1 per slot, 0 when free (built on first use). */
  private slots: Int32Array | null = null;
  /** Reused output of `encode` (coded bytes are never more than twice the input). */
  private scratch = new Uint8Array(0);
  /** Reused output of `decode`, and its 32-bit view. */
  private decoded = new Uint8Array(0);
  private decodedWords = new DataView(this.decoded.buffer);
  /** Tokens in SLOT-byte slots with their lengths, for `decode` (built on first use). */
  private decodingTable: DecodingTable | null = null;

  private constructor(
    /** Token bytes, concatenated. */
    private readonly bytes: Uint8Array,
    /** Start of token i in `bytes`, and the end of the last one. */
    private readonly offsets: Uint32Array,
  ) {}

  get size(): number {
    return this.offsets.length - 1;
  }

  /** The tokens that save the most bytes over the fragments `counted` holds: count × (length − 2), most first. */
  static choose(counted: TokenCounts): TokenDictionary {
    const ranked: [string, number][] = [];
    for (const [token, count] of counted.counts) {
      if (count > 1) ranked.push([token, count * (token.length - 2)]);
    }
    ranked.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    const chosen = ranked.slice(0, MAX_TOKENS).map(([token]) => Buffer.from(token, 'latin1'));
    const offsets = new Uint32Array(chosen.length + 1);
    chosen.forEach((token, i) => (offsets[i + 1] = offsets[i]! + token.length));
    return new TokenDictionary(Buffer.concat(chosen), offsets);
  }

  /** Reads a table written by `serialize`; throws DictionaryDamagedError if it is inconsistent. */
  static deserialize(data: Uint8Array): TokenDictionary {
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    const entries = data.length >= 4 ? view.getUint32(0, true) : -1;
    if (entries < 0 || entries > MAX_TOKENS || 4 * (entries + 2) > data.length) throw new DictionaryDamagedError('token table header is damaged');
    const offsets = new Uint32Array(entries + 1);
    for (let i = 0; i <= entries; i++) offsets[i] = view.getUint32(4 + 4 * i, true);
    const bytesStart = 4 * (entries + 2);
    for (let i = 0; i < entries; i++) {
      if (!(offsets[i]! <= offsets[i + 1]!)) throw new DictionaryDamagedError(`token table offsets decrease at ${i}`);
    }
    if (offsets[0] !== 0 || bytesStart + offsets[entries]! > data.length) throw new DictionaryDamagedError('token table ends past its section');
    return new TokenDictionary(data.slice(bytesStart, bytesStart + offsets[entries]!), offsets);
  }

  serialize(): Buffer {
    const out = Buffer.alloc(4 * (this.offsets.length + 1) + this.bytes.length);
    out.writeUInt32LE(this.size, 0);
    this.offsets.forEach((offset, i) => out.writeUInt32LE(offset, 4 + 4 * i));
    out.set(this.bytes, 4 * (this.offsets.length + 1));
    return out;
  }

  /** The coded form of `source[from, to)`, in a buffer this dictionary reuses at the next call. */
  encode(source: Uint8Array, from: number, to: number): Uint8Array {
    if (this.scratch.length < 2 * (to - from)) this.scratch = new Uint8Array(2 * (to - from));
    const { scratch } = this;
    let written = 0;
    for (let start = from; start < to; ) {
      const end = tokenEnd(source, start, to);
      const code = end - start >= 3 ? this.lookup(source, start, end) : -1;
      if (code >= 0) {
        scratch[written++] = (code + FIRST_CODE) >> 8;
        scratch[written++] = (code + FIRST_CODE) & 0xff;
      } else {
        for (let i = start; i < end; i++) {
          if (source[i]! < 0x20) scratch[written++] = ESCAPE;
          scratch[written++] = source[i]!;
        }
      }
      start = end;
    }
    return scratch.subarray(0, written);
  }

  /** The index of the token `source[from, to)`, or -1. */
  private lookup(source: Uint8Array, from: number, to: number): number {
    const slots = (this.slots ??= this.hashTable());
    const { bytes, offsets } = this;
    const mask = slots.length - 1;
    const length = to - from;
    for (let slot = hashBytes(source, from, to) & mask; ; slot = (slot + 1) & mask) {
      const token = slots[slot]! - 1;
      if (token < 0) return -1;
      const start = offsets[token]!;
      if (offsets[token + 1]! - start !== length) continue;
      let i = 0;
      while (i < length && bytes[start + i] === source[from + i]) i++;
      if (i === length) return token;
    }
  }

  private hashTable(): Int32Array {
    let capacity = 16;
    while (capacity < 2 * this.size) capacity *= 2;
    const slots = new Int32Array(capacity);
    for (let token = 0; token < this.size; token++) {
      let slot = hashBytes(this.bytes, this.offsets[token]!, this.offsets[token + 1]!) & (capacity - 1);
      while (slots[slot] !== 0) slot = (slot + 1) & (capacity - 1);
      slots[slot] = token + 1;
    }
    return slots;
  }

  /**
   * Decodes `source[from, to)` into exactly `length` bytes of `target` at `at`.
   * Damaged input (an unknown code, a cut code, a length that does not add
   * up) throws and leaves `target` untouched. Decoding goes through a scratch
   * buffer with SLOT bytes of slack, so a token of up to SLOT bytes is copied
   * as four 32-bit words whatever its length, with its length from a byte
   * table (99.5% of tokens in the generated corpus; measured about 1.3× faster
   * than 8-byte slots with a byte loop beyond, and those about 1.8× faster than
   * a byte loop); the scratch is then copied into place in one call.
   */
  decode(source: Uint8Array, from: number, to: number, target: Uint8Array, at: number, length: number): void {
    const { bytes, offsets } = this;
    const size = offsets.length - 1;
    if (this.decoded.length < length + SLOT) {
      this.decoded = new Uint8Array(Math.max(length + SLOT, 2 * this.decoded.length));
      this.decodedWords = new DataView(this.decoded.buffer);
    }
    const { decoded, decodedWords } = this;
    const { words, lengths } = (this.decodingTable ??= this.buildDecodingTable());
    let out = 0;
    let i = from;
    while (i < to) {
      const byte = source[i++]!;
      if (byte >= 0x20) {
        if (out === length) break;
        decoded[out++] = byte;
        continue;
      }
      if (i === to) throw new DictionaryDamagedError('a code is cut off');
      const next = source[i++]!;
      if (byte === ESCAPE) {
        if (out === length) break;
        decoded[out++] = next;
        continue;
      }
      const code = (byte << 8) + next - FIRST_CODE;
      if (code >= size) throw new DictionaryDamagedError(`unknown token code ${code}`);
      const tokenLength = lengths[code]!;
      if (tokenLength <= SLOT) {
        if (out + tokenLength > length) break;
        const slot = SLOT * code;
        decodedWords.setUint32(out, words.getUint32(slot, true), true);
        decodedWords.setUint32(out + 4, words.getUint32(slot + 4, true), true);
        decodedWords.setUint32(out + 8, words.getUint32(slot + 8, true), true);
        decodedWords.setUint32(out + 12, words.getUint32(slot + 12, true), true);
        out += tokenLength;
      } else {
        let start = offsets[code]!;
        const end = offsets[code + 1]!;
        if (out + (end - start) > length) break;
        while (start < end) decoded[out++] = bytes[start++]!;
      }
    }
    if (out !== length || i !== to) throw new DictionaryDamagedError(`fragment decodes to a length other than its recorded ${length} bytes`);
    target.set(decoded.subarray(0, length), at);
  }

  /** Every token's first SLOT bytes (zero-padded) in SLOT-byte slots, and its length (SLOT + 1 for any longer one). */
  private buildDecodingTable(): DecodingTable {
    const slots = new Uint8Array(SLOT * this.size);
    const lengths = new Uint8Array(this.size);
    for (let token = 0; token < this.size; token++) {
      const start = this.offsets[token]!;
      const end = this.offsets[token + 1]!;
      slots.set(this.bytes.subarray(start, Math.min(end, start + SLOT)), SLOT * token);
      lengths[token] = Math.min(end - start, SLOT + 1);
    }
    return { words: new DataView(slots.buffer), lengths };
  }
}
