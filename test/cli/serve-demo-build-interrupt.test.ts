/**
 * A first `npm start` stopped by Ctrl-C or `kill` while it builds the demo index stops that build at its next
 * safe point, as `ingest` does, and says so: the build had no signal, so the process died where it was, without
 * a word, leaving its partial segments and write lock in the index directory. Nothing is published then, so the
 * next start builds the demo index again.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { tempDir } from '../search/helpers.js';
import { freePort, killChild } from '../reliability/server-process.js';
import { writeSlowCorpus } from './slow-corpus.js';
import { COMPILED_MAIN } from '../compiled-server.js';

/** `serve` on a fresh data directory; `output` gathers stdout and stderr, `ended` resolves with the signal or code it ended by. */
function serve(args: string[]) {
  const child = spawn(process.execPath, [COMPILED_MAIN, 'serve', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const ended = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, killedBy) => resolve(killedBy ?? code)));
  return { child, output: () => output, ended };
}

it.each(['SIGINT', 'SIGTERM'] as const)('%s while the first start builds the demo index stops the build, says so, and leaves it to the next start', async (signal) => {
  const { dir, cleanup } = await tempDir();
  const data = path.join(dir, 'data');
  const indexDir = path.join(data, 'index');
  // A demo corpus that takes seconds to index: the signal surely comes while the build writes.
  const corpus = path.join(dir, 'corpus.jsonl');
  await writeSlowCorpus(corpus, 30_000);
  const args = async () => ['--data', data, '--demo-corpus', corpus, '--port', String(await freePort()), '--search-threads', '0'];
  const first = serve(await args());
  let next: ReturnType<typeof serve> | undefined;
  try {
    while (!existsSync(path.join(indexDir, 'write.lock')) && first.child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(first.child.exitCode).toBeNull();
    first.child.kill(signal);
    expect(await first.ended).toBe(signal);
    // Stopped within the deadline (past it, the line says what was left for the next run to remove).
    expect(first.output().trim().split('\n').at(-1)).toBe(`serve: interrupted (${signal}); no index was written to ${indexDir}`);
    // No manifest, no write lock, no partial segment.
    expect(existsSync(indexDir) ? await readdir(indexDir) : []).toEqual([]);

    await writeSlowCorpus(corpus, 20);
    next = serve(await args());
    while (!next.output().includes('Server listening') && next.child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(next.output()).toContain(`No index at ${indexDir}: building it from the demo corpus ${corpus} (first start only)`);
    expect(next.output()).toContain('Server listening');
    expect(existsSync(path.join(indexDir, 'manifest.json'))).toBe(true);
  } finally {
    await killChild(first.child);
    if (next) await killChild(next.child);
    await cleanup();
  }
}, 120_000);
