/** Filter values with nothing to match are refused by name; ISSNs are read as journal suggestions read them. */
import { describe, expect, it } from 'vitest';
import { compileFilterSpec, InvalidFilterError } from '../../src/search/query/filter-spec.js';

function refusal(input: Parameters<typeof compileFilterSpec>[0]): InvalidFilterError {
  try {
    compileFilterSpec(input);
  } catch (error) {
    if (error instanceof InvalidFilterError) return error;
    throw error;
  }
  throw new Error(`accepted ${JSON.stringify(input)}`);
}

describe('compileFilterSpec', () => {
  it.each(['-', '---', '.', '\u0000', '\u200B', ' . - ', '\u0301'])('refuses the author %j, which has no letter or digit', (author) => {
    const error = refusal({ authors: ['Ada Lovelace', author] });
    expect(error.parameter).toBe('authors');
    expect(error.message).toBe(`authors value "${author}" has no letter or digit to match`);
  });

  it('refuses an article type of punctuation alone in the same words', () => {
    expect(refusal({ article_types: ['---'] }).message).toBe('article_types value "---" has no letter or digit to match');
  });

  it('keeps punctuation inside an author name', () => {
    expect(compileFilterSpec({ authors: ['J.-P. Sartre', '  Ó  Briain '] }).authors).toEqual(['j.-p. sartre', 'o briain']);
  });

  it('reads a lower-case x check character as X', () => {
    expect(compileFilterSpec({ journals: ['1553-734x', '1553-734X', '0270-6474'] }).journals).toEqual(['0270-6474', '1553-734X']);
  });

  it.each(['1553734X', '1553-73X4', 'ISSN 1553-734X', '1553-734y'])('refuses the journal %j in words', (journal) => {
    const error = refusal({ journals: [journal] });
    expect(error.parameter).toBe('journals');
    expect(error.message).toBe(`journals must be ISSNs written XXXX-XXXX, got "${journal}"`);
  });
});
