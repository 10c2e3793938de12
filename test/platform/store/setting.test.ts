/** --platform-store / --blob-dir: what the settings accept and refuse. */
import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../../src/config.js';
import { tempDir } from '../../search/helpers.js';
import { runCommand } from '../../compiled-server.js';

describe('--platform-store and --blob-dir', () => {
  it('default to the embedded store and the blob directory under --data', () => {
    expect(loadConfig([], {})).toMatchObject({ platformStore: 'lmdb', blobDir: null });
  });

  it('accept PostgreSQL URLs, the unix-socket form included, from flags or the environment', () => {
    expect(loadConfig(['--platform-store', 'postgresql://litserve@db.internal:5432/litserve'], {}).platformStore).toBe('postgresql://litserve@db.internal:5432/litserve');
    const socket = 'postgresql:///litserve?host=/var/run/postgresql';
    expect(loadConfig([], { PLATFORM_STORE: socket, BLOB_DIR: '/mnt/shared/files' })).toMatchObject({ platformStore: socket, blobDir: '/mnt/shared/files' });
  });

  it('refuse anything else with a message naming the setting', () => {
    expect(() => loadConfig(['--platform-store', 'sqlite'], {})).toThrow(ConfigError);
    expect(() => loadConfig(['--platform-store', 'mysql://db/x'], {})).toThrow(/--platform-store.*'lmdb' or a postgresql:\/\/ URL/);
  });

  it('refuse a PostgreSQL URL its client cannot read when serve starts, without writing its password (it was met only after the demo build, as "Invalid URL")', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      for (const url of ['postgresql://litserve:secret@db.internal:99999/litserve', 'postgresql://litserve:secret@[::1/litserve']) {
        const result = runCommand(['serve', '--data', dir, '--platform-store', url, '--port', '0', '--search-threads', '0']);
        expect(result.code).toBe(2);
        expect(result.stderr).toMatch(/^error: --platform-store \/ PLATFORM_STORE is not a URL PostgreSQL's client can read \(Invalid URL\): check its host, port and %-escapes/);
        expect(result.stderr).not.toContain('secret');
        expect(existsSync(path.join(dir, 'index'))).toBe(false);
      }
      expect(() => loadConfig(['--platform-store', 'postgres://u:secret@db/x y'], {})).toThrow(ConfigError);
      expect(() => loadConfig(['--platform-store', 'postgres://u:secret@db/x y'], {})).not.toThrow(/secret/);
    } finally {
      await cleanup();
    }
  }, 60_000);
});
