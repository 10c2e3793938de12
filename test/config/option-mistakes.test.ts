/**
 * Mistyped options are named as such, with the option probably meant, and settings are named as the user
 * gave them (flag or environment variable), so that a message points at what the user can change.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { givenAs, helpText, loadConfig } from '../../src/config.js';
import { tempDir } from '../search/helpers.js';

describe('a dash-word among the values of a many-valued path flag', () => {
  it('is taken for a mistyped option when no such path exists, with the option meant', () => {
    // `-q` had been read as an input, and the run failed with "Input path does not exist: -q".
    expect(() => loadConfig(['--index', 'idx', '--input', 'a.nxml', '-q'], {}, 'ingest')).toThrow(
      '-q, after --input, is no file or folder and looks like an option: unknown option -q for ingest (did you mean --quiet?); see --help',
    );
    // The first value too, and --delete-file's.
    expect(() => loadConfig(['--index', 'idx', '--input', '-quiet'], {}, 'ingest')).toThrow('unknown option -quiet for ingest (did you mean --quiet?)');
    expect(() => loadConfig(['--index', 'idx', '--delete-file', 'ids.txt', '-m'], {}, 'ingest')).toThrow(
      '-m, after --delete-file, is no file or folder and looks like an option: unknown option -m for ingest (did you mean --merge, --merge-factor or --max-segment-mb?)',
    );
  });

  it('is a path when one exists by that name, and ids after --delete are never paths', async () => {
    const { dir, cleanup } = await tempDir();
    const workingDirectory = process.cwd();
    try {
      await writeFile(path.join(dir, '-q.jsonl'), '');
      process.chdir(dir);
      expect(loadConfig(['--index', 'idx', '--input', 'a.jsonl', '-q.jsonl'], {}, 'ingest').input).toEqual(['a.jsonl', '-q.jsonl']);
      expect(loadConfig(['--index', 'idx', '--delete', 'a', '-x'], {}, 'ingest').delete).toEqual(['a', '-x']);
    } finally {
      process.chdir(workingDirectory);
      await cleanup();
    }
  });

  it('standing alone, is an unknown option, worded as one with two dashes is', () => {
    // It had been `unexpected argument "-q" (an unknown option? …)`: two wordings for one mistake.
    expect(() => loadConfig(['--index', 'idx', '-q'], {}, 'ingest')).toThrow('unknown option -q for ingest (did you mean --quiet?); see --help');
    expect(() => loadConfig(['-v'], {})).toThrow(/^unknown option -v for serve( \(did you mean [^)]*\))?; see --help$/);
    expect(() => loadConfig(['-quiet', '--index', 'idx'], {}, 'ingest')).toThrow('unknown option -quiet for ingest (did you mean --quiet?); see --help');
    // A word without a dash is still no option.
    expect(() => loadConfig(['serve'], {})).toThrow('unexpected argument "serve"; see --help');
  });
});

describe('a dash-word after a single-valued path flag', () => {
  it('is taken for the option it names or nearly names, the path left out, and says how to write such a path', () => {
    // `-q` had become the index folder, and the run wrote into ./-q.
    expect(() => loadConfig(['--index', '-q', '--input', 'x'], {}, 'ingest')).toThrow(
      '--index needs a folder, and "-q" looks like an option (--quiet?); a folder whose name starts with a dash is written ./-q; see --help',
    );
    expect(() => loadConfig(['--corpus', '-quiet', '--queries', 'q', '--qrels', 'r'], {}, 'eval')).toThrow(
      '--corpus needs a file, and "-quiet" looks like an option (--quiet?); a file whose name starts with a dash is written ./-quiet',
    );
    // An option of another command is an option all the same.
    expect(() => loadConfig(['--index', '-merge'], {}, 'serve')).toThrow('--index needs a folder, and "-merge" looks like an option; a folder whose name');
  });

  it('is a path when it names no option, and ./ keeps any such path', () => {
    expect(loadConfig(['--index', '-old-index', '--input', 'x'], {}, 'ingest').index).toBe('-old-index');
    expect(loadConfig(['--index', './-q', '--input', 'x'], {}, 'ingest').index).toBe('./-q');
    expect(loadConfig(['--index=-q', '--input', 'x'], {}, 'ingest').index).toBe('-q');
    // Values that are no paths are the parsers' to judge.
    expect(() => loadConfig(['--bm25-b', '-q', '--queries', 'q', '--qrels', 'r', '--corpus', 'c'], {}, 'eval')).toThrow('--bm25-b / BM25_B must be a number');
  });
});

describe('an unknown option', () => {
  it("is answered with the option an environment variable's name stands for", () => {
    // INDEX_DIR and DATA_DIR, written as flags, are two edits or more from --index and --data: they had got no suggestion.
    expect(() => loadConfig(['--index-dir', 'x'], {})).toThrow('unknown option --index-dir for serve (did you mean --index?); see --help');
    expect(() => loadConfig(['--data-dir', 'x'], {})).toThrow('unknown option --data-dir for serve (did you mean --data?)');
    expect(() => loadConfig(['--index', 'i', '--ingest-input', 'x'], {}, 'ingest')).toThrow('unknown option --ingest-input for ingest (did you mean --input?)');
  });

  it('with a word added to an option, is answered with that option', () => {
    expect(() => loadConfig(['--index-path', 'x'], {})).toThrow('unknown option --index-path for serve (did you mean --index?)');
    expect(() => loadConfig(['--queries', 'q', '--qrels', 'r', '--corpus-file', 'c'], {}, 'eval')).toThrow('unknown option --corpus-file for eval (did you mean --corpus?)');
  });
});

describe('where a setting was given', () => {
  it('is known per setting: flag or environment variable, and named so', () => {
    const config = loadConfig(['--corpus', 'corpus.jsonl', '--queries', 'q.jsonl'], { INDEX_DIR: '/srv/index', EVAL_QRELS: 'r.tsv' }, 'eval');
    expect(config.givenIn).toEqual({ corpus: 'flag', queries: 'flag', index: 'environment', qrels: 'environment' });
    expect(givenAs(config, 'corpus')).toBe('--corpus corpus.jsonl');
    expect(givenAs(config, 'index')).toBe('INDEX_DIR=/srv/index (from the environment)');
    // A flag beats the variable, and is named as the flag.
    expect(givenAs(loadConfig(['--port', '9000'], { PORT: '7000' }), 'port')).toBe('--port 9000');
  });
});

describe('--log-level in --help', () => {
  it('lists the levels, the ones the parser takes', () => {
    const listed = /--log-level \/ LOG_LEVEL .*\n\s+Log level: ([a-z, ]+)\./.exec(helpText('serve'))?.[1]?.split(', ');
    expect(listed).toEqual(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);
    for (const level of listed!) expect(loadConfig(['--log-level', level], {}).logLevel).toBe(level);
    expect(() => loadConfig(['--log-level', 'verbose'], {})).toThrow(`--log-level / LOG_LEVEL must be one of ${listed!.join(', ')}, got "verbose"`);
  });
});

describe('the default --data', () => {
  it('is refused when started from /, where it would be the system /var, and taken when given', () => {
    const workingDirectory = process.cwd();
    try {
      process.chdir('/');
      expect(() => loadConfig([], {})).toThrow("serve started from / needs --data: the default, var, is relative to the working directory and would be the system's /var; see --help");
      expect(loadConfig(['--data', '/srv/litserve'], {}).data).toBe('/srv/litserve');
      expect(loadConfig([], { DATA_DIR: 'var' }).data).toBe('var');
    } finally {
      process.chdir(workingDirectory);
    }
    expect(loadConfig([], {}).data).toBe('var');
  });
});
