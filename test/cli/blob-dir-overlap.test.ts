/**
 * A --blob-dir that is, holds or lies inside the data directory's store or the served index is refused at start
 * (exit 2, before anything is written); one inside the data directory beside them is taken. The data directory
 * itself had been taken, its warning calling it "empty" (a durability round's finding).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { refuseOverlappingBlobDir } from '../../src/blob-dir-overlap.js';
import { tempDir } from '../search/helpers.js';
import { COMPILED_MAIN } from '../compiled-server.js';

function refusal(argv: string[]): string | null {
  try {
    refuseOverlappingBlobDir(loadConfig(argv, {}));
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

describe('--blob-dir beside the data directory', () => {
  it('refuses the data directory, a folder holding it, the store and the index, and takes a folder of its own', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const data = path.join(dir, 'data');
      mkdirSync(path.join(data, 'platform', 'store'), { recursive: true });
      const own = "(the default is platform/files under the data directory)";
      expect(refusal(['--data', data, '--blob-dir', data])).toBe(`--blob-dir ${data} is the data directory (--data ${data}): file contents need a folder of their own ${own}`);
      expect(refusal(['--data', data, '--blob-dir', dir])).toBe(`--blob-dir ${dir} holds the data directory (--data ${data}): file contents need a folder of their own ${own}`);
      expect(refusal(['--data', data, '--blob-dir', path.join(data, 'platform')])).toContain("holds the platform store's folder under the data directory");
      expect(refusal(['--data', data, '--blob-dir', path.join(data, 'platform', 'store', 'files')])).toContain("is inside the platform store's folder under the data directory");
      expect(refusal(['--data', data, '--blob-dir', path.join(data, 'index')])).toContain('is the default index under the data directory');
      const index = path.join(dir, 'served-index');
      expect(refusal(['--data', data, '--index', index, '--blob-dir', path.join(index, 'files')])).toContain(`is inside the index (--index ${index})`);
      // Through a link: the real folders are compared.
      symlinkSync(data, path.join(dir, 'link'));
      expect(refusal(['--data', data, '--blob-dir', path.join(dir, 'link')])).toContain('is the data directory');
      // Named by the environment, the refusal says so.
      expect(() => refuseOverlappingBlobDir(loadConfig(['--data', data], { BLOB_DIR: data }))).toThrow(`BLOB_DIR=${data} (from the environment) is the data directory`);

      expect(refusal(['--data', data, '--blob-dir', path.join(data, 'platform', 'files')])).toBeNull();
      // With a PostgreSQL store the embedded store's folder holds no store.
      expect(refusal(['--data', data, '--platform-store', 'postgres://db.invalid/litserve', '--blob-dir', path.join(data, 'platform', 'store', 'files')])).toBeNull();
      expect(refusal(['--data', data, '--blob-dir', path.join(data, 'files')])).toBeNull();
      expect(refusal(['--data', data, '--blob-dir', path.join(dir, 'elsewhere')])).toBeNull();
      expect(refusal(['--data', data])).toBeNull();
    } finally {
      await cleanup();
    }
  });

  it('stops serve with exit 2 before anything is written into the data directory', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const data = path.join(dir, 'data');
      mkdirSync(data);
      const result = spawnSync(process.execPath, [COMPILED_MAIN, 'serve', '--data', data, '--blob-dir', data, '--port', '0'], { encoding: 'utf8', timeout: 60_000 });
      expect(result.status).toBe(2);
      expect(result.stderr).toContain(`error: --blob-dir ${data} is the data directory (--data ${data})`);
      expect(readdirSync(data)).toEqual([]);
    } finally {
      await cleanup();
    }
  }, 90_000);
});
