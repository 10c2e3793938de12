/**
 * The terms' sort order is the reader's: UTF-8 bytes. compareUtf8 compares UTF-16 units where they order
 * as the bytes do and encodes otherwise; here it is checked against the bytes themselves.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { compareUtf8 } from '../../../src/search/segment/writer.js';

const byBytes = (a: string, b: string) => Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b)));

// Units from every range that orders differently: ASCII, two- and three-byte, the surrogates (paired
// and lone), the private use area and the top of the BMP, which UTF-16 puts after the surrogates.
const unit = fc.constantFrom(0x61, 0x7a, 0xe9, 0x3b1, 0x4e2d, 0xd7ff, 0xd83d, 0xde00, 0xdbff, 0xdfff, 0xe000, 0xfb01, 0xfffd, 0xffff);
const text = fc.array(unit, { maxLength: 6 }).map((units) => String.fromCharCode(...units));

it('orders any two strings as their UTF-8 bytes do, surrogate pairs and lone surrogates included', () => {
  fc.assert(
    fc.property(text, text, (a, b) => {
      expect(Math.sign(compareUtf8(a, b))).toBe(byBytes(a, b));
    }),
    { numRuns: 20_000 },
  );
});

it('puts astral characters after the top of the BMP, where UTF-16 order would not', () => {
  const terms = ['\u{1F600}', '\uFFFF', 'z', '\uE000', 'é'];
  expect([...terms].sort(compareUtf8)).toEqual(['z', 'é', '\uE000', '\uFFFF', '\u{1F600}']);
  expect([...terms].sort()).not.toEqual([...terms].sort(compareUtf8));
});
