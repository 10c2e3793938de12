/**
 * The token table of the `dictionary` compression: every string round-trips
 * byte for byte (control bytes, non-ASCII, surrogate pairs, tokens in and out
 * of the table), the table survives serialisation, repetitive text shrinks,
 * and damaged input is an error that never writes outside its fragment.
 */
import { describe, expect, it } from 'vitest';
import { DictionaryDamagedError, MAX_TOKENS, TokenCounts, TokenDictionary } from '../../../src/search/stored/dictionary.js';
import { random } from '../../../scripts/lib/random.js';

/** The table that saves the most bytes over `sample`. */
function tableOf(sample: readonly Buffer[]): TokenDictionary {
  const counts = new TokenCounts();
  for (const fragment of sample) counts.add(fragment);
  return TokenDictionary.choose(counts);
}

const PIECES = ['cell', ' cells', ' neuron', ' the', ' of', '","', '":', ' ', '  ', '.', '\u0000', '\u001f', '\t', 'é', ' Ωmega', '中文', '😀', ' 𝔸x', '"\\', '\u007f', '12345', ' 0.5'];

function randomText(rand: () => number, pieces: number): string {
  let text = '';
  for (let i = 0; i < pieces; i++) text += PIECES[Math.floor(rand() * PIECES.length)]!;
  return text;
}

function encoded(dictionary: TokenDictionary, text: string): Uint8Array {
  const bytes = Buffer.from(`«${text}»`, 'utf8');
  // Coded from the middle of a larger buffer, as the writer codes fragments of its stream.
  return dictionary.encode(bytes, 2, bytes.length - 2).slice();
}

/** Decodes into the middle of a buffer of sentinels, and checks the sentinels stayed. */
function decodeGuarded(dictionary: TokenDictionary, coded: Uint8Array, length: number): Buffer {
  const target = Buffer.alloc(length + 32, 0xee);
  dictionary.decode(coded, 0, coded.length, target, 16, length);
  expect(target.subarray(0, 16).every((b) => b === 0xee)).toBe(true);
  expect(target.subarray(16 + length).every((b) => b === 0xee)).toBe(true);
  return target.subarray(16, 16 + length);
}

describe('token dictionary', () => {
  const rand = random(5);
  const sample = Array.from({ length: 300 }, () => randomText(rand, 1 + Math.floor(rand() * 60)));
  const dictionary = tableOf(sample.map((text) => Buffer.from(text, 'utf8')));

  it('round-trips every string byte for byte, in the sample or not', () => {
    expect(dictionary.size).toBeGreaterThan(5);
    const others = Array.from({ length: 300 }, () => randomText(rand, Math.floor(rand() * 80)));
    for (const text of [...sample, ...others, '', ' ', 'x', '\u0000\u0000', ' cells cells']) {
      const bytes = Buffer.from(text, 'utf8');
      expect(decodeGuarded(dictionary, encoded(dictionary, text), bytes.length).equals(bytes)).toBe(true);
    }
  });

  it('survives serialisation', () => {
    const copy = TokenDictionary.deserialize(dictionary.serialize());
    expect(copy.size).toBe(dictionary.size);
    for (const text of sample.slice(0, 50)) {
      const bytes = Buffer.from(text, 'utf8');
      expect(decodeGuarded(copy, encoded(dictionary, text), bytes.length).equals(bytes)).toBe(true);
    }
  });

  it('codes repeated words in two bytes each', () => {
    const words = Array.from({ length: 500 }, (_, i) => ` word${i % 50}x`);
    const text = words.join('');
    const table = tableOf([Buffer.from(text, 'utf8')]);
    expect(encoded(table, text).length).toBe(2 * words.length);
  });

  it('round-trips tokens of every length around the decoder slots of 16 bytes', () => {
    // Words of 2 to 39 letters, each with its leading space: tokens of 3 to 40 bytes.
    const words = Array.from({ length: 38 }, (_, i) => ' ' + 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN'.slice(0, i + 2));
    const text = [...words, ...words].join('');
    const table = tableOf([Buffer.from(text, 'utf8')]);
    expect(table.size).toBe(words.length);
    const bytes = Buffer.from(text, 'utf8');
    expect(encoded(table, text).length).toBe(4 * words.length);
    expect(decodeGuarded(table, encoded(table, text), bytes.length).equals(bytes)).toBe(true);
    for (const word of words) {
      // Each token alone, and cut one byte short of its recorded length (a damaged fragment).
      const single = encoded(table, word);
      expect(decodeGuarded(table, single, word.length).toString('latin1')).toBe(word);
      expect(() => decodeGuarded(table, single, word.length - 1), word).toThrow(DictionaryDamagedError);
    }
  });

  it('keeps at most the codes it has', () => {
    const many = Array.from({ length: MAX_TOKENS + 500 }, (_, i) => ` token${i} token${i}`).join('');
    const table = tableOf([Buffer.from(many, 'utf8')]);
    expect(table.size).toBe(MAX_TOKENS);
    const bytes = Buffer.from(many, 'utf8');
    expect(decodeGuarded(table, encoded(table, many), bytes.length).equals(bytes)).toBe(true);
  });

  it('refuses damaged coded bytes without writing outside the fragment', () => {
    const text = sample.find((t) => Buffer.byteLength(t) > 40)!;
    const length = Buffer.byteLength(text);
    const coded = encoded(dictionary, text);
    const damaged: [string, Uint8Array, number][] = [
      ['an unknown code', Uint8Array.from([0x1f, 0xff]), 4],
      ['a cut code', Uint8Array.from([0x41, 0x05]), 2],
      ['a cut escape', Uint8Array.from([0x41, 0x00]), 2],
      ['a recorded length too short', coded, length - 1],
      ['a recorded length too long', coded, length + 1],
      ['bytes missing', coded.subarray(0, coded.length - 1), length],
    ];
    for (const [label, bytes, recorded] of damaged) {
      expect(() => decodeGuarded(dictionary, bytes, recorded), label).toThrow(DictionaryDamagedError);
    }
  });

  it('refuses a damaged table', () => {
    const good = dictionary.serialize();
    const cases: [string, (b: Buffer) => Buffer][] = [
      ['empty', () => Buffer.alloc(0)],
      ['too many entries', (b) => (b.writeUInt32LE(MAX_TOKENS + 1, 0), b)],
      ['decreasing offsets', (b) => (b.writeUInt32LE(0xffffff, 8), b)],
      ['cut short', (b) => b.subarray(0, b.length - 1)],
    ];
    for (const [label, damage] of cases) expect(() => TokenDictionary.deserialize(damage(Buffer.from(good))), label).toThrow(DictionaryDamagedError);
  });
});
