import { rm } from 'node:fs/promises';
import { expect, test } from 'vitest';
import { TOKENS, bearer, createProject, multipart, startServer } from '../platform/helpers.js';
import { unzip } from './unzip.js';

test('archives survive a restart; a FileSelf under another base URL is then 400 InvalidFileSelf', async () => {
  let now = Date.parse('2025-06-01T00:00:00Z');
  const clock = () => now;
  const alice = bearer(TOKENS.alice);
  const first = await startServer({ clock, baseUri: 'http://old.test' });
  await createProject(first.app, 'org', 'proj');
  const body = await multipart('data.csv', 'a,b\n1,2\n', 'text/csv');
  await first.app.inject({ method: 'PUT', url: '/v1/files/org/proj/data', headers: { ...alice, ...body.headers }, payload: body.payload });
  const withFile = await first.app.inject({
    method: 'PUT',
    url: '/v1/archives/org/proj/kept',
    headers: { ...alice, accept: 'application/json' },
    payload: { resources: [{ '@type': 'File', resourceId: 'data' }] },
  });
  expect(withFile.statusCode).toBe(201);
  const withSelf = await first.app.inject({
    method: 'PUT',
    url: '/v1/archives/org/proj/by-self',
    headers: { ...alice, accept: 'application/json' },
    payload: { resources: [{ '@type': 'FileSelf', value: 'http://old.test/v1/files/org/proj/data', path: '/data.csv' }] },
  });
  expect(withSelf.statusCode).toBe(201);
  await first.stop();

  now += 60_000;
  const second = await startServer({ dataDir: first.dataDir, clock, baseUri: 'http://new.test' });
  try {
    const metadata = await second.app.inject({ method: 'GET', url: '/v1/archives/org/proj/kept', headers: { ...alice, accept: 'application/json' } });
    expect(metadata.json()._expiresInSeconds).toBe(5 * 3600 - 60);
    const zip = await second.app.inject({ method: 'GET', url: '/v1/archives/org/proj/kept', headers: alice });
    expect((await unzip(zip.rawPayload)).entries.get('org/proj/file/data.csv')!.toString()).toBe('a,b\n1,2\n');
    const moved = await second.app.inject({ method: 'GET', url: '/v1/archives/org/proj/by-self', headers: alice });
    expect(moved.statusCode).toBe(400);
    expect(moved.json()).toMatchObject({ '@type': 'InvalidFileSelf', reason: "'http://old.test/v1/files/org/proj/data' has been resolved as an external link." });
  } finally {
    await second.stop();
    await rm(first.dataDir, { recursive: true, force: true });
  }
});

test('archives of literature articles survive a restart under another base URL (the literature project keeps its first base)', async () => {
  const alice = bearer(TOKENS.alice);
  const first = await startServer({ baseUri: 'http://old.test' });
  await createProject(first.app, 'org', 'proj');
  const created = await first.app.inject({
    method: 'PUT',
    url: '/v1/archives/org/proj/reading',
    headers: { ...alice, accept: 'application/json' },
    payload: { resources: [{ '@type': 'Resource', project: 'literature/articles', resourceId: 'demo-000', path: '/demo-000.json' }] },
  });
  expect(created.statusCode).toBe(201);
  await first.stop();

  const second = await startServer({ dataDir: first.dataDir, baseUri: 'http://new.test' });
  try {
    const zip = await second.app.inject({ method: 'GET', url: '/v1/archives/org/proj/reading', headers: alice });
    expect(zip.statusCode, zip.body.slice(0, 300)).toBe(200);
    const article = JSON.parse((await unzip(zip.rawPayload)).entries.get('demo-000.json')!.toString());
    expect(article['@id']).toBe('http://old.test/v1/resources/literature/articles/_/demo-000');
  } finally {
    await second.stop();
    await rm(first.dataDir, { recursive: true, force: true });
  }
});
