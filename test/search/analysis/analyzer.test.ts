import { describe, expect, it } from 'vitest';
import { stemmer } from 'stemmer';
import { analyze, fold } from '../../../src/search/analysis/analyzer.js';
import { ENGLISH_STOPWORDS } from '../../../src/search/analysis/stopwords.js';

describe('analyzer', () => {
  it('folds case and diacritics, including letters Unicode does not decompose', () => {
    expect(fold('José NÚÑEZ Søren Æsir Straße')).toBe('jose nunez soren aesir strasse');
    expect(fold('Plain ASCII, Mixed Case')).toBe('plain ascii, mixed case');
  });

  it('keeps letters and digits together and joins numeric hyphenations', () => {
    expect(analyze('CA1-CA3 5-HT2A 5HT IL-6 COVID-19 Nav1.6 layer 2/3 long-term')).toEqual([
      'ca1', 'ca3', '5ht2a', '5ht', 'il6', 'covid19', 'nav1.6', 'layer', '2', '3', 'long', 'term',
    ]);
  });

  it('reads a soft hyphen as part of its word, in text, names and folding', () => {
    expect(analyze('neu\u00adrons fire; hippo\u00adcampal place cells')).toEqual(analyze('neurons fire; hippocampal place cells'));
    expect(fold('Mül\u00adler')).toBe('muller');
    // Only the soft hyphen: a hyphen, or a soft hyphen then a space (a line break kept), still separate.
    expect(analyze('shrink\u00ad ing long-term')).toEqual(['shrink', 'ing', 'long', 'term']);
  });

  it('removes stopwords and possessives, stems words but not identifiers', () => {
    expect(analyze("The neurons' firing of Alzheimer's patients in CA1")).toEqual(['neuron', 'fire', 'alzheim', 'patient', 'ca1']);
    expect(analyze('Alzheimer\u2019s Núñez')).toEqual(['alzheim', 'nunez']);
    expect(analyze('recordings recorded recording')).toEqual(['record', 'record', 'record']);
  });

  it('treats a sentence-final dot as punctuation but keeps decimals', () => {
    expect(analyze('Rates rose 1.5 fold. Then fell.')).toEqual(['rate', 'rose', '1.5', 'fold', 'fell']);
  });

  it('indexes Chinese, Japanese and Korean runs as overlapping pairs of characters, ended by another script', () => {
    expect(analyze('场所细胞编码空间位置。')).toEqual(['场所', '所细', '细胞', '胞编', '编码', '码空', '空间', '间位', '位置']);
    expect(analyze('细胞')).toEqual(['细胞']);
    expect(analyze('场')).toEqual(['场']);
    expect(analyze('CA1场所 cells')).toEqual(['ca1', '场所', 'cell']);
    // Halfwidth katakana folds to fullwidth (NFKD); the prolonged sound mark stays in its run.
    expect(analyze('ｶﾀｶﾅ')).toEqual(analyze('カタカナ'));
    expect(analyze('データ')).toEqual(['デー', 'ータ']);
    // Hangul syllables stay syllables through the folding (NFKD takes them apart).
    expect(analyze('한국어 논문')).toEqual(['한국', '국어', '논문']);
    // A number joined by a hyphen is not joined to a CJK run.
    expect(analyze('5-场所')).toEqual(['5', '场所']);
  });

  it('cuts Thai, Lao, Khmer and Burmese runs into words by dictionary, keeping their marks, ended by another script', () => {
    expect(analyze('การทำงานของเซลล์ประสาทในสมอง')).toEqual(['การ', 'ทำงาน', 'ของ', 'เซลล์', 'ประสาท', 'ใน', 'สมอง']);
    // The tone mark is part of the word: near (ใกล้) is not ใกล.
    expect(analyze('ใกล้ ใกล')).toEqual(['ใกล้', 'ใกล']);
    expect(fold('ใกล้ Núñez')).toBe('ใกล้ nunez');
    // SARA AM, taken apart by the folding's NFKD, is whole again for the dictionary; typed as its two parts, alike.
    expect(analyze('ทำงาน')).toEqual(['ทำงาน']);
    expect(analyze('ท\u0e4d\u0e32งาน')).toEqual(['ทำงาน']);
    expect(analyze('ຂ້ອຍຮັກພາສາລາວ')).toEqual(['ຂ້ອຍ', 'ຮັກ', 'ພາສາ', 'ລາວ']);
    expect(analyze('မြန်မာစာ')).toEqual(['မြန်မာ', 'စာ']);
    // Another script ends the run; its digits are numbers; a hyphen joins no run.
    expect(analyze('CA1ในสมอง ๑๒๓ cells 5-ใน')).toEqual(['ca1', 'ใน', 'สมอง', '๑๒๓', 'cell', '5', 'ใน']);
  });

  it('gives a word seen before the same terms as the first time (the table of seen words)', () => {
    const text = 'Running mice ran; running MICE run. IL-6 il-6 the The';
    expect(analyze(text)).toEqual(analyze(text));
    expect(analyze(text)).toEqual(['run', 'mice', 'ran', 'run', 'mice', 'run', 'il6', 'il6']);
  });
});

/**
 * The analyzer as first written, with regular expressions over the folded
 * text: the reference the scanning analyzer must match term for term.
 */
function referenceAnalyze(text: string): string[] {
  const folded = fold(text);
  // A CJK letter or number, or a kana voicing mark (what NFKD leaves beside its kana).
  const cjk = '(?:(?=[\\p{L}\\p{N}])[\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}\\u30fc]|[\\u3099\\u309a])';
  // A letter or mark of the scripts cut into words by dictionary (their digits are numbers like others).
  const segmented = '(?:(?=[\\p{L}\\p{M}])(?!' + cjk + ')[\\p{Script=Thai}\\p{Script=Lao}\\p{Script=Khmer}\\p{Script=Myanmar}])';
  const plain = `(?:(?!${cjk}|${segmented})[\\p{L}\\p{N}])`;
  const tokens = [...folded.matchAll(new RegExp(`${cjk}+|${segmented}+|${plain}+(?:\\.(?:(?!${cjk}|${segmented})\\p{N})+)*`, 'gu'))].map((m) => ({
    word: m[0],
    start: m.index,
    end: m.index + m[0].length,
  }));
  const isCjk = (word: string) => new RegExp(`^${cjk}`, 'u').test(word);
  const isSegmented = (word: string) => new RegExp(`^${segmented}`, 'u').test(word);
  const digitsOnly = (word: string) => /^\p{N}+(?:\.\p{N}+)*$/u.test(word);
  const terms: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    let { word, end } = tokens[i]!;
    if (isCjk(word)) {
      const characters = [...word.normalize('NFC')];
      if (characters.length === 1) terms.push(word);
      for (let c = 0; c + 1 < characters.length; c++) terms.push(characters[c]! + characters[c + 1]!);
      continue;
    }
    if (isSegmented(word)) {
      const written = word.normalize('NFC').replaceAll('\u0e4d\u0e32', '\u0e33').replaceAll('\u0ecd\u0eb2', '\u0eb3');
      for (const { segment, isWordLike } of new Intl.Segmenter('und', { granularity: 'word' }).segment(written)) if (isWordLike) terms.push(segment);
      continue;
    }
    while (i + 1 < tokens.length && !isCjk(tokens[i + 1]!.word) && !isSegmented(tokens[i + 1]!.word) && tokens[i + 1]!.start === end + 1 && folded[end] === '-') {
      const next = tokens[i + 1]!.word;
      if (!digitsOnly(word) && !digitsOnly(next)) break;
      word += next;
      end = tokens[i + 1]!.end;
      i++;
    }
    if (word === 's' && i > 0 && /['\u2019]/.test(folded[tokens[i]!.start - 1] ?? '')) continue;
    if (ENGLISH_STOPWORDS.has(word)) continue;
    terms.push(/\p{N}/u.test(word) ? word : stemmer(word));
  }
  return terms;
}

describe('the scanning analyzer against the regular-expression reference', () => {
  // Pieces that exercise every rule: cases, digits (ASCII and not), dots, hyphens, both apostrophes,
  // stopwords, a lone "s", Greek letters, marks to fold, letters outside the BMP, lone surrogates, symbols.
  const pieces = [
    'a', 'B', 's', 'S', 'x', '1', '0', '9', '.', '-', "'", '\u2019', ' ', '  ', '/', ',', 'the', 'Of', 'running', 'CA1', 'IL-6', '5-HT',
    'nav1.6', "'s", '.5', '1.', 'β', 'α-1', 'Δ', 'é', 'Núñez', 'Straße', '²', '½', '٣', '±', '–', '\u{1D400}', '\u{1F600}', '\uD800', '\uDC00', 'ﬁ', 'µ', '\u00ad',
    '场', '所细胞', 'カタカナ', 'ー', 'ｶﾀ', 'ひらがな', '한국어', '〇', '\u{20000}', 'データ', 'ﾃﾞｰﾀ', '\u3099', '⺀',
    'เซลล์', 'ทำ', 'ใกล้', '\u0e49', '๑', 'ພາສາ', 'ຳ', 'ខ្មែរ', 'မြန်မာ', '\u1031',
  ];

  function randomText(random: () => number): string {
    let text = '';
    const length = Math.floor(random() * 20);
    for (let i = 0; i < length; i++) text += pieces[Math.floor(random() * pieces.length)];
    return text;
  }

  it('makes exactly the same terms on random texts', () => {
    let seed = 12345;
    const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    for (let i = 0; i < 30_000; i++) {
      const text = randomText(random);
      expect(analyze(text), JSON.stringify(text)).toEqual(referenceAnalyze(text));
    }
  });

  it('makes the same terms on a text of over a million words, and on the next text (its word arrays grown, then given back)', () => {
    let seed = 777;
    const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const parts: string[] = [];
    for (let words = 0; words < 1_800_000; words += 4) parts.push(randomText(random), ' ');
    const huge = parts.join('');
    const [terms, expected] = [analyze(huge), referenceAnalyze(huge)];
    // Compared in summary: a failing comparison of two million-term arrays takes minutes to print.
    const firstDifference = expected.findIndex((term, i) => terms[i] !== term);
    expect({ length: terms.length, firstDifference }).toEqual({ length: expected.length, firstDifference: -1 });
    // More terms than words the arrays keep (KEPT_WORDS, 2^20): they were grown past it and given back.
    expect(expected.length).toBeGreaterThan(1_100_000);
    const next = 'Nav1.6 and IL-6 in CA1';
    expect(analyze(next)).toEqual(referenceAnalyze(next));
  });
});
