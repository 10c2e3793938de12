/** The default demo corpus is found wherever the server starts: it had been looked for in the working directory only. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { demoCorpusPath } from '../../src/demo-corpus.js';

const elsewhere = mkdtempSync(path.join(tmpdir(), 'litserve-cwd-'));
afterAll(() => rmSync(elsewhere, { recursive: true, force: true }));

describe('demoCorpusPath', () => {
  test("the default's relative path, from another directory, is the checkout's file", () => {
    expect(demoCorpusPath('data/demo/articles.jsonl', elsewhere)).toBe(path.resolve('data/demo/articles.jsonl'));
  });

  test('a relative path found from the working directory, an absolute path, or one found nowhere is kept as given', () => {
    writeFileSync(path.join(elsewhere, 'mine.jsonl'), '');
    expect(demoCorpusPath('mine.jsonl', elsewhere)).toBe('mine.jsonl');
    expect(demoCorpusPath('/srv/corpus.jsonl', elsewhere)).toBe('/srv/corpus.jsonl');
    expect(demoCorpusPath('nowhere.jsonl', elsewhere)).toBe('nowhere.jsonl');
  });
});
