/**
 * Writes that would change nothing make no revision. ACL appends and subtractions that leave the
 * grants as they are, deletions of an empty ACL and entries without permissions are refused (400, as
 * in Nexus); a resource update whose payload is the latest revision's is ignored (200 with that
 * revision, as in Nexus), and so is a resource tag set to the revision it names already (201, as the
 * tag route answers in Nexus). Either way the store is as it was: same revision, no newer one readable.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { PERMISSIONS } from '../../src/platform/permissions.js';
import { TOKENS, type TestServer, bearer, createProject, startServer } from './helpers.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
  await createProject(server.app, 'org', 'proj');
});
afterAll(() => server.close());

const alice = bearer(TOKENS.alice);
const bob = { '@type': 'User', realm: 'local', subject: 'bob' };
const carol = { '@type': 'User', realm: 'local', subject: 'carol' };

const inject = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
  server.app.inject({ method, url, headers: alice, ...(payload && { payload }) });

/** The stored ACL at `path` (`org/p`) as every caller allowed to read it sees it: its revision and grants. */
async function storedAcl(path: string): Promise<{ _rev: number; acl: object[] } | undefined> {
  const response = await inject('GET', `/v1/acls/${path}?self=false`);
  expect(response.statusCode).toBe(200);
  return response.json()._results.find((result: { _source: string }) => result._source === 'store');
}

/** Puts bob's `permissions` on a new project `name` (as alice, who owns it: rev 1 is her owner grant). */
async function projectWithBob(name: string, permissions: string[]): Promise<void> {
  await createProject(server.app, 'org', name);
  const put = await inject('PATCH', `/v1/acls/org/${name}?rev=1`, { '@type': 'Append', acl: [{ identity: bob, permissions }] });
  expect(put.statusCode).toBe(200);
  expect(put.json()._rev).toBe(2);
}

function expectRejection(response: { statusCode: number; json(): { '@type': string; reason: string } }, type: string, reason: string, status = 400): void {
  expect(response.statusCode).toBe(status);
  expect(response.json()).toMatchObject({ '@type': type, reason });
}

describe('ACL changes that change nothing', () => {
  test('an Append of grants all held already is 400 NothingToBeUpdated; the ACL keeps its revision', async () => {
    await projectWithBob('append', ['resources/read', 'files/write']);
    const before = await storedAcl('org/append');
    const again = await inject('PATCH', '/v1/acls/org/append?rev=2', { '@type': 'Append', acl: [{ identity: bob, permissions: ['files/write'] }] });
    expectRejection(again, 'NothingToBeUpdated', "The ACL on address '/org/append' will not change after applying the provided update.");
    expect(await storedAcl('org/append')).toEqual(before);
    // One new permission among held ones is a change.
    const more = await inject('PATCH', '/v1/acls/org/append?rev=2', { '@type': 'Append', acl: [{ identity: bob, permissions: ['files/write', 'acls/read'] }] });
    expect(more.statusCode).toBe(200);
    expect(more.json()._rev).toBe(3);
  });

  test('a Subtract of grants none of which is held is 400 NothingToBeUpdated; the ACL keeps its revision', async () => {
    await projectWithBob('subtract', ['resources/read']);
    const before = await storedAcl('org/subtract');
    for (const acl of [[{ identity: bob, permissions: ['files/write'] }], [{ identity: carol, permissions: ['resources/read'] }]]) {
      const response = await inject('PATCH', '/v1/acls/org/subtract?rev=2', { '@type': 'Subtract', acl });
      expectRejection(response, 'NothingToBeUpdated', "The ACL on address '/org/subtract' will not change after applying the provided update.");
    }
    expect(await storedAcl('org/subtract')).toEqual(before);
    const held = await inject('PATCH', '/v1/acls/org/subtract?rev=2', { '@type': 'Subtract', acl: [{ identity: bob, permissions: ['resources/read', 'files/write'] }] });
    expect(held.statusCode).toBe(200);
    expect(held.json()._rev).toBe(3);
  });

  test('a Subtract or DELETE where no ACL was ever written is 404 AclNotFound, whatever the rev, and stores none', async () => {
    // rev=0 names the ACL as absent, which a DELETE's rev may not (at least 1).
    for (const rev of [1, 3]) {
      const subtracted = await inject('PATCH', `/v1/acls/nothing-here?rev=${rev}`, { '@type': 'Subtract', acl: [{ identity: bob, permissions: ['resources/read'] }] });
      expectRejection(subtracted, 'AclNotFound', "The ACL on address '/nothing-here' does not exist.", 404);
      const deleted = await inject('DELETE', `/v1/acls/nothing-here?rev=${rev}`);
      expectRejection(deleted, 'AclNotFound', "The ACL on address '/nothing-here' does not exist.", 404);
    }
    const fromNothing = await inject('PATCH', '/v1/acls/nothing-here?rev=0', { '@type': 'Subtract', acl: [{ identity: bob, permissions: ['resources/read'] }] });
    expectRejection(fromNothing, 'AclNotFound', "The ACL on address '/nothing-here' does not exist.", 404);
    expect(await storedAcl('nothing-here')).toBeUndefined();
  });

  test('a DELETE of an ACL that grants nothing is 400 AclIsEmpty; the emptied ACL keeps its revision', async () => {
    await projectWithBob('delete', ['resources/read']);
    const emptied = await inject('DELETE', '/v1/acls/org/delete?rev=2');
    expect(emptied.statusCode).toBe(200);
    expect(emptied.json()._rev).toBe(3);
    const again = await inject('DELETE', '/v1/acls/org/delete?rev=3');
    expectRejection(again, 'AclIsEmpty', "The ACL on address '/org/delete' is empty.");
    const none = await inject('DELETE', '/v1/acls/org/delete?rev=4');
    expect(none.statusCode).toBe(409);
    // Still revision 3: appending at it works.
    const append = await inject('PATCH', '/v1/acls/org/delete?rev=3', { '@type': 'Append', acl: [{ identity: bob, permissions: ['resources/read'] }] });
    expect(append.json()._rev).toBe(4);
  });

  test('an entry without permissions, or no entry, is 400 AclCannotContainEmptyPermissionCollection for every change', async () => {
    await projectWithBob('empty', ['resources/read']);
    const before = await storedAcl('org/empty');
    const reason = "The ACL address '/org/empty' cannot contain an empty permission collection.";
    const withEmptyEntry = [
      { identity: bob, permissions: ['files/write'] },
      { identity: carol, permissions: [] },
    ];
    for (const acl of [withEmptyEntry, []]) {
      expectRejection(await inject('PUT', '/v1/acls/org/empty?rev=2', { acl }), 'AclCannotContainEmptyPermissionCollection', reason);
      expectRejection(await inject('PATCH', '/v1/acls/org/empty?rev=2', { '@type': 'Append', acl }), 'AclCannotContainEmptyPermissionCollection', reason);
      expectRejection(await inject('PATCH', '/v1/acls/org/empty?rev=2', { '@type': 'Subtract', acl }), 'AclCannotContainEmptyPermissionCollection', reason);
    }
    expect(await storedAcl('org/empty')).toEqual(before);
  });

  test('a stale revision is 409 IncorrectRev before anything else, and a Replace by the same grants is a revision, as in Nexus', async () => {
    await projectWithBob('replace', ['resources/read']);
    const stale = await inject('PATCH', '/v1/acls/org/replace?rev=1', { '@type': 'Append', acl: [{ identity: bob, permissions: ['resources/read'] }] });
    expect(stale.statusCode).toBe(409);
    expect(stale.json()['@type']).toBe('IncorrectRev');
    const { acl } = (await storedAcl('org/replace'))!;
    const replace = await inject('PUT', '/v1/acls/org/replace?rev=2', { acl });
    expect(replace.statusCode).toBe(200);
    expect(replace.json()._rev).toBe(3);
  });

  test('creating a project whose ACL grants its creator everything already stores no owner grant revision', async () => {
    const put = await inject('PUT', '/v1/acls/org/owned?rev=0', { acl: [{ identity: { '@type': 'User', realm: 'local', subject: 'alice' }, permissions: [...PERMISSIONS] }] });
    expect(put.statusCode).toBe(201);
    const before = await storedAcl('org/owned');
    expect(before?._rev).toBe(1);
    const created = await inject('PUT', '/v1/projects/org/owned', {});
    expect(created.statusCode).toBe(201);
    expect(await storedAcl('org/owned')).toEqual(before);
  });
});

const url = (id: string, query = '') => `/v1/resources/org/proj/_/${id}${query}`;

async function create(id: string, payload: object): Promise<{ _rev: number; _updatedAt: string }> {
  const response = await inject('PUT', url(id), payload);
  expect(response.statusCode).toBe(201);
  return response.json();
}

/** The resource's latest revision and its source, and that no revision past it can be read. */
async function stored(id: string): Promise<{ rev: number; updatedAt: string; source: unknown }> {
  const latest = await inject('GET', url(id));
  expect(latest.statusCode).toBe(200);
  const { _rev: rev, _updatedAt: updatedAt } = latest.json();
  const next = await inject('GET', url(id, `?rev=${rev + 1}`));
  expect(next.statusCode).toBe(404);
  expect(next.json()['@type']).toBe('RevisionNotFound');
  return { rev, updatedAt, source: (await inject('GET', url(id, '/source'))).json() };
}

describe('resource updates that change nothing', () => {
  test('a PUT of the latest payload answers the latest revision and writes none, as in Nexus', async () => {
    const payload = { '@type': 'Neuron', name: 'Pyramidal cell', layers: [2, 3], soma: { diameter: 20 } };
    const created = await create('same', payload);
    const before = await stored('same');
    const again = await inject('PUT', url('same', '?rev=1'), payload);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ _rev: 1, _updatedAt: created._updatedAt });
    expect(await stored('same')).toEqual(before);
  });

  test('the order of the keys does not count: the same JSON value is the same payload', async () => {
    await create('reordered', { a: 1, b: { c: [1, 2], d: null } });
    const before = await stored('reordered');
    const again = await inject('PUT', url('reordered', '?rev=1'), { b: { d: null, c: [1, 2] }, a: 1 });
    expect(again.statusCode).toBe(200);
    expect(again.json()._rev).toBe(1);
    expect(await stored('reordered')).toEqual(before);
  });

  test('any change of the payload is a revision, and so is the same payload once its types expand otherwise', async () => {
    await create('changed', { '@type': 'Neuron', name: 'a', layers: [2, 3] });
    for (const [payload, rev] of [
      [{ '@type': 'Neuron', name: 'a', layers: [3, 2] }, 2],
      [{ '@type': 'Neuron', name: 'a', layers: [3, 2], extra: null }, 3],
      [{ '@type': 'Neuron', name: 'a', layers: [3, 2], extra: null, '@context': { '@vocab': 'https://example.org/' } }, 4],
    ] as const) {
      const response = await inject('PUT', url('changed', `?rev=${rev - 1}`), payload);
      expect(response.statusCode).toBe(200);
      expect(response.json()._rev).toBe(rev);
    }
    // The project's vocab changes what `Neuron` expands to: the same payload then records other types.
    await createProject(server.app, 'org', 'vocab');
    const vocabUrl = '/v1/resources/org/vocab/_/typed';
    const payload = { '@type': 'Neuron', name: 'a' };
    expect((await inject('PUT', vocabUrl, payload)).statusCode).toBe(201);
    const project = await inject('PUT', '/v1/projects/org/vocab?rev=1', { vocab: 'https://vocab.example.org/' });
    expect(project.statusCode).toBe(200);
    const again = await inject('PUT', `${vocabUrl}?rev=1`, payload);
    expect(again.statusCode).toBe(200);
    expect(again.json()._rev).toBe(2);
  });

  test('a stale revision is still 409 IncorrectRev, and a deprecated resource still 400 ResourceIsDeprecated', async () => {
    const payload = { name: 'kept' };
    await create('checked', payload);
    expect((await inject('PUT', url('checked', '?rev=1'), { name: 'changed' })).json()._rev).toBe(2);
    const stale = await inject('PUT', url('checked', '?rev=1'), { name: 'changed' });
    expect(stale.statusCode).toBe(409);
    expect(stale.json()['@type']).toBe('IncorrectRev');
    expect((await inject('DELETE', url('checked', '?rev=2'))).statusCode).toBe(200);
    const deprecated = await inject('PUT', url('checked', '?rev=3'), { name: 'changed' });
    expect(deprecated.statusCode).toBe(400);
    expect(deprecated.json()['@type']).toBe('ResourceIsDeprecated');
  });
});

describe('resource tags that change nothing', () => {
  const tagAs = (id: string, rev: number, tag: string, target: number) => inject('POST', url(id, `/tags?rev=${rev}`), { tag, rev: target });

  /** The resource's tags as its tag listing answers them. */
  async function tags(id: string): Promise<unknown> {
    const response = await inject('GET', url(id, '/tags'));
    expect(response.statusCode).toBe(200);
    return response.json().tags;
  }

  /** A new resource with two revisions, untagged. */
  async function twoRevisions(id: string): Promise<void> {
    await create(id, { name: 'first' });
    expect((await inject('PUT', url(id, '?rev=1'), { name: 'second' })).json()._rev).toBe(2);
  }

  test('setting a tag to the revision it names already answers the latest revision (201, as Nexus) and writes none', async () => {
    await twoRevisions('retagged');
    const tagged = await tagAs('retagged', 2, 'v1', 1);
    expect(tagged.statusCode).toBe(201);
    expect(tagged.json()._rev).toBe(3);
    const before = await stored('retagged');
    const tagsBefore = await tags('retagged');
    const again = await tagAs('retagged', 3, 'v1', 1);
    expect(again.statusCode).toBe(201);
    expect(again.json()).toMatchObject({ _rev: 3, _updatedAt: before.updatedAt });
    expect(await stored('retagged')).toEqual(before);
    expect(await tags('retagged')).toEqual(tagsBefore);
  });

  test('the same tag set to another revision, or another tag set to a tagged revision, is a revision', async () => {
    await twoRevisions('moved');
    expect((await tagAs('moved', 2, 'v1', 1)).json()._rev).toBe(3);
    const moved = await tagAs('moved', 3, 'v1', 2);
    expect(moved.statusCode).toBe(201);
    expect(moved.json()._rev).toBe(4);
    const other = await tagAs('moved', 4, 'v2', 2);
    expect(other.statusCode).toBe(201);
    expect(other.json()._rev).toBe(5);
    expect(await tags('moved')).toEqual(expect.arrayContaining([{ tag: 'v1', rev: 2 }, { tag: 'v2', rev: 2 }]));
    expect((await inject('GET', url('moved', '?tag=v1'))).json()._rev).toBe(2);
  });

  test('a stale revision is still 409 IncorrectRev, a revision past the latest 404 RevisionNotFound, a reserved name 400', async () => {
    await twoRevisions('stale');
    expect((await tagAs('stale', 2, 'v1', 1)).json()._rev).toBe(3);
    const before = await stored('stale');
    const stale = await tagAs('stale', 2, 'v1', 1);
    expect(stale.statusCode).toBe(409);
    expect(stale.json()['@type']).toBe('IncorrectRev');
    const past = await tagAs('stale', 3, 'v1', 4);
    expect(past.statusCode).toBe(404);
    expect(past.json()['@type']).toBe('RevisionNotFound');
    const reserved = await tagAs('stale', 3, 'latest', 3);
    expect(reserved.statusCode).toBe(400);
    expect(reserved.json()['@type']).toBe('DecodingFailed');
    expect(await stored('stale')).toEqual(before);
  });
});
