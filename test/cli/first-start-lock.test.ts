/**
 * Two first starts at once on one fresh --data: the data directory is taken before the demo index is
 * built, so the second (started here while the first builds, which makes the race certain) is refused
 * with the data directory's message. It had met the first one's index
 * write lock instead, and been told to remove that live lock if no ingestion was running.
 */
import { describe, expect, it } from 'vitest';
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { tempDir } from '../search/helpers.js';
import { freePort, killChild } from '../reliability/server-process.js';
import { writeSlowCorpus } from './slow-corpus.js';
import { COMPILED_MAIN } from '../compiled-server.js';

interface Start {
  child: ChildProcess;
  output: () => string;
  /** Resolves once the server listens (null) or the process ends (its exit code). */
  settled: Promise<number | null>;
}

function start(args: string[]): Start {
  const child = spawn(process.execPath, [COMPILED_MAIN, 'serve', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const settled = new Promise<number | null>((resolve) => {
    const read = (chunk: Buffer) => {
      output += chunk;
      if (output.includes('Server listening')) resolve(null);
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.on('exit', (code) => resolve(code));
  });
  return { child, output: () => output, settled };
}

describe('two first starts at once on one fresh data directory', () => {
  it('serves from one and refuses the other with the data directory lock, not the index being built', async () => {
    const { dir, cleanup } = await tempDir();
    const data = path.join(dir, 'data');
    // A demo corpus that takes seconds to index: the second start surely comes while the first builds.
    const corpus = path.join(dir, 'corpus.jsonl');
    await writeSlowCorpus(corpus, 30_000);
    const serve = async () => ['--data', data, '--demo-corpus', corpus, '--port', String(await freePort()), '--search-threads', '0'];
    const first = start(await serve());
    let second: Start | undefined;
    try {
      while (!first.output().includes('building it from the demo corpus') && first.child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 50));
      second = start(await serve());
      expect(await second.settled).toBe(1);
      expect(second.output()).toContain(`error: another litserve is serving the data directory ${data} (--data / DATA_DIR)`);
      expect(second.output()).not.toContain('write.lock');
      expect(await first.settled).toBe(null);
    } finally {
      await killChild(first.child);
      if (second) await killChild(second.child);
      await cleanup();
    }
  }, 120_000);
});
