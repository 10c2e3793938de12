/**
 * One server per --data with the embedded platform store: a second one is refused at start
 * (two would each queue their writes alone and hold their own copy of the ACLs), and the lock
 * goes with its process, however it ends.
 */
import { describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DataDirectoryInUseError, lockDataDirectory } from '../../src/data-lock.js';
import { article, tempDir, writeIndex } from '../search/helpers.js';
import { freePort, killChild } from '../reliability/server-process.js';
import { COMPILED_MAIN } from '../compiled-server.js';

describe('the data directory lock', () => {
  it('is held once per directory, whatever path names it, until released', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const data = path.join(dir, 'data');
      const release = await lockDataDirectory(data);
      symlinkSync(data, path.join(dir, 'link'));
      await expect(lockDataDirectory(path.join(dir, 'link'))).rejects.toThrow(DataDirectoryInUseError);
      const other = await lockDataDirectory(path.join(dir, 'other'));
      await release();
      await (await lockDataDirectory(data))();
      await other();
    } finally {
      await cleanup();
    }
  });

  it('names --data when the directory cannot be made or is a file', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      writeFileSync(path.join(dir, 'file'), '');
      for (const data of [path.join(dir, 'file'), path.join(dir, 'file', 'data'), '/proc/self/litserve-data']) {
        await expect(lockDataDirectory(data)).rejects.toThrow(`cannot use the data directory ${data} (--data / DATA_DIR): `);
      }
    } finally {
      await cleanup();
    }
  });

  it('refuses a second server on the same --data (exit 1, naming the setting), and is freed when the first is killed', async () => {
    const { dir, cleanup } = await tempDir();
    const index = path.join(dir, 'index');
    await writeIndex(index, [article('a1', ['place cells fire in one place'])]);
    const serve = async (...extra: string[]) => [COMPILED_MAIN, 'serve', '--index', index, '--data', path.join(dir, 'data'), '--port', String(await freePort()), '--search-threads', '0', ...extra];
    const first = spawn(process.execPath, await serve(), { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    first.stdout.on('data', (chunk) => (output += chunk));
    first.stderr.on('data', (chunk) => (output += chunk));
    try {
      const deadline = Date.now() + 60_000;
      while (!output.includes('Server listening') && Date.now() < deadline && first.exitCode === null) await new Promise((r) => setTimeout(r, 100));
      expect(output).toContain('Server listening');

      const second = spawnSync(process.execPath, await serve(), { encoding: 'utf8', timeout: 60_000 });
      expect(second.status).toBe(1);
      expect(second.stderr).toContain(`error: another litserve is serving the data directory ${path.join(dir, 'data')} (--data / DATA_DIR)`);

      await killChild(first);
      const third = spawnSync(process.execPath, await serve('--host', '256.0.0.1'), { encoding: 'utf8', timeout: 60_000 });
      // Past the lock: it stops only at listening on an address that cannot be.
      expect(third.stderr).toContain('cannot listen on 256.0.0.1');
    } finally {
      await killChild(first);
      await cleanup();
    }
  }, 120_000);
});
