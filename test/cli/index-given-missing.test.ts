/**
 * An index serve or eval is given (--index or INDEX_DIR) that is not there is refused as the start is decided
 * (src/command-files.ts), with the message the opening of the index gives: before the server makes its data
 * directory and, in the single executable, before it writes the files it carries
 * (test/packaging/start-decision-bundle.test.ts, test/packaging/binary.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { decideStart } from '../../src/start-decision.js';
import { tempDir } from '../search/helpers.js';
import { runCommand } from '../compiled-server.js';

describe('an index given to serve or eval that is not there', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let missing: string;
  let aFile: string;
  let evalFiles: string[];
  const fail = (stderr: string) => ({ exit: 1, stderr: `error: ${stderr}\n` });

  beforeAll(async () => {
    ({ dir, cleanup } = await tempDir());
    missing = path.join(dir, 'no-index');
    aFile = path.join(dir, 'queries.jsonl');
    await writeFile(aFile, '');
    await writeFile(path.join(dir, 'qrels.tsv'), '');
    evalFiles = ['--queries', aFile, '--qrels', path.join(dir, 'qrels.tsv')];
  });
  afterAll(() => cleanup?.());

  it('is refused as the start is decided, with the command that builds one, from --index or INDEX_DIR', () => {
    const why = `no index in ${missing} (manifest.json not found); build one with:`;
    for (const [args, env] of [
      [['serve', '--index', missing], {}],
      [['--port', '0'], { INDEX_DIR: missing }],
      [['eval', '--index', missing, ...evalFiles], {}],
    ] as const) {
      expect(decideStart(args, env, false)).toEqual(fail(`${why} npm run ingest -- --input PATH --index ${missing}`));
      expect(decideStart(args, env, true)).toEqual(fail(`${why} litserve ingest --input PATH --index ${missing}`));
    }
    // A file in place of the folder is told as opening the index tells it.
    expect(decideStart(['serve', '--index', path.join(aFile, 'index')], {}, true)).toEqual(fail(`the index directory ${path.join(aFile, 'index')} is a file, or lies under one`));
    expect(decideStart(['eval', '--index', aFile, ...evalFiles], {}, false)).toEqual(fail(`the index directory ${aFile} is a file, or lies under one`));
  });

  it('looks only for an index given: serve builds its default one, eval indexes a --corpus, and one that is there runs', async () => {
    expect(decideStart(['serve', '--data', path.join(dir, 'fresh-data')], {}, false)).toMatchObject({ run: 'serve' });
    expect(decideStart(['eval', '--corpus', aFile, ...evalFiles], {}, false)).toMatchObject({ run: 'eval' });
    const index = path.join(dir, 'index');
    await mkdir(index);
    await writeFile(path.join(index, 'manifest.json'), '{}');
    expect(decideStart(['serve', '--index', index], {}, false)).toMatchObject({ run: 'serve', config: { index } });
    expect(decideStart(['eval', '--index', index, ...evalFiles], {}, false)).toMatchObject({ run: 'eval', config: { index } });
  });

  it('is said from the command line before serve makes its data directory, and by eval (exit 1)', () => {
    const data = path.join(dir, 'data');
    const cli = (...args: string[]) => runCommand(args);
    const expected = `error: no index in ${missing} (manifest.json not found); build one with: npm run ingest -- --input PATH --index ${missing}\n`;
    const serve = cli('serve', '--index', missing, '--data', data, '--port', '0');
    expect([serve.code, serve.stderr]).toEqual([1, expected]);
    expect(existsSync(data)).toBe(false);
    const evaluated = cli('eval', '--index', missing, ...evalFiles);
    expect([evaluated.code, evaluated.stderr]).toEqual([1, expected]);
    expect(existsSync(missing)).toBe(false);
  }, 60_000);
});
