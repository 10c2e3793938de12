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

/**
 * Runs `start` on `dataDir` (a scratch one unless given), on the store of the run's project, expecting it refused
 * with `refusal`, and checks that it closed the one store it opened.
 */
async function expectRefusedStartClosesStore(
  start: (place: { dataDir: string; platformStore?: string }) => Promise<unknown>,
  refusal: string | RegExp,
  given?: string,
): Promise<void> {
  const dataDir = given ?? (await mkdtemp(path.join(tmpdir(), 'platform-test-')));
  try {
    const cluster = testPostgresUrl();
    const place = { dataDir, ...(cluster && { platformStore: await schemaUrl(cluster, dataDir) }) };
    const before = { ...stores };
    await expect(start(place)).rejects.toThrow(refusal);
    expect(stores.opened - before.opened).toBe(1);
    expect(stores.closed - before.closed).toBe(1);
  } finally {
    if (given === undefined) await rm(dataDir, { recursive: true, force: true });
  }
}

test('the store opened for a start that is refused is closed again', async () => {
  const first = await startServer();
  await createProject(first.app, 'neuro', 'lab1');
  await first.stop();
  await expectRefusedStartClosesStore(
    (place) =>
      openPlatform({
        ...place,
        authFile: null,
        literatureProject: 'neuro/lab1',
        literature: new MemoryLiterature([article('demo-000')]),
        maxFileBytes: defaultOf('maxUploadBytes'),
      }),
    /names 'neuro\/lab1', a project users created/,
    first.dataDir,
  );
});

test('a start refused by the first collection of unreferenced file contents closes the store again', async () => {
  const failing = vi.spyOn(BlobStore.prototype, 'collectGarbage').mockRejectedValueOnce(new Error('the collection failed'));
  try {
    await expectRefusedStartClosesStore(
      (place) =>
        openPlatform({
          ...place,
          authFile: null,
          literatureProject: 'literature/articles',
          literature: new MemoryLiterature([article('demo-000')]),
          maxFileBytes: defaultOf('maxUploadBytes'),
        }),
      'the collection failed',
    );
  } finally {
    failing.mockRestore();
  }
});

test('services whose archives cannot open close the platform, its store included', async () => {
  const failing = vi.spyOn(ArchiveService, 'open').mockRejectedValueOnce(new Error('the archives could not open'));
  try {
    await expectRefusedStartClosesStore(
      (place) =>
        openServices({
          ...place,
          authFile: null,
          archiveTtlMs: 3_600_000,
          literatureProject: 'literature/articles',
          literature: new MemoryLiterature([article('demo-000')]),
        }),
      'the archives could not open',
    );
  } finally {
    failing.mockRestore();
  }
});
