/**
 * A data directory that served /v1 from its own LMDB store, started again on PostgreSQL: what the LMDB store
 * holds is not served, and the start had said nothing of it (an exploratory round's finding: every organization
 * made on the single machine was 404 after the switch).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { embeddedStoreDirectory } from '../../src/platform/index.js';
import { openPlatformStore } from '../../src/platform/store/open.js';
import { startServer, type TestServer } from '../platform/helpers.js';

const quiet = { info: () => undefined, warn: () => undefined };
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A server of this project (PostgreSQL) on `dataDir`, with the warn lines of its start. */
async function serveOn(dataDir: string): Promise<{ server: TestServer; warnings: string[] }> {
  const warnings: string[] = [];
  const server = await startServer({ dataDir, logger: { info: () => undefined, warn: (message) => void warnings.push(message), error: () => undefined } });
  cleanups.push(() => server.stop());
  return { server, warnings };
}

test('the start warns that the data directory holds an LMDB store it does not read', async () => {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'lmdb-left-behind-'));
  cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
  const lmdb = await openPlatformStore('lmdb', embeddedStoreDirectory(dataDir), quiet);
  await lmdb.write(() => lmdb.table('orgs').put('made-on-lmdb', { label: 'made-on-lmdb' }));
  await lmdb.close();

  const { warnings } = await serveOn(dataDir);
  expect(warnings).toContain(
    `the data directory holds an LMDB platform store (${embeddedStoreDirectory(dataDir)}) that this server does not read, as --platform-store is PostgreSQL: ` +
      'its organizations, projects, resources and files are not served from here (nothing copies them across; docs/DEPLOY.md)',
  );

  // A data directory that never had one: no such line.
  const fresh = await mkdtemp(path.join(tmpdir(), 'lmdb-left-behind-fresh-'));
  cleanups.push(() => rm(fresh, { recursive: true, force: true }));
  expect((await serveOn(fresh)).warnings.filter((line) => line.includes('LMDB platform store'))).toEqual([]);
});
