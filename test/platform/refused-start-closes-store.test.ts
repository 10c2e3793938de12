/**
 * A start refused after the platform store was opened (a literature label naming a user's project, the first
 * collection of file contents failing, the archives failing to open) closes the store again, so a caller that goes on (a test run, an embedding) keeps no open database.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test, vi } from 'vitest';
import { BlobStore } from '../../src/platform/blobs.js';
import { ArchiveService } from '../../src/archive/archives.js';
import { openServices } from '../../src/services.js';
import { openPlatform } from '../../src/platform/index.js';
import { schemaUrl } from '../postgres/cluster.js';
import { testPostgresUrl } from '../postgres/project.js';
import { MemoryLiterature, article, createProject, startServer } from './helpers.js';
import { defaultOf } from '../../src/config.js';

const stores = vi.hoisted(() => ({ opened: 0, closed: 0 }));
vi.mock('../../src/platform/store/open.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/platform/store/open.js')>();
  return {
    ...real,
    openPlatformStore: async (...args: Parameters<typeof real.openPlatformStore>) => {
      const store = await real.openPlatformStore(...args);
      stores.opened++;
      const close = store.close.bind(store);
      store.close = async () => {
        stores.closed++;
        await close();
      };
      return store;
    },
  };
});

test('the store opened for a start that is refused is closed again', async () => {
  const first = await startServer();
  await createProject(first.app, 'neuro', 'lab1');
  await first.stop();
  const cluster = testPostgresUrl();
  const before = { ...stores };
  await expect(
    openPlatform({
      dataDir: first.dataDir,
      ...(cluster && { platformStore: await schemaUrl(cluster, first.dataDir) }),
      authFile: null,
      literatureProject: 'neuro/lab1',
      literature: new MemoryLiterature([article('demo-000')]),
      maxFileBytes: defaultOf('maxUploadBytes'),
    }),
  ).rejects.toThrow(/names 'neuro\/lab1', a project users created/);
  expect(stores.opened - before.opened).toBe(1);
  expect(stores.closed - before.closed).toBe(1);
});

test('a start refused by the first collection of unreferenced file contents closes the store again', async () => {
  const failing = vi.spyOn(BlobStore.prototype, 'collectGarbage').mockRejectedValueOnce(new Error('the collection failed'));
  const dataDir = await mkdtemp(path.join(tmpdir(), 'platform-test-'));
  try {
    const cluster = testPostgresUrl();
    const before = { ...stores };
    await expect(
      openPlatform({
        dataDir,
        ...(cluster && { platformStore: await schemaUrl(cluster, dataDir) }),
        authFile: null,
        literatureProject: 'literature/articles',
        literature: new MemoryLiterature([article('demo-000')]),
        maxFileBytes: defaultOf('maxUploadBytes'),
      }),
    ).rejects.toThrow('the collection failed');
    expect(stores.opened - before.opened).toBe(1);
    expect(stores.closed - before.closed).toBe(1);
  } finally {
    failing.mockRestore();
    await rm(dataDir, { recursive: true, force: true });
  }
});

test('services whose archives cannot open close the platform, its store included', async () => {
  const failing = vi.spyOn(ArchiveService, 'open').mockRejectedValueOnce(new Error('the archives could not open'));
  const dataDir = await mkdtemp(path.join(tmpdir(), 'platform-test-'));
  try {
    const cluster = testPostgresUrl();
    const before = { ...stores };
    await expect(
      openServices({
        dataDir,
        ...(cluster && { platformStore: await schemaUrl(cluster, dataDir) }),
        authFile: null,
        archiveTtlMs: 3_600_000,
        literatureProject: 'literature/articles',
        literature: new MemoryLiterature([article('demo-000')]),
      }),
    ).rejects.toThrow('the archives could not open');
    expect(stores.opened - before.opened).toBe(1);
    expect(stores.closed - before.closed).toBe(1);
  } finally {
    failing.mockRestore();
    await rm(dataDir, { recursive: true, force: true });
  }
});
