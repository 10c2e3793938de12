import { describe, expect, it } from 'vitest';
import { analyze, fold, tokenize } from '../../../src/search/analysis/analyzer.js';

describe('analyzer', () => {
  it('folds case and diacritics, including letters Unicode does not decompose', () => {
    expect(fold('José NÚÑEZ Søren Æsir Straße')).toBe('jose nunez soren aesir strasse');
  });

  it('keeps letters and digits together and joins numeric hyphenations', () => {
    expect(tokenize('CA1-CA3 5-HT2A 5HT IL-6 COVID-19 Nav1.6 layer 2/3 long-term')).toEqual([
      'ca1', 'ca3', '5ht2a', '5ht', 'il6', 'covid19', 'nav1.6', 'layer', '2', '3', 'long', 'term',
    ]);
  });

  it('removes stopwords and possessives, stems words but not identifiers', () => {
    expect(analyze("The neurons' firing of Alzheimer's patients in CA1")).toEqual(['neuron', 'fire', 'alzheim', 'patient', 'ca1']);
    expect(analyze('recordings recorded recording')).toEqual(['record', 'record', 'record']);
  });

  it('treats a sentence-final dot as punctuation but keeps decimals', () => {
    expect(tokenize('Rates rose 1.5 fold. Then fell.')).toEqual(['rates', 'rose', '1.5', 'fold', 'then', 'fell']);
  });
});
