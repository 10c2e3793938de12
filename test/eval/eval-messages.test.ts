/**
 * `eval` names what it was given, as given, when it cannot use it: a missing file by its flag (not a bare
 * ENOENT), a corpus that yields nothing as that corpus (not a scratch folder deleted already), an index
 * given from the environment as such, and a qrels file none of whose lines it could read by its first bad line.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseQrels } from '../../src/eval/metrics.js';
import { tempDir } from '../search/helpers.js';
import { runCommand } from '../compiled-server.js';

const evalCli = (args: string[], env: NodeJS.ProcessEnv = {}) => runCommand(['eval', ...args, '--quiet'], env);

const CORPUS = [
  { _id: 'd1', title: 'Place cells', text: 'Place cells fire in one place of an environment.' },
  { _id: 'd2', title: 'Grid cells', text: 'Grid cells of the entorhinal cortex tile space.' },
].map((doc) => JSON.stringify(doc)).join('\n');

/** A BEIR dataset of two documents and one judged query, in a fresh folder. */
async function dataset(qrels = 'q1\td1\t1\n') {
  const { dir, cleanup } = await tempDir();
  const [corpus, queries, qrelsFile] = ['corpus.jsonl', 'queries.jsonl', 'qrels.tsv'].map((name) => path.join(dir, name)) as [string, string, string];
  await writeFile(corpus, CORPUS);
  await writeFile(queries, '{"_id": "q1", "text": "place cells"}\n');
  await writeFile(qrelsFile, qrels);
  return { dir, corpus, queries, qrels: qrelsFile, cleanup };
}

describe('the qrels reader', () => {
  it('reads scores written as integral decimals (1.0, 2.00) as their integer, and refuses fractions', () => {
    const bad: Array<[number, string]> = [];
    const qrels = parseQrels('q1\td1\t1.0\nq1\td2\t2.00\nq2 0 d3 0.0\nq2\td4\t1.5\n', (line, message) => bad.push([line, message]));
    expect(qrels).toEqual(new Map([['q1', new Map([['d1', 1], ['d2', 2]])], ['q2', new Map([['d3', 0]])]]));
    expect(bad).toEqual([[4, 'score "1.5" is not an integer']]);
  });

  it('tells a first line scored with a fraction, instead of taking it for a header', () => {
    const bad: Array<[number, string]> = [];
    expect(parseQrels('q1\td1\t1.5\nq1\td2\t1\n', (line, message) => bad.push([line, message]))).toEqual(new Map([['q1', new Map([['d2', 1]])]]));
    expect(bad).toEqual([[1, 'score "1.5" is not an integer']]);
  });
});

describe('npm run eval', () => {
  it('evaluates a qrels file scored 1.0', async () => {
    const files = await dataset('query-id\tcorpus-id\tscore\nq1\td1\t1.0\n');
    try {
      const { code, stdout } = evalCli(['--corpus', files.corpus, '--queries', files.queries, '--qrels', files.qrels]);
      expect(stdout).toContain('queries 1\n');
      expect(code).toBe(0);
    } finally {
      await files.cleanup();
    }
  }, 120_000);

  it('says that every qrels line was skipped, with the first, rather than blaming two datasets', async () => {
    const files = await dataset('q1\td1\t0.5\nq1\td2\t1.5\n');
    try {
      const { code, stderr } = evalCli(['--corpus', files.corpus, '--queries', files.queries, '--qrels', files.qrels]);
      expect(stderr).toContain(`error: every line of ${files.qrels} was skipped (the first, line 1: score "0.5" is not an integer): no judgement was read, nothing was evaluated\n`);
      expect(stderr).not.toContain('one dataset');
      expect(code).toBe(1);
    } finally {
      await files.cleanup();
    }
  }, 120_000);

  it('names a missing --qrels, --queries or --corpus by its flag, before indexing anything', async () => {
    const files = await dataset();
    try {
      const missing = path.join(files.dir, 'missing');
      const qrels = evalCli(['--corpus', files.corpus, '--queries', files.queries, '--qrels', missing]);
      expect(qrels.stderr).toBe(`error: --qrels ${missing}: no such file\n`);
      expect(qrels.code).toBe(1);
      const both = evalCli(['--corpus', files.corpus, '--queries', missing, '--qrels', files.dir]);
      expect(both.stderr).toBe(`error: --queries ${missing}: no such file; --qrels ${files.dir}: is a folder, not a file\n`);
      const corpus = evalCli(['--corpus', missing, '--queries', files.queries, '--qrels', files.qrels]);
      expect(corpus.stderr).toBe(`error: --corpus ${missing}: no such file or folder\n`);
      // Given in the environment, the variable is named.
      const fromEnvironment = evalCli(['--corpus', files.corpus, '--queries', files.queries], { EVAL_QRELS: missing });
      expect(fromEnvironment.stderr).toBe(`error: EVAL_QRELS=${missing} (from the environment): no such file\n`);
    } finally {
      await files.cleanup();
    }
  }, 120_000);

  it('says that a --corpus yielding no article gave nothing, and what was skipped, not "no index in" its deleted scratch folder', async () => {
    const files = await dataset();
    try {
      // A BEIR queries file is no corpus.
      const queriesAsCorpus = evalCli(['--corpus', files.queries, '--queries', files.queries, '--qrels', files.qrels]);
      expect(queriesAsCorpus.stderr).toContain(
        `error: the corpus given to --corpus ${files.queries} yielded no articles (files: 0 read, 1 skipped (not recognised or unreadable), each named above): nothing to evaluate\n`,
      );
      expect(queriesAsCorpus.stderr).not.toContain('no index in');
      expect(queriesAsCorpus.code).toBe(1);
      // A folder of JATS articles none of which can be indexed.
      const jats = path.join(files.dir, 'jats');
      await mkdir(jats);
      await writeFile(path.join(jats, 'a.nxml'), '<article><front></front></article>');
      const untitled = evalCli(['--corpus', jats, '--queries', files.queries, '--qrels', files.qrels]);
      expect(untitled.stderr).toContain(`error: the corpus given to --corpus ${jats} yielded no articles (1 of the 1 record(s) read skipped, each named above): nothing to evaluate\n`);
      expect(untitled.code).toBe(1);
    } finally {
      await files.cleanup();
    }
  }, 120_000);

  it('names the index built from --corpus by its corpus when no judged id is in it', async () => {
    const files = await dataset('q1\tx9\t1\n');
    try {
      const { code, stderr } = evalCli(['--corpus', files.corpus, '--queries', files.queries, '--qrels', files.qrels]);
      expect(stderr).toContain(`error: none of the 1 document ids judged in ${files.qrels} is in the index built from --corpus ${files.corpus} (e.g. "x9" is not;`);
      expect(code).toBe(1);
    } finally {
      await files.cleanup();
    }
  }, 120_000);

  it('names an INDEX_DIR from the environment that --corpus conflicts with', async () => {
    const files = await dataset();
    try {
      const { code, stderr } = evalCli(['--corpus', files.corpus, '--queries', files.queries, '--qrels', files.qrels], { INDEX_DIR: '/srv/litserve-index' });
      expect(stderr).toBe(
        `error: eval takes --corpus (indexed into a scratch index) or --index (an index built already), not both; got --corpus ${files.corpus} and INDEX_DIR=/srv/litserve-index (from the environment)\n`,
      );
      expect(code).toBe(2);
    } finally {
      await files.cleanup();
    }
  }, 120_000);
});
