/**
 * The start decision parses the settings once: a command to run comes with the settings its arguments and
 * the environment gave, as the command would have parsed them itself, so main.ts runs it on those.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { decideStart } from '../../src/start-decision.js';
import { tempDir } from '../search/helpers.js';

describe('decideStart', () => {
  // Eval's files are looked for as the start is decided (test/config/start-file-checks.test.ts): these exist.
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ dir, cleanup } = await tempDir());
    for (const file of ['c.jsonl', 'q.jsonl', 'r.tsv']) await writeFile(path.join(dir, file), '');
  });
  afterAll(() => cleanup?.());

  it("answers a command to run with its settings, parsed from its own arguments and the environment", () => {
    const env = { INDEX_DIR: '/srv/index', BM25_K1: '1.1' };
    expect(decideStart(['ingest', '--input', 'a.jsonl', '--merge'], env, false)).toEqual({
      run: 'ingest',
      config: loadConfig(['--input', 'a.jsonl', '--merge'], env, 'ingest'),
    });
    const evalArgs = ['--corpus', path.join(dir, 'c.jsonl'), '--queries', path.join(dir, 'q.jsonl'), '--qrels', path.join(dir, 'r.tsv')];
    expect(decideStart(['eval', ...evalArgs], { BM25_K1: '1.1' }, false)).toEqual({
      run: 'eval',
      config: loadConfig(evalArgs, { BM25_K1: '1.1' }, 'eval'),
    });
  });

  it('takes options without a command as serve\'s', () => {
    const decision = decideStart(['-p', '9000'], { DATA_DIR: '/srv/data' }, false);
    expect(decision).toEqual({ run: 'serve', config: loadConfig(['--port', '9000'], { DATA_DIR: '/srv/data' }, 'serve') });
    expect(decision).toMatchObject({ config: { port: 9000, data: '/srv/data', givenIn: { port: 'flag', data: 'environment' } } });
  });
});
