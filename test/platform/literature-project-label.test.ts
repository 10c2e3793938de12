/**
 * `--literature-project` naming a project users created: the server refuses to start rather than serve
 * the literature in its place (hiding its resources, handing its owner's grants to the literature). The
 * usual restarts, an earlier literature label and a fresh one, keep working. Runs on both store backends.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { openServices } from '../../src/services.js';
import { schemaUrl } from '../postgres/cluster.js';
import { testPostgresUrl } from '../postgres/project.js';
import { MemoryLiterature, TOKENS, article, bearer, createProject, startServer } from './helpers.js';

/** Opens the services on `dataDir` (the same store as startServer's) with `literatureProject`, and closes them again; gives the literature project's base. */
async function startWithLiterature(dataDir: string, literatureProject: string, baseUri = 'http://first.test'): Promise<string> {
  const cluster = testPostgresUrl();
  const services = await openServices({
    dataDir,
    ...(cluster && { platformStore: await schemaUrl(cluster, dataDir) }),
    authFile: null,
    archiveTtlMs: 3_600_000,
    literatureProject,
    literature: new MemoryLiterature([article('demo-000')]),
    baseUri,
  });
  try {
    return (await services.platform.projects.get(services.platform.projects.literatureRef))!.base;
  } finally {
    await services.close();
  }
}

test('a user project holding a resource is not shadowed: the start is refused and the project is kept as it was', async () => {
  const first = await startServer();
  await createProject(first.app, 'neuro', 'lab1');
  const put = await first.app.inject({ method: 'PUT', url: '/v1/resources/neuro/lab1/_/mine', headers: bearer(TOKENS.alice), payload: { name: 'mine' } });
  expect(put.statusCode).toBe(201);
  await first.stop();
  try {
    await expect(startWithLiterature(first.dataDir, 'neuro/lab1')).rejects.toThrow(
      /^--literature-project \/ LITERATURE_PROJECT names 'neuro\/lab1', a project users created \(rev 1\).*Choose another label for --literature-project, or delete that project first/,
    );
    const again = await startServer({ dataDir: first.dataDir });
    try {
      expect((await again.app.inject({ method: 'GET', url: '/v1/resources/neuro/lab1/_/mine' })).json()).toMatchObject({ name: 'mine', _rev: 1 });
      const update = await again.app.inject({ method: 'PUT', url: '/v1/resources/neuro/lab1/_/mine?rev=1', headers: bearer(TOKENS.alice), payload: { name: 'still mine' } });
      expect(update.statusCode).toBe(200);
      await again.app.inject({ method: 'DELETE', url: '/v1/projects/neuro/lab1?rev=1&prune=true', headers: bearer(TOKENS.alice) });
    } finally {
      await again.stop();
    }
    // The refused start fixed no base for the label: the first start that takes it does, under its own URL.
    expect(await startWithLiterature(first.dataDir, 'neuro/lab1', 'http://second.test')).toBe('http://second.test/v1/resources/neuro/lab1/_/');
  } finally {
    await rm(first.dataDir, { recursive: true, force: true });
  }
});

test('an empty user project counts too, a deprecated one as well; once marked for deletion its label can be taken', async () => {
  const first = await startServer();
  await createProject(first.app, 'neuro', 'empty');
  await createProject(first.app, 'neuro', 'old');
  const deprecated = await first.app.inject({ method: 'DELETE', url: '/v1/projects/neuro/old?rev=1', headers: bearer(TOKENS.alice) });
  expect(deprecated.statusCode).toBe(200);
  await createProject(first.app, 'neuro', 'gone');
  const deleted = await first.app.inject({ method: 'DELETE', url: '/v1/projects/neuro/gone?rev=1&prune=true', headers: bearer(TOKENS.alice) });
  expect(deleted.json()._markedForDeletion).toBe(true);
  await first.stop();
  try {
    await expect(startWithLiterature(first.dataDir, 'neuro/empty')).rejects.toThrow(/names 'neuro\/empty', a project users created/);
    await expect(startWithLiterature(first.dataDir, 'neuro/old')).rejects.toThrow(/names 'neuro\/old', a project users created \(rev 2\)/);
    await startWithLiterature(first.dataDir, 'neuro/gone');
  } finally {
    await rm(first.dataDir, { recursive: true, force: true });
  }
});

test('restarting with the literature label of an earlier start, or with a fresh one, still starts', async () => {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'platform-test-'));
  try {
    expect(await startWithLiterature(dataDir, 'lit/papers')).toBe('http://first.test/v1/resources/lit/papers/_/');
    // The store now holds the literature project's fixed base and vocab: the same label again is the usual restart.
    expect(await startWithLiterature(dataDir, 'lit/papers', 'http://second.test')).toBe('http://first.test/v1/resources/lit/papers/_/');
    expect(await startWithLiterature(dataDir, 'lit/other', 'http://second.test')).toBe('http://second.test/v1/resources/lit/other/_/');
    expect(await startWithLiterature(dataDir, 'lit/papers', 'http://second.test')).toBe('http://first.test/v1/resources/lit/papers/_/');
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
