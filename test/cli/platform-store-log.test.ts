/** The start-up log names the platform store in use: the embedded LMDB store and its directory. */
import { describe, expect, it } from 'vitest';
import path from 'node:path';
import { tempDir } from '../search/helpers.js';
import { kill, startServerProcess, writeAdminAuthFile } from '../reliability/server-process.js';

describe('the start-up log', () => {
  it('names the embedded store and where it is', async () => {
    const { dir, cleanup } = await tempDir();
    const data = path.join(dir, 'data');
    const server = await startServerProcess({ dataDir: data, authFile: await writeAdminAuthFile(dir), extraFlags: ['--log-level', 'info'] });
    try {
      const lines = server.output().split('\n').filter((line) => line.includes('platform store'));
      expect(lines.map((line) => JSON.parse(line).msg)).toEqual([`platform store: LMDB at ${path.join(data, 'platform', 'store')}`]);
    } finally {
      await kill(server);
      await cleanup();
    }
  });
});
