/**
 * The prefix sample of docs/DEPLOY.md, tested: Debian's nginx runs docs/deploy/nginx-prefix.conf (ports
 * rewritten) in front of a server whose --public-url ends in /lit. The ids of /v1 hold percent-encoded
 * slashes, which a proxy rewriting the URI decodes and merges: every `_self` link and archive `Location`
 * then answered 404 behind the obvious configuration (the operator round's finding). Through the sample,
 * they resolve, and a browser at /lit is sent to the page.
 */
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { FIXTURE_ARTICLES } from '../http/app-fixture.js';
import { admin, adminJson, freePort, kill, startServerProcess, writeAdminAuthFile } from './server-process.js';
import { tempDir, writeIndex } from '../search/helpers.js';
import { nginxMissing, startPrefixProxy } from './nginx.js';

const missing = nginxMissing();
if (missing) console.warn(`SKIPPED: the nginx prefix-configuration test (${missing}).`);

describe.skipIf(missing !== null)('the nginx prefix sample configuration', () => {
  test('keeps the encoded slashes of ids: _self links and archive redirects resolve under the prefix', async () => {
    const { dir, cleanup } = await tempDir('litserve-nginx-prefix-');
    const indexDir = path.join(dir, 'index');
    await writeIndex(indexDir, FIXTURE_ARTICLES);
    const proxyPort = await freePort();
    const site = `http://127.0.0.1:${proxyPort}/lit`;
    const server = await startServerProcess({
      dataDir: path.join(dir, 'data'),
      indexDir,
      authFile: await writeAdminAuthFile(dir),
      extraFlags: ['--public-url', site, '--trust-proxy', 'loopback'],
    });
    let nginx: Awaited<ReturnType<typeof startPrefixProxy>> | undefined;
    try {
      nginx = await startPrefixProxy(path.join(dir, 'nginx'), proxyPort, server.port);
      for (const url of ['/v1/orgs/lab', '/v1/projects/lab/a']) expect((await fetch(`${site}${url}`, { method: 'PUT', headers: adminJson, body: '{}' })).status).toBe(201);
      const created = await fetch(`${site}/v1/resources/lab/a/_/r1`, { method: 'PUT', headers: adminJson, body: JSON.stringify({ name: 'r1' }) });
      const self = ((await created.json()) as { _self: string })._self;
      expect(self.startsWith(`${site}/v1/resources/lab/a/_/http%3A%2F%2F127.0.0.1`)).toBe(true);
      const read = await fetch(self, { headers: admin });
      expect([read.status, ((await read.json()) as { name: string }).name]).toEqual([200, 'r1']);

      const archive = await fetch(`${site}/v1/archives/lab/a`, {
        method: 'POST',
        headers: adminJson,
        body: JSON.stringify({ resources: [{ '@type': 'Resource', resourceId: 'r1' }] }),
        redirect: 'manual',
      });
      expect(archive.status).toBe(303);
      const location = archive.headers.get('location')!;
      expect(location.startsWith(`${site}/v1/archives/lab/a/`)).toBe(true);
      const zip = await fetch(location, { headers: { ...admin, accept: 'application/zip' } });
      expect([zip.status, Buffer.from(await zip.arrayBuffer()).subarray(0, 2).toString('latin1')]).toEqual([200, 'PK']);

      const page = await fetch(`http://127.0.0.1:${proxyPort}/lit`, { headers: { accept: 'text/html' }, redirect: 'manual' });
      expect([page.status, page.headers.get('location')]).toEqual([302, '/lit/ui/']);
    } finally {
      await nginx?.stop();
      await kill(server);
      await cleanup();
    }
  });
});
