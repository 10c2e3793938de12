/**
 * `npm start` on a fresh data directory: builds the demo index with progress,
 * serves it on a real socket (without loading onnxruntime when no reranker is
 * configured), and drains and exits cleanly on SIGTERM.
 */
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { article, tempDir, writeIndex } from '../search/helpers.js';
import { freePort } from '../reliability/server-process.js';
import { COMPILED_MAIN, runCommand } from '../compiled-server.js';

describe('npm start', () => {
  it('builds the demo index on first start, serves it, and stops on SIGTERM', async () => {
    const { dir, cleanup } = await tempDir();
    const port = await freePort();
    const child = spawn(process.execPath, [COMPILED_MAIN, 'serve', '--data', dir, '--port', String(port), '--search-threads', '1'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    try {
      const deadline = Date.now() + 60_000;
      while (!output.includes('Server listening') && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 100));
      expect(output).toContain('building it from the demo corpus');
      expect(output).toMatch(/indexed 4\d /);
      const count = await fetch(`http://127.0.0.1:${port}/retrieval/article_count?topics=place%20cells&regions=CA1`);
      expect(count.status).toBe(200);
      expect(((await count.json()) as { article_count: number }).article_count).toBeGreaterThan(0);
      const settings = (await (await fetch(`http://127.0.0.1:${port}/settings`)).json()) as { index_stats: { articles: number } };
      expect(settings.index_stats.articles).toBeGreaterThanOrEqual(40);
      // No reranker is configured, so onnxruntime's native library is never loaded.
      expect(readFileSync(`/proc/${child.pid}/maps`, 'utf8')).not.toMatch(/onnxruntime/);
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(output).toContain('shutting down');
    } finally {
      child.kill('SIGKILL');
      await cleanup();
    }
  }, 90_000);
});

describe('SIGHUP', () => {
  it('drains and exits 0 as SIGTERM does (a terminal closing had ended the server at once)', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      await writeIndex(`${dir}/index`, [article('a1', ['place cells fire in one place'])]);
      const port = await freePort();
      const child = spawn(process.execPath, [COMPILED_MAIN, 'serve', '--data', dir, '--port', String(port), '--search-threads', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
      try {
        const deadline = Date.now() + 60_000;
        while (!output.includes('Server listening') && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 100));
        expect(output).toContain('Server listening');
        child.kill('SIGHUP');
        expect(await exited).toEqual({ code: 0, signal: null });
        expect(output).toMatch(/"signal":"SIGHUP".*shutting down: draining in-flight requests/);
      } finally {
        child.kill('SIGKILL');
      }
    } finally {
      await cleanup();
    }
  }, 90_000);
});

describe('a start that cannot listen', () => {
  it('exits 1 naming the settings to change when the port is taken', async () => {
    const { dir, cleanup } = await tempDir();
    const holder = createServer();
    const port = await new Promise<number>((resolve) => holder.listen(0, '127.0.0.1', () => resolve((holder.address() as { port: number }).port)));
    try {
      await writeIndex(`${dir}/index`, [article('a1', ['place cells fire in one place'])]);
      const result = runCommand(['serve', '--data', dir, '--port', String(port), '--search-threads', '0']);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`error: cannot listen on 127.0.0.1 port ${port} (--host / HOST, --port / PORT): listen EADDRINUSE`);
    } finally {
      holder.close();
      await cleanup();
    }
  }, 90_000);
});

describe('a start with a broken auth file', () => {
  it('exits 1 naming the file and the setting that points at it', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      await writeIndex(`${dir}/index`, [article('a1', ['place cells fire in one place'])]);
      const authFile = `${dir}/auth.json`;
      writeFileSync(authFile, '{"tokens": ');
      const result = runCommand(['serve', '--data', dir, '--port', '0', '--search-threads', '0', '--auth-file', authFile]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`error: auth file ${authFile} (--auth-file / AUTH_FILE) is not valid JSON: `);
    } finally {
      await cleanup();
    }
  }, 90_000);
});
