/**
 * --quiet: no progress output on any command, neither bars on a terminal nor progress lines elsewhere;
 * warnings, errors and the summary lines still print.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../search/helpers.js';
import { COMPILED_MAIN } from '../compiled-server.js';

const script = '/usr/bin/script';
if (!existsSync(script)) console.warn(`skipping the --quiet tests on a terminal: ${script} (bsdutils), which gives a job a terminal, is absent`);

const BAR = /(ingest|write|merge) \[[^\]]*\] \d+%/;
const HIDE_CURSOR = '\x1b[?25l';
const PROGRESS_LINE = /^(ingest|write|merge): \d+% \(/m;
const SKIPPED = /skipped .*: /;

const record = (id: string) => JSON.stringify({ article_id: id, title: `Title ${id}`, paragraphs: [{ section: 'Results', text: `place cells of ${id}` }] });
/** A record without an id: skipped with a warning. */
const BAD_RECORD = JSON.stringify({ title: 'No id', paragraphs: [{ section: 'Results', text: 'text' }] });

const main = (...args: string[]) => [process.execPath, COMPILED_MAIN, ...args];

/** The command's terminal output, run through `script` so that its stderr is a terminal. */
function onTerminal(...args: string[]): { status: number | null; output: string } {
  const command = main(...args).map((arg) => `'${arg}'`).join(' ');
  const result = spawnSync(script, ['-qec', command, '/dev/null'], { encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, output: result.stdout };
}

/** The command off a terminal, with a clock that makes every step long enough to print its progress lines. */
function offTerminal(args: string[], env: NodeJS.ProcessEnv = {}): { status: number | null; stderr: string } {
  const withClock = ['--import', pathToFileURL(path.resolve('test/cli/fast-clock.mjs')).href, COMPILED_MAIN, ...args];
  const result = spawnSync(process.execPath, withClock, { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 });
  return { status: result.status, stderr: result.stderr };
}

async function inputs(dir: string) {
  const files: Record<string, string> = {};
  for (const batch of ['a', 'b', 'c']) {
    files[batch] = path.join(dir, `${batch}.jsonl`);
    await writeFile(files[batch], [record(`${batch}1`), BAD_RECORD, record(`${batch}2`)].join('\n'));
  }
  return { ...files, index: path.join(dir, 'index') } as Record<'a' | 'b' | 'c' | 'index', string>;
}

describe.skipIf(!existsSync(script))('--quiet on a terminal', () => {
  it('ingest, ingest --merge and eval show no bar with --quiet, one without; warnings and summaries stay', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const files = await inputs(dir);
      const shown = onTerminal('ingest', '--input', files.a, '--index', files.index, '--merge-factor', '0');
      expect(shown.status).toBe(0);
      expect(shown.output).toMatch(BAR);

      const quiet = onTerminal('ingest', '--input', files.b, '--index', files.index, '--merge-factor', '0', '--quiet');
      expect(quiet.status).toBe(0);
      expect(quiet.output).not.toMatch(BAR);
      expect(quiet.output).not.toContain(HIDE_CURSOR);
      expect(quiet.output).toMatch(SKIPPED);
      expect(quiet.output).toMatch(/ingest: files: 1 read; records: read 3, indexed 2/);

      const merged = onTerminal('ingest', '--index', files.index, '--merge', '--quiet');
      expect(merged.status).toBe(0);
      expect(merged.output).not.toMatch(BAR);
      expect(merged.output).toMatch(/merge: 2 segment\(s\) ->/);

      const queries = path.join(dir, 'queries.jsonl');
      const qrels = path.join(dir, 'qrels.tsv');
      await writeFile(queries, JSON.stringify({ _id: 'q1', text: 'place cells' }));
      await writeFile(qrels, 'query-id\tcorpus-id\tscore\nq1\tc1\t1\n');
      const evaluate = (...flags: string[]) => onTerminal('eval', '--corpus', files.c, '--queries', queries, '--qrels', qrels, ...flags);
      const evalShown = evaluate();
      expect(evalShown.status).toBe(0);
      expect(evalShown.output).toMatch(BAR);
      const evalQuiet = evaluate('--quiet');
      expect(evalQuiet.status).toBe(0);
      expect(evalQuiet.output).not.toMatch(BAR);
      expect(evalQuiet.output).toMatch(SKIPPED);
      expect(evalQuiet.output).toContain('nDCG@10');
    } finally {
      await cleanup();
    }
  }, 120_000);
});

describe('--quiet off a terminal', () => {
  it('ingest and ingest --merge print no progress line with --quiet (or LITSERVE_QUIET), lines without; warnings and summaries stay', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const files = await inputs(dir);
      const shown = offTerminal(['ingest', '--input', files.a, '--index', files.index, '--merge-factor', '0']);
      expect(shown.status).toBe(0);
      expect(shown.stderr).toMatch(PROGRESS_LINE);

      const quiet = offTerminal(['ingest', '--input', files.b, '--index', files.index, '--merge-factor', '0', '--quiet']);
      expect(quiet.status).toBe(0);
      expect(quiet.stderr).not.toMatch(PROGRESS_LINE);
      expect(quiet.stderr).toMatch(SKIPPED);
      expect(quiet.stderr).toMatch(/ingest: files: 1 read; records: read 3, indexed 2/);

      const fromEnvironment = offTerminal(['ingest', '--input', files.c, '--index', files.index, '--merge-factor', '0'], { LITSERVE_QUIET: 'true' });
      expect(fromEnvironment.status).toBe(0);
      expect(fromEnvironment.stderr).not.toMatch(PROGRESS_LINE);
      expect(fromEnvironment.stderr).toMatch(/ingest: files: 1 read;/);

      const merged = offTerminal(['ingest', '--index', files.index, '--merge', '--quiet']);
      expect(merged.status).toBe(0);
      expect(merged.stderr).not.toMatch(PROGRESS_LINE);
      expect(merged.stderr).toMatch(/merge: 3 segment\(s\) ->/);
    } finally {
      await cleanup();
    }
  }, 60_000);

  it('errors still print with --quiet, on every command; a --quiet that is not a boolean is a usage error', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const missing = path.join(dir, 'missing-ids.txt');
      const ingest = offTerminal(['ingest', '--index', path.join(dir, 'index'), '--delete-file', missing, '--quiet']);
      expect(ingest.status).toBe(1);
      expect(ingest.stderr).toContain(`error: --delete-file ${missing}:`);

      const serve = offTerminal(['serve', '--quiet', '--port', 'none']);
      expect(serve.status).toBe(2);
      expect(serve.stderr).toMatch(/^error: --port \/ PORT must be an integer/);

      const evaluate = offTerminal(['eval', '--quiet', '--queries', 'q', '--qrels', 'r']);
      expect(evaluate.status).toBe(2);
      expect(evaluate.stderr).toBe('error: eval needs --corpus or --index; see --help\n');

      const invalid = offTerminal(['ingest', '--index', path.join(dir, 'index'), '--merge', '--quiet=sometimes']);
      expect(invalid.status).toBe(2);
      expect(invalid.stderr).toBe('error: --quiet / LITSERVE_QUIET must be true or false (or 1/0, yes/no, on/off), got "sometimes"\n');
    } finally {
      await cleanup();
    }
  }, 60_000);
});
