/**
 * The sample load-balancer configuration of docs/DEPLOY.md, tested: Debian's
 * nginx runs docs/deploy/nginx-replicas.conf (ports rewritten) in front of two
 * server processes on one PostgreSQL store and one blob directory. Writes and
 * reads through it land on either replica; a file goes up and comes back
 * byte-identical; with one replica killed the balancer keeps answering.
 */
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { FIXTURE_ARTICLES } from '../http/app-fixture.js';
import { schemaUrl } from '../postgres/cluster.js';
import { admin, adminJson, freePort, kill, startServerProcess, writeAdminAuthFile } from '../reliability/server-process.js';
import { tempDir, writeIndex } from '../search/helpers.js';
import { testPostgresUrl } from '../postgres/project.js';
import { nginxMissing, startBalancer } from '../reliability/nginx.js';

const missing = nginxMissing();
if (missing) console.warn(`SKIPPED: the nginx sample-configuration test (${missing}).`);

describe.skipIf(missing !== null)('the nginx sample configuration in front of two replicas', () => {
  test('balances writes and reads, streams files, and survives the loss of a replica', async () => {
    const { dir, cleanup } = await tempDir('litserve-nginx-');
    const indexDir = path.join(dir, 'index');
    await writeIndex(indexDir, FIXTURE_ARTICLES);
    const authFile = await writeAdminAuthFile(dir);
    const flags = ['--platform-store', await schemaUrl(testPostgresUrl()!, `nginx-${dir}`), '--blob-dir', path.join(dir, 'blobs')];
    const balancerPort = await freePort();
    const publicUrl = ['--public-url', `http://127.0.0.1:${balancerPort}`];
    const replicas = [
      await startServerProcess({ dataDir: path.join(dir, 'a'), indexDir, authFile, extraFlags: [...flags, ...publicUrl] }),
      await startServerProcess({ dataDir: path.join(dir, 'b'), indexDir, authFile, extraFlags: [...flags, ...publicUrl] }),
    ];
    const nginx = await startBalancer(path.join(dir, 'nginx'), balancerPort, [replicas[0]!.port, replicas[1]!.port]);
    const balancer = nginx.base;
    try {
      for (const url of ['/v1/orgs/lab', '/v1/projects/lab/a']) expect((await fetch(`${balancer}${url}`, { method: 'PUT', headers: adminJson, body: '{}' })).status).toBe(201);
      for (let i = 0; i < 10; i++) {
        const created = await fetch(`${balancer}/v1/resources/lab/a/_/r${i}`, { method: 'PUT', headers: adminJson, body: JSON.stringify({ name: `r${i}` }) });
        expect(created.status).toBe(201);
        const read = await fetch(`${balancer}/v1/resources/lab/a/_/r${i}`, { headers: admin });
        expect(((await read.json()) as { name: string }).name).toBe(`r${i}`);
      }
      const content = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7) % 251));
      const form = new FormData();
      form.append('file', new Blob([content]), 'big.bin');
      expect((await fetch(`${balancer}/v1/files/lab/a/big`, { method: 'PUT', headers: admin, body: form })).status).toBe(201);
      for (let i = 0; i < 4; i++) {
        const downloaded = Buffer.from(await (await fetch(`${balancer}/v1/files/lab/a/big`, { headers: { ...admin, accept: '*/*' } })).arrayBuffer());
        expect(downloaded.equals(content)).toBe(true);
      }
      await kill(replicas[0]!);
      for (let i = 0; i < 6; i++) expect((await fetch(`${balancer}/v1/resources/lab/a/_/r${i}`, { headers: admin })).status).toBe(200);
      // A refused connection means the request never reached the dead replica: nginx passes even a POST on.
      for (let i = 0; i < 4; i++) expect((await fetch(`${balancer}/v1/resources/lab/a/_`, { method: 'POST', headers: adminJson, body: '{}' })).status).toBe(201);
    } finally {
      await nginx.stop();
      for (const replica of replicas) if (replica.child.exitCode === null && replica.child.signalCode === null) await kill(replica);
      await cleanup();
    }
  });
});
