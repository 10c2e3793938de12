/**
 * The files a command is given are looked for as its start is decided (src/command-files.ts), by the
 * function the npm scripts (main.ts) and the single executable (before it writes the files it carries) both
 * ask: a --delete-file that is not there, an index to delete from or merge that does not exist, eval's
 * missing files. Each is exit 1, as when the command itself had found it, and nothing is made.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { decideStart } from '../../src/start-decision.js';
import { tempDir } from '../search/helpers.js';

describe('decideStart looks for the files a command is given', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let index: string;
  let ids: string;
  let missing: string;
  const fail = (stderr: string) => ({ exit: 1, stderr: `error: ${stderr}\n` });

  beforeAll(async () => {
    ({ dir, cleanup } = await tempDir());
    index = path.join(dir, 'index');
    await mkdir(index);
    await writeFile(path.join(index, 'manifest.json'), '{}');
    ids = path.join(dir, 'ids.txt');
    for (const file of [ids, path.join(dir, 'queries.jsonl'), path.join(dir, 'qrels.tsv'), path.join(dir, 'corpus.jsonl')]) await writeFile(file, '');
    missing = path.join(dir, 'missing');
  });
  afterAll(() => cleanup?.());

  it('refuses a --delete-file that is not there or is a directory, naming every one, before the index is looked for', () => {
    expect(decideStart(['ingest', '--index', index, '--delete-file', missing], {}, false)).toEqual(fail(`--delete-file ${missing}: no such file`));
    expect(decideStart(['ingest', '--index', missing, '--delete-file', ids, dir, path.join(ids, 'under-a-file')], {}, true)).toEqual(
      fail(`--delete-file ${dir}: is a directory, not a file of ids; --delete-file ${path.join(ids, 'under-a-file')}: no such file`),
    );
    expect(decideStart(['ingest', '--index', path.join(dir, 'new-index'), '--input', 'a.jsonl', '--delete-file', missing], {}, false)).toEqual(
      fail(`--delete-file ${missing}: no such file`),
    );
    expect(decideStart(['ingest', '--index', index, '--delete-file', ids], {}, false)).toEqual({
      run: 'ingest',
      config: loadConfig(['--index', index, '--delete-file', ids], {}, 'ingest'),
    });
  });

  it('refuses to delete from or merge an index that does not exist, with the command that builds one, and makes nothing', () => {
    const typo = path.join(dir, 'typo', 'index');
    for (const args of [['--merge'], ['--delete', 'a1'], ['--delete-file', ids, '--merge']]) {
      const why = `no index in ${typo} (manifest.json not found): nothing to delete or merge; build one with:`;
      expect(decideStart(['ingest', '--index', typo, ...args], {}, false)).toEqual(fail(`${why} npm run ingest -- --input PATH --index ${typo}`));
      expect(decideStart(['ingest', '--index', typo, ...args], {}, true)).toEqual(fail(`${why} litserve ingest --input PATH --index ${typo}`));
    }
    expect(existsSync(path.join(dir, 'typo'))).toBe(false);
    // Given inputs, ingest makes the index; a missing input is the walk's to report, with the others.
    expect(decideStart(['ingest', '--index', typo, '--input', missing, '--merge'], {}, false)).toMatchObject({ run: 'ingest' });
    expect(decideStart(['ingest', '--index', index, '--merge'], {}, false)).toMatchObject({ run: 'ingest', config: { index, merge: true } });
  });

  it("refuses eval's missing or folder files, each named by its flag or environment variable", () => {
    const queries = path.join(dir, 'queries.jsonl');
    const qrels = path.join(dir, 'qrels.tsv');
    const corpus = path.join(dir, 'corpus.jsonl');
    expect(decideStart(['eval', '--corpus', corpus, '--queries', queries, '--qrels', missing], {}, false)).toEqual(fail(`--qrels ${missing}: no such file`));
    expect(decideStart(['eval', '--corpus', corpus, '--queries', missing, '--qrels', dir], {}, true)).toEqual(
      fail(`--queries ${missing}: no such file; --qrels ${dir}: is a folder, not a file`),
    );
    expect(decideStart(['eval', '--corpus', missing, '--queries', queries, '--qrels', qrels], {}, false)).toEqual(fail(`--corpus ${missing}: no such file or folder`));
    expect(decideStart(['eval', '--corpus', corpus, '--queries', queries], { EVAL_QRELS: missing }, false)).toEqual(
      fail(`EVAL_QRELS=${missing} (from the environment): no such file`),
    );
    // A folder is a corpus too.
    expect(decideStart(['eval', '--corpus', dir, '--queries', queries, '--qrels', qrels], {}, false)).toMatchObject({ run: 'eval', config: { corpus: dir } });
    expect(decideStart(['eval', '--index', index, '--queries', queries, '--qrels', qrels], {}, false)).toMatchObject({ run: 'eval', config: { index } });
  });

  it('leaves option errors first: a usage error is exit 2 whatever the files', () => {
    expect(decideStart(['eval', '--corpus', missing, '--index', index, '--queries', missing, '--qrels', missing], {}, false)).toMatchObject({
      exit: 2,
      stderr: expect.stringMatching(/^error: eval takes --corpus .* or --index .*, not both/),
    });
  });
});
