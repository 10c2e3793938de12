/**
 * `serve --port 0` listens on a port the system picks. Without --public-url, ids, `_self` links and
 * /settings name that port: they had named port 0 (`http://127.0.0.1:0/v1/...`), the public URL being
 * made from the setting before the server listened.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { article, tempDir, writeIndex } from '../search/helpers.js';
import { admin, adminJson, kill, spawnServerProcess, waitUntilServing, writeAdminAuthFile } from '../reliability/server-process.js';

describe('serve --port 0 without --public-url', () => {
  it('makes ids, _self links and /settings with the port it listens on', async () => {
    const { dir, cleanup } = await tempDir();
    const indexDir = path.join(dir, 'index');
    await writeIndex(indexDir, [article('a1', ['place cells fire in CA1'])]);
    // --public-url '' unsets the one the helper gives; the info log names the address listened on.
    const spawned = await spawnServerProcess({
      dataDir: path.join(dir, 'data'),
      indexDir,
      authFile: await writeAdminAuthFile(dir),
      extraFlags: ['--host', '127.0.0.1', '--port', '0', '--public-url', '', '--log-level', 'info'],
    });
    try {
      const deadline = Date.now() + 60_000;
      let listening: RegExpMatchArray | null = null;
      while (!(listening = spawned.output().match(/Server listening at http:\/\/127\.0\.0\.1:(\d+)/)) && Date.now() < deadline && spawned.child.exitCode === null) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(listening, spawned.output()).not.toBeNull();
      const port = Number(listening![1]);
      expect(port).toBeGreaterThan(0);
      const base = `http://127.0.0.1:${port}`;
      const server = await waitUntilServing({ ...spawned, port, base });

      const org = await fetch(`${server.base}/v1/orgs/lab`, { method: 'PUT', headers: adminJson, body: '{}' });
      expect(org.status).toBe(201);
      expect(((await org.json()) as { _self: string })._self).toBe(`${base}/v1/orgs/lab`);
      expect((await fetch(`${server.base}/v1/projects/lab/a`, { method: 'PUT', headers: adminJson, body: '{}' })).status).toBe(201);
      const resource = await fetch(`${server.base}/v1/resources/lab/a`, { method: 'POST', headers: adminJson, body: '{"name": "x"}' });
      expect(resource.status).toBe(201);
      const created = (await resource.json()) as { '@id': string; _self: string };
      expect(created['@id'].startsWith(`${base}/v1/resources/lab/a/_/`)).toBe(true);
      expect(created._self.startsWith(`${base}/v1/resources/lab/a/_/`)).toBe(true);

      const settings = (await (await fetch(`${server.base}/settings`, { headers: admin })).json()) as { port: number; publicUrl: string };
      expect(settings.port).toBe(port);
      expect(settings.publicUrl).toBe(base);
    } finally {
      await kill(spawned);
      await cleanup();
    }
  }, 90_000);
});
