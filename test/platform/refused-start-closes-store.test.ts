/**
 * A start refused after the platform store was opened (here: a literature label naming a user's project)
 * closes the store again, so a caller that goes on (a test run, an embedding) keeps no open database.
 */
import { expect, test, vi } from 'vitest';
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
