/**
 * The analysed form of words already seen, looked up by the characters of the
 * text in place: no substring is made and no JS string is hashed for a word
 * met before. Building an index analyses every word of the corpus, and
 * slicing each word out and looking it up in a Map was a fifth of the
 * build's time (bench:peers at 1M; docs/DESIGN.md, "Building").
 *
 * Open addressing over FNV-1a hashes of the UTF-16 code units; the words'
 * characters are kept in one Uint16Array for comparison. Bounded: once
 * `limit` words are held it starts over empty.
 */
export class WordTable {
  private slots: Int32Array;
  private chars = new Uint16Array(1 << 16);
  private charsUsed = 0;
  private wordStart: number[] = [];
  private wordLength: number[] = [];
  /** Each word's hash, so that growing the slots does not hash the words again. */
  private wordHash: number[] = [];
  private terms: (string | null)[] = [];

  constructor(private readonly limit: number) {
    this.slots = new Int32Array(tableSize(Math.min(limit, 1 << 12)));
  }

  /** FNV-1a of text[from, to). */
  static hash(text: string, from: number, to: number): number {
    let hash = 0x811c9dc5;
    for (let i = from; i < to; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
    return hash >>> 0;
  }

  /** The entry of the word text[from, to) with this hash, or -1. */
  find(text: string, from: number, to: number, hash: number): number {
    const { slots, chars, wordStart, wordLength } = this;
    const mask = slots.length - 1;
    const length = to - from;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = slots[slot]! - 1;
      if (entry < 0) return -1;
      if (wordLength[entry] !== length) continue;
      const start = wordStart[entry]!;
      let i = 0;
      while (i < length && chars[start + i] === text.charCodeAt(from + i)) i++;
      if (i === length) return entry;
    }
  }

  /** The analysed form of an entry: its term, or null for a word that makes none (a stopword). */
  term(entry: number): string | null {
    return this.terms[entry]!;
  }

  /** Records the analysed form of text[from, to) (not already held; `hash` from `WordTable.hash`). */
  add(text: string, from: number, to: number, hash: number, term: string | null): void {
    if (this.terms.length >= this.limit) this.clear();
    const length = to - from;
    if (this.charsUsed + length > this.chars.length) {
      const grown = new Uint16Array(Math.max(2 * this.chars.length, this.charsUsed + length));
      grown.set(this.chars.subarray(0, this.charsUsed));
      this.chars = grown;
    }
    for (let i = 0; i < length; i++) this.chars[this.charsUsed + i] = text.charCodeAt(from + i);
    const entry = this.terms.length;
    this.wordStart.push(this.charsUsed);
    this.wordLength.push(length);
    this.wordHash.push(hash);
    this.terms.push(term);
    this.charsUsed += length;
    if (2 * this.terms.length > this.slots.length) this.rehash(2 * this.slots.length);
    else this.place(entry, hash);
  }

  private place(entry: number, hash: number): void {
    const mask = this.slots.length - 1;
    let slot = hash & mask;
    while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
    this.slots[slot] = entry + 1;
  }

  private rehash(size: number): void {
    this.slots = new Int32Array(size);
    for (let entry = 0; entry < this.terms.length; entry++) this.place(entry, this.wordHash[entry]!);
  }

  private clear(): void {
    this.slots = new Int32Array(tableSize(Math.min(this.limit, 1 << 12)));
    this.charsUsed = 0;
    this.wordStart = [];
    this.wordLength = [];
    this.wordHash = [];
    this.terms = [];
  }
}

/** A power of two at least twice `entries`. */
function tableSize(entries: number): number {
  let size = 16;
  while (size < 2 * entries) size *= 2;
  return size;
}
