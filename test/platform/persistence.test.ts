import { rm } from 'node:fs/promises';
import { expect, test } from 'vitest';
import { TOKENS, bearer, createProject, multipart, startServer } from './helpers.js';

test('organizations, projects, ACLs, resources, tags and files survive a restart on the same data dir', async () => {
  const first = await startServer();
  const alice = bearer(TOKENS.alice);
  await createProject(first.app, 'org', 'proj');
  await first.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/r', headers: alice, payload: { name: 'one' } });
  await first.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/r?rev=1', headers: alice, payload: { name: 'two' } });
  await first.app.inject({ method: 'POST', url: '/v1/resources/org/proj/_/r/tags?rev=2', headers: alice, payload: { tag: 'old', rev: 1 } });
  await first.app.inject({
    method: 'PATCH',
    url: '/v1/acls/org/proj?rev=1',
    headers: alice,
    payload: { '@type': 'Append', acl: [{ identity: 'local/bob', permissions: ['files/write'] }] },
  });
  const body = await multipart('kept.txt', 'kept bytes', 'text/plain');
  await first.app.inject({ method: 'PUT', url: '/v1/files/org/proj/f', headers: { ...bearer(TOKENS.bob), ...body.headers }, payload: body.payload });
  await first.stop();

  const second = await startServer({ dataDir: first.dataDir });
  try {
    expect((await second.app.inject({ method: 'GET', url: '/v1/projects/org/proj' })).json()._rev).toBe(1);
    expect((await second.app.inject({ method: 'GET', url: '/v1/resources/org/proj/_/r' })).json()).toMatchObject({ name: 'two', _rev: 3 });
    expect((await second.app.inject({ method: 'GET', url: '/v1/resources/org/proj/_/r?tag=old' })).json().name).toBe('one');
    expect((await second.app.inject({ method: 'GET', url: '/v1/files/org/proj/f' })).body).toBe('kept bytes');
    // bob's stored grant is still in force.
    const upload = await multipart('more.txt', 'more', 'text/plain');
    const again = await second.app.inject({ method: 'POST', url: '/v1/files/org/proj', headers: { ...bearer(TOKENS.bob), ...upload.headers }, payload: upload.payload });
    expect(again.statusCode).toBe(201);
  } finally {
    await second.stop();
    await rm(first.dataDir, { recursive: true, force: true });
  }
});
