/**
 * A Node peer whose harness goes away (its input ends without "quit") takes its
 * own processes with it: engine-http's server used to outlive it, holding its
 * port, its index and the peer's output pipe.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rowLine } from '../../bench/peers/lib/docs.js';

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
  it('stops the engine-http server it started', async () => {
    const corpus = path.join(work, 'corpus.tsv');
    writeFileSync(corpus, [0, 1, 2].map((i) => rowLine({ id: `a${i}:0`, article: `a${i}`, date: '2015-01-15', type: 'research-article', title: `Cell ${i}`, text: 'cells divide and grow' })).join(''));
    const index = path.join(work, 'index');
    const built = await runPeer('engine', [`build\t${corpus}\t${index}\tsplit`]);
    expect(JSON.parse(built[0]!.slice(3))).toHaveProperty('seconds');

    const served = await runPeer('engine-http', [`open\t${index}\tsplit`, `rank\t${writeQueries()}\t10`]);
    expect(JSON.parse(served[1]!.slice(3)).rankings[0]).toHaveLength(3);
    // Reaching here at all is the check: with the server still running, its copy of the pipe never closed.
  }, 120_000);
});

function writeQueries(): string {
  const file = path.join(work, 'queries.txt');
  writeFileSync(file, 'cells\n');
  return file;
}
