/** Where a long prompt is cut to be evaluated a slice at a time (src/llm/prompt-slices.ts). */
import { describe, expect, it } from 'vitest';
import { hasLoneSurrogate } from '../../src/text/unicode.js';
import { sharedPrefixLength, sliceCuts } from '../../src/llm/prompt-slices.js';

describe('sliceCuts', () => {
  it('cuts nothing from a prompt of one slice', () => {
    expect(sliceCuts('a short prompt', 3, 0, 256)).toEqual([]);
    expect(sliceCuts('x '.repeat(300), 256, 0, 256)).toEqual([]);
  });

  it('cuts a prompt of n slices n-1 times, about evenly, each cut at a white space', () => {
    const text = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ');
    const cuts = sliceCuts(text, 1000, 0, 256);
    expect(cuts).toHaveLength(3);
    expect(cuts).toEqual([...cuts].sort((a, b) => a - b));
    for (const [i, cut] of cuts.entries()) {
      expect(text[cut]).toBe(' ');
      expect(Math.abs(cut - (text.length * (i + 1)) / 4)).toBeLessThan(10);
    }
  });

  it('cuts a text without white space where it falls, never inside a surrogate pair', () => {
    const text = '\u{1F600}'.repeat(100);
    const cuts = sliceCuts(text, 300, 0, 100);
    expect(cuts.length).toBe(2);
    for (const cut of cuts) expect(hasLoneSurrogate(text.slice(0, cut))).toBe(false);
  });

  it('leaves out the prefixes the sequence already holds, so a prompt read before is not read again', () => {
    const text = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ');
    const cuts = sliceCuts(text, 1000, 0, 256);
    expect(sliceCuts(text, 1000, text.length, 256)).toEqual([]);
    expect(sliceCuts(text, 1000, cuts[1]!, 256)).toEqual([cuts[2]]);
    expect(sliceCuts(text, 1000, cuts[1]! - 1, 256)).toEqual(cuts.slice(1));
  });
});

describe('sharedPrefixLength', () => {
  it('counts the units two texts share from their start', () => {
    expect(sharedPrefixLength('QUESTION: a', 'QUESTION: b')).toBe(10);
    expect(sharedPrefixLength('same', 'same')).toBe(4);
    expect(sharedPrefixLength('', 'x')).toBe(0);
    expect(sharedPrefixLength('abc', 'ab')).toBe(2);
  });
});
