/** Every command prints usage generated from the settings table on --help and validates its flags through it. */
import { describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { ConfigError, helpText, loadConfig } from '../../src/config.js';
import { runCommand } from '../compiled-server.js';

const cli = (...args: string[]) => runCommand(args);

describe('--help of every command', () => {
  it('ingest --help prints its usage and options and exits 0', () => {
    const { code, stdout } = cli('ingest', '--help');
    expect(code).toBe(0);
    expect(stdout).toContain('usage: npm run ingest');
    for (const flag of ['--input', '--index', '--format', '--max-segment-mb']) expect(stdout).toContain(flag);
    expect(stdout).not.toContain('--port');
  }, 30_000);

  it('eval --help prints its usage and options and exits 0', () => {
    const { code, stdout } = cli('eval', '--help');
    expect(code).toBe(0);
    expect(stdout).toContain('usage: npm run eval');
    for (const flag of ['--corpus', '--queries', '--qrels', '--bm25-k1', '--bm25-b', '--title-weight', '--filter-cache-size']) expect(stdout).toContain(flag);
    expect(stdout).not.toContain('--llm-model');
  }, 30_000);

  it('says what --index is to each command: served (with its default), written into (required), or evaluated (no default)', () => {
    expect(helpText('serve')).toContain('--index / INDEX_DIR  (default: <data>/index)\n      Index directory to serve. Default: <data>/index, built from the demo corpus on first start.');
    expect(helpText('ingest')).toContain('--index / INDEX_DIR  (required)\n      Index directory to write into (made if missing).');
    expect(helpText('eval')).toContain('--index / INDEX_DIR  (default: unset)\n      Index directory to evaluate, built already (instead of --corpus).');
  });

  it('ingest --help gives the segment size it starts a new segment at, not a reference to the code', () => {
    expect(helpText('ingest')).toContain('--max-segment-mb / MAX_SEGMENT_MB  (default: 512; 0.001 to 1000000)');
  });

  it('says that the variable of a many-valued flag holds one value', () => {
    // INGEST_INPUT="a.jsonl b.jsonl" is one path holding a space: paths and ids may hold spaces, so it is not split.
    expect(helpText('ingest')).toContain('--input PATH... / INGEST_INPUT (one value)');
    expect(helpText('ingest')).toContain('--delete ID... / INGEST_DELETE (one value)');
  });

  it('eval that finds no judged query fails, naming both files', async () => {
    const dir = await mkdtemp(`${tmpdir()}/litserve-eval-`);
    try {
      await writeFile(`${dir}/corpus.jsonl`, JSON.stringify({ _id: 'd1', title: 'Place cells', text: 'Place cells fire in one place.' }));
      await writeFile(`${dir}/queries.jsonl`, JSON.stringify({ _id: 'q1', text: 'place cells' }));
      await writeFile(`${dir}/qrels.tsv`, 'query-id\tcorpus-id\tscore\nq9\td1\t1\n');
      const { code, stderr } = cli('eval', '--corpus', `${dir}/corpus.jsonl`, '--queries', `${dir}/queries.jsonl`, '--qrels', `${dir}/qrels.tsv`);
      expect(stderr).toContain(`error: no query of ${dir}/queries.jsonl has a judgement in ${dir}/qrels.tsv: nothing was evaluated`);
      expect(code).toBe(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 30_000);

  it('every command lists --cache-dir, which the executable reads before any command runs', () => {
    for (const command of ['serve', 'ingest', 'eval'] as const) expect(helpText(command)).toContain('--cache-dir');
  });

  it('--version is answered wherever it stands, for every command', () => {
    for (const args of [['--version'], ['--port', '1', '--version'], ['ingest', '--version'], ['eval', '--index', 'x', '--version']]) {
      const { code, stdout } = cli(...args);
      expect([args, code, stdout]).toEqual([args, 0, expect.stringMatching(/^litserve \d+\.\d+\.\d+ \(Node /)]);
    }
  }, 60_000);

  it('a missing index names the command that builds one', () => {
    const { code, stderr } = cli('serve', '--index', '/nonexistent/litserve-index', '--port', '0');
    expect(code).toBe(1);
    expect(stderr).toContain('error: no index in /nonexistent/litserve-index (manifest.json not found); build one with: npm run ingest -- --input PATH --index /nonexistent/litserve-index');
  }, 30_000);

  it('short options may come first, standing for serve: -h prints its help, -p is --port', () => {
    const help = cli('-h');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('usage: npm start -- [options]    (also: npm run ingest -- --help, npm run eval -- --help)');
    expect(help.stdout).toContain('-p, --port / PORT');
    const port = cli('-p', '70000');
    expect(port.code).toBe(2);
    expect(port.stderr).toBe('error: --port / PORT must be an integer between 0 and 65535, got "70000"\n');
  }, 30_000);

  it('serve --help lists only serve options', () => {
    expect(helpText('serve')).toContain('--llm-model');
    expect(helpText('serve')).toContain('(default: data/demo/articles.jsonl; in the executable, the copy it carries)');
    expect(helpText('serve')).not.toContain('--qrels');
  });
});

describe('command flags from the settings table', () => {
  it('ingest takes several inputs after one --input and requires --index', () => {
    const config = loadConfig(['--input', 'a.jsonl', 'b/', '--index', '/srv/idx', '--input', 'c.xml', '--format', 'pubmed'], {}, 'ingest');
    expect(config).toMatchObject({ input: ['a.jsonl', 'b/', 'c.xml'], index: '/srv/idx', format: 'pubmed' });
    expect(() => loadConfig(['--input', 'a.jsonl'], {}, 'ingest')).toThrow(/ingest needs --index/);
    // --input is one of the things an ingest run can do (deletions and --merge are others): the command checks that one is given.
    expect(loadConfig(['--index', 'x', '--delete', 'id1', 'id2', '--merge'], {}, 'ingest')).toMatchObject({ input: [], delete: ['id1', 'id2'], merge: true });
  });

  it('eval validates the engine settings with the same bounds as serve', () => {
    const config = loadConfig(['--queries', 'q', '--qrels', 'r', '--corpus', 'c', '--bm25-k1', '1.2'], {}, 'eval');
    expect(config).toMatchObject({ bm25K1: 1.2, bm25B: 0.75, filterCacheSize: 512 });
    expect(() => loadConfig(['--queries', 'q', '--qrels', 'r', '--bm25-b', '2'], {}, 'eval')).toThrow(/--bm25-b/);
  });

  it("rejects another command's flags", () => {
    expect(() => loadConfig(['--input', 'a', '--index', 'x', '--port', '1'], {}, 'ingest')).toThrow(ConfigError);
    expect(() => loadConfig(['--qrels', 'x'], {}, 'serve')).toThrow(/unknown option --qrels/);
  });

  it('an unknown command is an error line, exit 2', () => {
    const { code, stderr } = cli('serv', '--port', '1');
    expect(code).toBe(2);
    expect(stderr).toBe('error: unknown command "serv"; commands: serve, ingest, eval\n');
  }, 30_000);

  it.each(['toString', 'constructor'])('%s, a name every JavaScript object has, is an unknown command too', (name) => {
    const { code, stderr } = cli(name);
    expect(code).toBe(2);
    expect(stderr).toBe(`error: unknown command "${name}"; commands: serve, ingest, eval\n`);
  }, 30_000);

  it('exits 2 with the reason on a usage error', () => {
    const { code, stderr } = cli('eval', '--queries', 'q', '--qrels', 'r', '--bm25-b', '2');
    expect(code).toBe(2);
    expect(stderr).toMatch(/--bm25-b .*must be a number between 0 and 1/);
  }, 30_000);
});
