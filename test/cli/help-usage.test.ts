/** The usage lines and the top-level --help say what a user can type: the commands, --version, and which flags repeat. */
import { describe, expect, it } from 'vitest';
import { helpText } from '../../src/config.js';
import { runCommand } from '../compiled-server.js';

const cli = (...args: string[]) => runCommand(args);

describe('--help', () => {
  it('at the top names every command and --version', () => {
    const { code, stdout } = cli('--help');
    expect(code).toBe(0);
    const commands = stdout.slice(stdout.indexOf('\nCommands:\n'), stdout.indexOf('\nOptions'));
    for (const command of ['serve', 'ingest', 'eval']) expect(commands).toMatch(new RegExp(`\\n  ${command} +\\S`));
    expect(commands).toContain('npm run ingest -- --help');
    expect(commands).toContain('npm run eval -- --help');
    expect(commands).toContain('--version prints the version');
  }, 60_000);

  it("of ingest shows each repeatable flag in its usage line as repeatable, as its option list does", () => {
    const usage = cli('ingest', '--help').stdout.split('\n')[0]!;
    const repeatable = [...helpText('ingest').matchAll(/^ {2}(--[a-z-]+ [A-Z]+\.\.\.) /gm)].map((match) => match[1]!);
    expect(repeatable).toEqual(['--input PATH...', '--delete ID...', '--delete-file FILE...']);
    for (const flag of repeatable) expect(usage).toContain(`[${flag}]`);
  }, 60_000);
});

describe('mistyped options on the command line', () => {
  it('a dash-word after --input that names no path is called an option, not a missing input', () => {
    const { code, stderr } = cli('ingest', '--index', '/nonexistent/litserve-index', '--input', 'f.nxml', '-q');
    expect(stderr).toBe('error: -q, after --input, is no file or folder and looks like an option: unknown option -q for ingest (did you mean --quiet?); see --help\n');
    expect(code).toBe(2);
  }, 60_000);

  it('an option after --index is called an option, not taken for the index folder', () => {
    const { code, stderr } = cli('ingest', '--index', '-q', '--input', 'f.nxml');
    expect(stderr).toBe('error: --index needs a folder, and "-q" looks like an option (--quiet?); a folder whose name starts with a dash is written ./-q; see --help\n');
    expect(code).toBe(2);
  }, 60_000);

  it('serve --index-dir is answered with --index', () => {
    const { code, stderr } = cli('serve', '--index-dir', '/srv/index');
    expect(stderr).toBe('error: unknown option --index-dir for serve (did you mean --index?); see --help\n');
    expect(code).toBe(2);
  }, 60_000);
});
