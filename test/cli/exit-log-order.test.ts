/**
 * The log's last line is "stopped", and every line before it comes out whole and in order, even when the log's
 * reader is slow at the stop: pino writes asynchronously, so the exit must wait for the write under way (an exit
 * during it had Node's exit-time flush write the last lines beside it, "stopped" first).
 */
import { spawn } from 'node:child_process';
import { expect, it } from 'vitest';
import { COMPILED_MAIN } from '../compiled-server.js';
import { freePort } from '../reliability/server-process.js';
import { article, tempDir, writeIndex } from '../search/helpers.js';

it('writes every line in order and ends on "stopped" when its reader was not reading at the stop', async () => {
  const { dir, cleanup } = await tempDir();
  const port = await freePort();
  await writeIndex(`${dir}/index`, [article('a1', ['Grid cells fire on a lattice.'])]);
  const child = spawn(process.execPath, [COMPILED_MAIN, 'serve', '--data', dir, '--port', String(port), '--search-threads', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  try {
    await expect.poll(() => output, { timeout: 60_000 }).toContain('Server listening');
    // The reader stops; each refused request then logs its 8 KB target, about 400 KB in all: far more than the pipe holds.
    child.stdout.pause();
    const target = `/nothing-here?padding=${'x'.repeat(8_000)}`;
    for (let i = 0; i < 50; i++) expect((await fetch(`http://127.0.0.1:${port}${target}`)).status).toBe(404);
    child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));
    child.stdout.resume();
    expect(await closed).toBe(0);
    const lines = output.trim().split('\n');
    const records = lines.map((line) => JSON.parse(line) as { time: number; msg: string; url?: string });
    expect(records.at(-1)!.msg).toBe('stopped');
    expect(records.filter((record) => record.url?.startsWith('/nothing-here') ?? false).length).toBe(50);
    const times = records.map((record) => record.time);
    expect(times).toEqual([...times].sort((a, b) => a - b));
  } finally {
    child.kill('SIGKILL');
    await cleanup();
  }
}, 120_000);
