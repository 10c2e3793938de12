/** The start-up log names the platform store in use: a PostgreSQL database by its URL, never with its password. */
import { describe, expect, inject, it } from 'vitest';
import path from 'node:path';
import { tempDir } from '../search/helpers.js';
import { kill, startServerProcess, writeAdminAuthFile } from '../reliability/server-process.js';
import { schemaUrl } from '../postgres/cluster.js';

describe('the start-up log', () => {
  it('names the PostgreSQL store by its URL, its password masked', async () => {
    const { dir, cleanup } = await tempDir();
    // The cluster trusts local connections: the password is never asked for, only carried in the URL.
    const url = (await schemaUrl(inject('postgresUrl'), 'platform-store-log')).replace('postgresql://', 'postgresql://postgres:s3cret@');
    const server = await startServerProcess({
      dataDir: path.join(dir, 'data'),
      authFile: await writeAdminAuthFile(dir),
      extraFlags: ['--log-level', 'info', '--platform-store', url],
    });
    try {
      const lines = server.output().split('\n').filter((line) => line.includes('platform store: PostgreSQL at'));
      expect(lines.map((line) => JSON.parse(line).msg)).toEqual([`platform store: PostgreSQL at ${url.replace(':s3cret@', ':***@')}`]);
      expect(server.output()).not.toContain('s3cret');
    } finally {
      await kill(server);
      await cleanup();
    }
  });
});
