/**
 * The compiled server in dist/, in one file because its first test recompiles
 * dist/ and no other test file may use dist/ meanwhile (test files run in
 * parallel; the tests of one file, in order):
 * - `npm start` runs it and compiles it first when a source is newer than the
 *   last build (so `npm ci && npm start` works), and only then;
 * - a benchmark peer left by its harness (its input ends without "quit") takes
 *   its processes with it: engine-http's server, which runs dist/, used to
 *   outlive it, holding its port, its index and the peer's output pipe.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildCompiled } from '../../bench/lib/compiled.js';
import { rowLine } from '../../bench/peers/lib/docs.js';

const start = (...args: string[]) => spawnSync(process.execPath, ['scripts/start.mjs', ...args], { encoding: 'utf8', timeout: 60_000 });

describe('npm start', () => {
  it('compiles dist/ when a source changed since the last build, and runs it without compiling otherwise', () => {
    // Mark a source as just changed (its content stays the same).
    const now = new Date();
    utimesSync('src/main.ts', now, now);
    const stale = start('serve', '--version');
    expect(stale.status).toBe(0);
    expect(stale.stderr).toContain('compiling the server');
    expect(stale.stdout).toMatch(/^litserve \d+\.\d+\.\d+ \(Node /);

    const current = start('--version');
    expect(current.status).toBe(0);
    expect(current.stderr).not.toContain('compiling');
    expect(current.stdout).toBe(stale.stdout);
  });

  it('runs the commands of the compiled server with their own flags', () => {
    const help = start('serve', '--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('usage: npm start -- [options]');
    const ingestHelp = start('ingest', '--help');
    expect(ingestHelp.status).toBe(0);
    expect(ingestHelp.stdout).toContain('usage: npm run ingest');
    const ingest = start('ingest');
    expect(ingest.status).toBe(2);
    expect(ingest.stderr).toContain('ingest needs --index; see --help');
  });
});

const work = mkdtempSync(path.join(tmpdir(), 'peer-exit-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Runs peer-main.ts for `peer`, sends `commands`, then ends its input; resolves with its replies once its output closes. */
function runPeer(peer: string, commands: string[]): Promise<string[]> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.resolve('bench', 'peers', 'node', 'peer-main.ts'), peer], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, NODE_ENV: 'production' },
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    const replies = output.split('\n').filter((line) => line.startsWith('@@ '));
    // Every command answered: the harness goes away without "quit".
    if (replies.length === commands.length) child.stdin.end();
  });
  child.stdin.write(commands.map((command) => command + '\n').join(''));
  // 'close' of stdout comes once every process holding the pipe has exited, the server included.
  return new Promise((resolve) => child.stdout.on('close', () => resolve(output.split('\n').filter((line) => line.startsWith('@@ ')))));
}

describe('a Node peer left by its harness', () => {
  // The engine peers run dist/ (bench:peers compiles it first, as here).
  beforeAll(() => buildCompiled(), 120_000);

  it('stops the engine-http server it started', async () => {
    const corpus = path.join(work, 'corpus.tsv');
    writeFileSync(corpus, [0, 1, 2].map((i) => rowLine({ id: `a${i}:0`, article: `a${i}`, date: '2015-01-15', type: 'research-article', title: `Cell ${i}`, text: 'cells divide and grow' })).join(''));
    const index = path.join(work, 'index');
    const built = await runPeer('engine', [`build\t${corpus}\t${index}\tsplit`]);
    expect(JSON.parse(built[0]!.slice(3))).toHaveProperty('seconds');

    const served = await runPeer('engine-http', [`open\t${index}\tsplit\t1`, `rank\t${writeQueries()}\t10`]);
    expect(JSON.parse(served[1]!.slice(3)).rankings[0]).toHaveLength(3);
    // Reaching here at all is the check: with the server still running, its copy of the pipe never closed.
  }, 120_000);
});

function writeQueries(): string {
  const file = path.join(work, 'queries.txt');
  writeFileSync(file, 'cells\n');
  return file;
}
