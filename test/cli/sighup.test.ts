/**
 * SIGHUP to `serve`: started without a terminal (a service manager, `nohup`), it reads the auth file again, so
 * tokens and the file's ACLs change without a restart, and an unusable file changes nothing; started in a
 * terminal, whose closing sends it, it drains and exits 0 as SIGTERM does (a closed terminal had ended the server
 * where it was). It had stopped every server, leaving a service manager's reload with the service down.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { article, tempDir, writeIndex } from '../search/helpers.js';
import { freePort } from '../reliability/server-process.js';
import { COMPILED_MAIN, listening, spawnServe, type ServeRun } from '../compiled-server.js';

const SCRIPT = '/usr/bin/script';
if (!existsSync(SCRIPT)) console.warn(`skipping the SIGHUP-from-a-terminal test: ${SCRIPT} (util-linux) not found to give the server a terminal`);

function authFile(tokens: Record<string, string>, rootGrants: Record<string, string[]>): string {
  const entries = Object.entries(tokens).map(([token, subject]) => [token, { realm: 'local', subject }]);
  return JSON.stringify({ tokens: Object.fromEntries(entries), acls: { '/': rootGrants } });
}

async function settingsStatus(port: number, token?: string): Promise<number> {
  const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
  return (await fetch(`http://127.0.0.1:${port}/settings`, { headers })).status;
}

async function hangUp(server: ServeRun, lines: number, pattern: RegExp): Promise<void> {
  server.child.kill('SIGHUP');
  await expect.poll(() => server.output().split('\n').filter((line) => pattern.test(line)).length, { timeout: 10_000 }).toBe(lines);
}

describe('SIGHUP to a server started without a terminal', () => {
  it('reads the auth file again: new tokens and grants apply, removed ones no longer do, and an unusable file changes nothing', async () => {
    const { dir, cleanup } = await tempDir();
    const auth = path.join(dir, 'auth.json');
    await writeIndex(`${dir}/index`, [article('a1', ['place cells fire in one place'])]);
    await writeFile(auth, authFile({ 'alice-token-one': 'alice', 'bob-token-one': 'bob' }, { 'local/alice': ['*'], 'local/bob': ['resources/read'] }));
    const port = await freePort();
    const server = spawnServe(['--data', dir, '--port', String(port), '--search-threads', '0', '--auth-file', auth]);
    try {
      expect(await listening(server)).toBe(true);
      expect([await settingsStatus(port, 'bob-token-one'), await settingsStatus(port, 'alice-token-one'), await settingsStatus(port)]).toEqual([200, 200, 403]);

      await writeFile(
        auth,
        authFile({ 'alice-token-two': 'alice', 'carol-token-one': 'carol' }, { 'local/alice': ['*'], 'local/carol': ['resources/read'], anonymous: ['resources/read'] }),
      );
      await hangUp(server, 1, /auth file .* read again: 2 token\(s\), ACLs on 1 path\(s\)/);
      expect(await settingsStatus(port, 'bob-token-one')).toBe(401);
      expect(await settingsStatus(port, 'alice-token-one')).toBe(401);
      expect([await settingsStatus(port, 'alice-token-two'), await settingsStatus(port, 'carol-token-one'), await settingsStatus(port)]).toEqual([200, 200, 200]);

      // Half-written, as an editor may leave it for a moment: refused whole, what was in force stays.
      await writeFile(auth, '{"tokens": {');
      await hangUp(server, 1, /auth file not read again: the tokens and ACLs in force are kept/);
      expect(server.output()).toMatch(/"reason":"auth file .*auth\.json \(--auth-file \/ AUTH_FILE\) is not valid JSON/);
      expect([await settingsStatus(port, 'alice-token-two'), await settingsStatus(port, 'carol-token-one'), await settingsStatus(port)]).toEqual([200, 200, 200]);

      expect(server.child.exitCode).toBeNull();
      server.child.kill('SIGTERM');
      expect(await server.exited).toEqual({ code: 0, signal: null });
    } finally {
      server.child.kill('SIGKILL');
      await cleanup();
    }
  }, 90_000);

  it('without an auth file, says there is none to read and keeps serving', async () => {
    const { dir, cleanup } = await tempDir();
    await writeIndex(`${dir}/index`, [article('a1', ['place cells fire in one place'])]);
    const port = await freePort();
    const server = spawnServe(['--data', dir, '--port', String(port), '--search-threads', '0']);
    try {
      expect(await listening(server)).toBe(true);
      await hangUp(server, 1, /no auth file to read again: the server was started without --auth-file/);
      expect(await settingsStatus(port)).toBe(200);
      expect(server.output()).not.toContain('shutting down');
    } finally {
      server.child.kill('SIGKILL');
      await cleanup();
    }
  }, 90_000);
});

describe('SIGHUP to a server started in a terminal', () => {
  it.skipIf(!existsSync(SCRIPT))('drains and exits 0 as SIGTERM does: the terminal closed', async () => {
    const { dir, cleanup } = await tempDir();
    await writeIndex(`${dir}/index`, [article('a1', ['place cells fire in one place'])]);
    const port = await freePort();
    // script(1) runs the server on a terminal of its own; its exit code is the server's (-e).
    const command = [process.execPath, COMPILED_MAIN, 'serve', '--data', dir, '--port', String(port), '--search-threads', '0'].join(' ');
    const terminal = spawn(SCRIPT, ['-qfec', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    terminal.stdout.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => terminal.on('exit', (code) => resolve(code)));
    try {
      await expect.poll(() => output, { timeout: 60_000 }).toContain('Server listening');
      const pid = Number(/"pid":(\d+)/.exec(output)![1]);
      process.kill(pid, 'SIGHUP');
      expect(await exited).toBe(0);
      expect(output).toMatch(/"signal":"SIGHUP".*shutting down: draining in-flight requests/);
      expect(output).not.toContain('reading the auth file again');
    } finally {
      terminal.kill('SIGKILL');
      await cleanup();
    }
  }, 90_000);
});
