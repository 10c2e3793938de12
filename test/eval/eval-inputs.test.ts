/**
 * `eval` says what it could not use: a bad line of the queries or qrels file (named by file and line, as
 * ingest names a bad record), and judged document ids the index does not hold (an index built with
 * --id-prefix had given 0.0000 on every metric, exit 0, without a word).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseQrels } from '../../src/eval/metrics.js';
import { readQueries } from '../../src/eval/evaluate.js';
import { tempDir } from '../search/helpers.js';
import { ingestCli } from '../cli/ingest-command.js';
import { runCommand } from '../compiled-server.js';

const evalCli = (...args: string[]) => runCommand(['eval', ...args]);

function badLinesOf(read: (onBadLine: (line: number, message: string) => void) => unknown): Array<[number, string]> {
  const bad: Array<[number, string]> = [];
  read((line, message) => bad.push([line, message]));
  return bad;
}

const CORPUS = [
  { _id: 'd1', title: 'Place cells', text: 'Place cells fire in one place of an environment.' },
  { _id: 'd2', title: 'Grid cells', text: 'Grid cells of the entorhinal cortex tile space.' },
].map((doc) => JSON.stringify(doc)).join('\n');

describe('the qrels reader', () => {
  it("reads TREC's whitespace-separated 4 columns as BEIR's 3 tab-separated ones", () => {
    const qrels = parseQrels('q1 0 d1 1\nq1 0 d2 2\nq2  Q0  d3  0\n');
    expect(qrels).toEqual(new Map([['q1', new Map([['d1', 1], ['d2', 2]])], ['q2', new Map([['d3', 0]])]]));
  });

  it('tells each line it leaves out, by number and reason, and not the header', () => {
    const text = 'query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\thigh\nq1 d3\n\nq2\t\t1\n';
    expect(badLinesOf((onBadLine) => parseQrels(text, onBadLine))).toEqual([
      [3, 'score "high" is not an integer'],
      [4, "expected 3 tab-separated columns (query-id, corpus-id, score) or TREC's 4 (query-id, iteration, doc-id, relevance), found 2"],
      [6, 'empty query or document id'],
    ]);
  });
});

describe('the queries reader', () => {
  it('tells each line it leaves out, by number and reason', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const file = path.join(dir, 'queries.jsonl');
      await writeFile(file, ['{"_id": "q1", "text": "place cells"}', 'not json', '{"_id": "q3"}', '', '[1]', '{"text": "no id"}', '{"_id": 6, "text": "grid"}'].join('\n'));
      const bad: Array<[number, string]> = [];
      const queries = await readQueries(file, (line, message) => bad.push([line, message]));
      expect(queries).toEqual(new Map([['q1', 'place cells'], ['6', 'grid']]));
      expect(bad.map(([line]) => line)).toEqual([2, 3, 5, 6]);
      expect(bad[0]![1]).toMatch(/^invalid JSON: /);
      expect(bad.slice(1).map(([, message]) => message)).toEqual(['query q3: text must be a non-empty string', 'line is not a JSON object', '_id must be a non-empty string']);
    } finally {
      await cleanup();
    }
  });
});

describe('npm run eval', () => {
  it('names the bad lines of both files with file:line, counts them, and evaluates the rest', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const [corpus, queries, qrels] = ['corpus.jsonl', 'queries.jsonl', 'qrels.tsv'].map((name) => path.join(dir, name)) as [string, string, string];
      await writeFile(corpus, CORPUS);
      await writeFile(queries, '{"_id": "q1", "text": "place cells"}\nnot json\n{"_id": "q2"}\n');
      await writeFile(qrels, 'query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\tyes\n');
      const { code, stdout, stderr } = evalCli('--corpus', corpus, '--queries', queries, '--qrels', qrels, '--quiet');
      expect(stderr).toMatch(new RegExp(`skipped ${queries}:2: invalid JSON: `));
      expect(stderr).toContain(`skipped ${queries}:3: query q2: text must be a non-empty string\n`);
      expect(stderr).toContain(`skipped ${qrels}:3: score "yes" is not an integer\n`);
      expect(stderr).toContain(`eval: skipped 2 line(s) of ${queries} and 1 of ${qrels}\n`);
      expect(stdout).toContain('queries 1\n');
      expect(code).toBe(0);
    } finally {
      await cleanup();
    }
  }, 60_000);

  it('fails when no judged document id is in the index, showing one of each and hinting at --id-prefix', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const [corpus, queries, qrels, index] = ['corpus.jsonl', 'queries.jsonl', 'qrels.tsv', 'index'].map((name) => path.join(dir, name)) as [string, string, string, string];
      await writeFile(corpus, CORPUS);
      await writeFile(queries, '{"_id": "q1", "text": "place cells"}\n');
      await writeFile(qrels, 'q1\td1\t1\n');
      expect(ingestCli('--input', corpus, '--index', index, '--id-prefix', 'scifact:', '--quiet').code).toBe(0);
      const { code, stdout, stderr } = evalCli('--index', index, '--queries', queries, '--qrels', qrels);
      expect(stderr).toContain(`error: none of the 1 document ids judged in ${qrels} is in the index ${index} (e.g. "d1" is not; the index has ids such as "scifact:d`);
      expect(stderr).toContain('--id-prefix');
      expect(stdout).toBe('');
      expect(code).toBe(1);
    } finally {
      await cleanup();
    }
  }, 60_000);

  it('warns when only some judged document ids are in the index, and still evaluates', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const [corpus, queries, qrels] = ['corpus.jsonl', 'queries.jsonl', 'qrels.tsv'].map((name) => path.join(dir, name)) as [string, string, string];
      await writeFile(corpus, CORPUS);
      await writeFile(queries, '{"_id": "q1", "text": "place cells"}\n');
      await writeFile(qrels, 'q1\td1\t1\nq1\td9\t1\n');
      const { code, stdout, stderr } = evalCli('--corpus', corpus, '--queries', queries, '--qrels', qrels, '--quiet');
      expect(stderr).toContain(`warning: only 1 of the 2 document ids judged in ${qrels} are in the index (e.g. "d9" is not; the index has ids such as "d`);
      expect(stdout).toContain('Recall@100 0.5000');
      expect(code).toBe(0);
    } finally {
      await cleanup();
    }
  }, 60_000);

  it('refuses --corpus with --index, and an --index that is a file, naming what is wrong', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const [corpus, queries, qrels] = ['corpus.jsonl', 'queries.jsonl', 'qrels.tsv'].map((name) => path.join(dir, name)) as [string, string, string];
      await writeFile(corpus, CORPUS);
      await writeFile(queries, '{"_id": "q1", "text": "place cells"}\n');
      await writeFile(qrels, 'q1\td1\t1\n');
      // Both given, the corpus had been evaluated and the index ignored without a word.
      const both = evalCli('--corpus', corpus, '--index', path.join(dir, 'index'), '--queries', queries, '--qrels', qrels, '--quiet');
      expect(both.code).toBe(2);
      expect(both.stderr).toBe('error: eval takes --corpus (indexed into a scratch index) or --index (an index built already), not both\n');
      const aFile = evalCli('--index', corpus, '--queries', queries, '--qrels', qrels, '--quiet');
      expect(aFile.code).toBe(1);
      expect(aFile.stderr).toBe(`error: the index directory ${corpus} is a file, or lies under one\n`);
    } finally {
      await cleanup();
    }
  }, 60_000);
});
