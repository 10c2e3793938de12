/**
 * Without an auth file stored grants are not in force (anonymous may only read), so the ACL listing
 * must not show them either: an operator reading it would believe they apply.
 */
import { describe, expect, test } from 'vitest';
import { TOKENS, bearer, createProject, startServer } from './helpers.js';

describe('ACL listing without an auth file', () => {
  test('grants stored while an auth file was in use are neither applied nor listed', async () => {
    const first = await startServer();
    const { dataDir } = first;
    await createProject(first.app, 'org', 'proj');
    const granted = await first.app.inject({
      method: 'PATCH',
      url: '/v1/acls/org/proj?rev=1',
      headers: bearer(TOKENS.alice),
      payload: { '@type': 'Append', acl: [{ identity: { '@type': 'Anonymous' }, permissions: ['resources/write'] }] },
    });
    expect(granted.statusCode).toBe(200);
    const listedWithAuth = await first.app.inject({ method: 'GET', url: '/v1/acls/org/proj' });
    expect(listedWithAuth.json()._results).toEqual([expect.objectContaining({ _source: 'store', acl: [{ identity: { '@type': 'Anonymous' }, permissions: ['resources/write'] }] })]);
    await first.stop();

    const second = await startServer({ dataDir, auth: null });
    try {
      const write = await second.app.inject({ method: 'POST', url: '/v1/resources/org/proj', payload: { a: 1 } });
      expect(write.statusCode).toBe(403);
      const listed = await second.app.inject({ method: 'GET', url: '/v1/acls/org/proj?ancestors=true' });
      expect(listed.statusCode).toBe(200);
      // Only the built-in anonymous read grant on / is in force, and only it is listed.
      expect(listed.json()._results).toEqual([
        expect.objectContaining({ _path: '/', _source: 'auth-file', acl: [{ identity: { '@type': 'Anonymous' }, permissions: ['resources/read'] }] }),
      ]);
    } finally {
      await second.close();
    }
  });
});
