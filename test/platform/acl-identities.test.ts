/**
 * ACL identities are typed: a user can never be taken for a group, for every
 * user of a realm or for anonymous. Reserved user subjects are refused.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { open } from 'lmdb';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { AuthFileError, loadAuthFile } from '../../src/platform/auth-file.js';
import { principalKey, principalOfKey, type Principal } from '../../src/platform/identities.js';
import { TOKENS, type TestServer, bearer, createProject, startServer } from './helpers.js';
import { testPostgresUrl } from '../postgres/project.js';

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
  await createProject(server.app, 'org', 'proj');
});
afterAll(() => server.close());

const aclRev = async () => (await server.app.inject({ method: 'GET', url: '/v1/acls/org/proj?self=false', headers: bearer(TOKENS.alice) })).json()._results[0]?._rev ?? 0;

describe('typed identity keys', () => {
  test('every kind of principal has its own key, and the key reads back as the same principal', () => {
    const principals: Principal[] = [
      { type: 'Anonymous' },
      { type: 'Authenticated' },
      { type: 'Authenticated', realm: 'local' },
      { type: 'User', realm: 'local', subject: 'authenticated' },
      { type: 'User', realm: 'local', subject: 'group/team' },
      { type: 'Group', realm: 'local', group: 'team' },
      { type: 'User', realm: 'local', subject: 'anonymous' },
      { type: 'User', realm: 'local', subject: 'a:b/c' },
    ];
    const keys = principals.map(principalKey);
    expect(new Set(keys).size).toBe(principals.length);
    for (const principal of principals) expect(principalOfKey(principalKey(principal))).toEqual(principal);
  });

  test.each(['authenticated', 'anonymous', 'group/team'])("appending a User with subject '%s' is 400 and grants nothing", async (subject) => {
    const rev = await aclRev();
    const response = await server.app.inject({
      method: 'PATCH',
      url: `/v1/acls/org/proj?rev=${rev}`,
      headers: bearer(TOKENS.alice),
      payload: { '@type': 'Append', acl: [{ identity: { '@type': 'User', realm: 'local', subject }, permissions: ['resources/write'] }] },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()['@type']).toBe('DecodingFailed');
    expect(response.json().reason).toContain('reserved');
    expect(await aclRev()).toBe(rev);
    // bob, an ordinary user of realm local in group team, still may not write.
    const write = await server.app.inject({ method: 'POST', url: '/v1/resources/org/proj', headers: bearer(TOKENS.bob), payload: { name: 'x' } });
    expect(write.statusCode).toBe(403);
  });

  test('the auth file refuses tokens for reserved subjects and the string form local/anonymous', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'acl-identities-'));
    try {
      const file = path.join(dir, 'auth.json');
      for (const auth of [
        { tokens: { 'a-long-token': { realm: 'local', subject: 'authenticated' } } },
        { tokens: { 'a-long-token': { realm: 'local', subject: 'anonymous' } } },
        { acls: { '/': { 'local/anonymous': ['resources/read'] } } },
      ]) {
        await writeFile(file, JSON.stringify(auth));
        expect(() => loadAuthFile(file)).toThrow(AuthFileError);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  // Only LMDB stores predate typed keys (this test writes the LMDB file itself); a PostgreSQL store never held untyped ones.
  test.skipIf(testPostgresUrl() !== undefined)('grants stored before keys were typed are read with their old meaning after an upgrade', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'acl-upgrade-'));
    const first = await startServer({ dataDir });
    await createProject(first.app, 'org', 'proj');
    await first.stop();
    // Write an ACL the way earlier versions stored it: auth-file principal strings as keys.
    const root = open({ path: path.join(dataDir, 'platform', 'store'), maxDbs: 16 });
    const acls = root.openDB<{ rev: number; grants: Record<string, string[]> }, string>({ name: 'acls' });
    const stored = acls.get('/org/proj')!;
    await acls.put('/org/proj', { ...stored, rev: stored.rev + 1, grants: { ...stored.grants, 'local/bob': ['resources/write'], 'local/group/team': ['files/write'] } });
    await root.close();
    const second = await startServer({ dataDir });
    try {
      const write = await second.app.inject({ method: 'POST', url: '/v1/resources/org/proj', headers: bearer(TOKENS.bob), payload: { name: 'x' } });
      expect(write.statusCode).toBe(201);
      const listed = await second.app.inject({ method: 'GET', url: '/v1/acls/org/proj?self=false', headers: bearer(TOKENS.alice) });
      const identities = listed.json()._results.flatMap((acl: { acl: { identity: object }[] }) => acl.acl.map((entry) => entry.identity));
      expect(identities).toContainEqual({ '@type': 'User', realm: 'local', subject: 'bob' });
      expect(identities).toContainEqual({ '@type': 'Group', realm: 'local', group: 'team' });
    } finally {
      await second.close();
    }
  });
});
