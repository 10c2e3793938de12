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

  it('refuses to run a command on a Node older than package.json\'s engines, saying which it needs; --version and --help still answer', () => {
    const tooOld = { exit: 1, stderr: expect.stringMatching(/^error: litserve needs Node 20\.15 or later \(.*zlib\.crc32\); this is Node 20\.14\.0\n$/) };
    expect(decideStart(['-p', '9000'], {}, false, '20.14.0')).toEqual(tooOld);
    expect(decideStart(['ingest', '--merge'], {}, false, '18.20.4')).toMatchObject({ exit: 1 });
    expect(decideStart(['--help'], {}, false, '20.14.0')).toMatchObject({ exit: 0 });
    expect(decideStart(['--version'], {}, false, '20.14.0')).toMatchObject({ exit: 0 });
    for (const version of ['20.15.0', '20.20.2', '22.1.0']) expect(decideStart(['-p', '9000'], {}, false, version)).toMatchObject({ run: 'serve' });
  });
});
