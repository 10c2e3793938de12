/** Tokens of the auth file must be presentable: what `Authorization: Bearer …` can carry. */
import { describe, expect, test } from 'vitest';
import { parseAuthConfig } from '../../src/platform/auth-file.js';

const problemsOf = (token: string) => {
  const problems: string[] = [];
  parseAuthConfig({ tokens: { [token]: { realm: 'local', subject: 'alice' } } }, problems);
  return problems;
};

describe('auth file tokens', () => {
  test.each([
    ['a space', 'alice secret token'],
    ['a tab', 'alice\tsecret-token'],
    ['a non-ASCII letter', 'alice-sécret-token'],
  ])('a token holding %s is refused: no Authorization header could present it', (_name, token) => {
    expect(problemsOf(token)).toEqual([expect.stringContaining('only visible ASCII characters')]);
  });

  test('a token of visible ASCII punctuation is accepted', () => {
    expect(problemsOf('alice~secret+token/=')).toEqual([]);
  });
});
