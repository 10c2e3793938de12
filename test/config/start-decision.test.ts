/**
 * The start decision parses the settings once: a command to run comes with the settings its arguments and
 * the environment gave, as the command would have parsed them itself, so main.ts runs it on those.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { decideStart } from '../../src/start-decision.js';

describe('decideStart', () => {
  it("answers a command to run with its settings, parsed from its own arguments and the environment", () => {
    const env = { INDEX_DIR: '/srv/index', BM25_K1: '1.1' };
    expect(decideStart(['ingest', '--input', 'a.jsonl', '--merge'], env, false)).toEqual({
      run: 'ingest',
      config: loadConfig(['--input', 'a.jsonl', '--merge'], env, 'ingest'),
    });
    expect(decideStart(['eval', '--corpus', 'c.jsonl', '--queries', 'q.jsonl', '--qrels', 'r.tsv'], { BM25_K1: '1.1' }, false)).toEqual({
      run: 'eval',
      config: loadConfig(['--corpus', 'c.jsonl', '--queries', 'q.jsonl', '--qrels', 'r.tsv'], { BM25_K1: '1.1' }, 'eval'),
    });
  });

  it('takes options without a command as serve\'s', () => {
    const decision = decideStart(['-p', '9000'], { DATA_DIR: '/srv/data' }, false);
    expect(decision).toEqual({ run: 'serve', config: loadConfig(['--port', '9000'], { DATA_DIR: '/srv/data' }, 'serve') });
    expect(decision).toMatchObject({ config: { port: 9000, data: '/srv/data', givenIn: { port: 'flag', data: 'environment' } } });
  });
});
