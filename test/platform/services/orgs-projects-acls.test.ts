/**
 * The organization, project and ACL services called directly: what each
 * write requires, the revision it checks, and that a refused call changes
 * nothing (the HTTP tests see the same through responses).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProjectRef } from '../../../src/platform/refs.js';
import { openTestPlatform, rejection, type PlatformFixture } from './fixture.js';

const BOB = { '@type': 'User', realm: 'local', subject: 'bob' };

describe('platform services, directly', () => {
  let fixture: PlatformFixture;
  beforeAll(async () => (fixture = await openTestPlatform()));
  afterAll(() => fixture.close());

  it('organizations: create once, update and deprecate at the current revision, by permission', async () => {
    const { platform, alice, bob, anonymous } = fixture;
    const { orgs } = platform;
    expect(await rejection(() => orgs.save('lab', 'by bob', undefined, bob))).toEqual({ status: 403, type: 'AuthorizationFailed' });
    expect(await orgs.get('lab')).toBeUndefined();

    const created = await orgs.save('lab', 'first', undefined, alice);
    expect(created).toMatchObject({ label: 'lab', description: 'first', rev: 1, deprecated: false });
    expect(await rejection(() => orgs.save('lab', 'again', undefined, alice))).toEqual({ status: 409, type: 'OrganizationAlreadyExists' });
    expect(await rejection(() => orgs.save('lab', 'stale', 7, alice))).toMatchObject({ status: 409 });
    expect((await orgs.read('lab', anonymous)).description).toBe('first');

    expect(await orgs.save('lab', 'second', 1, alice)).toMatchObject({ description: 'second', rev: 2 });
    expect(await orgs.deprecate('lab', 2, alice)).toMatchObject({ deprecated: true, rev: 3 });
    expect(await rejection(() => orgs.save('lab', 'third', 3, alice))).toEqual({ status: 400, type: 'OrganizationIsDeprecated' });
    expect(await rejection(() => orgs.read('nowhere', alice))).toEqual({ status: 404, type: 'OrganizationNotFound' });
  });

  it('projects: created under an organization, owned by their creator, read by anonymous', async () => {
    const { platform, alice, bob, anonymous } = fixture;
    const { orgs, projects, acls } = platform;
    await orgs.save('team', undefined, undefined, alice);
    const ref: ProjectRef = { org: 'team', project: 'notes' };
    expect(await rejection(() => projects.save(ref, {}, undefined, bob))).toEqual({ status: 403, type: 'AuthorizationFailed' });

    const created = await projects.save(ref, { description: 'lab notes' }, undefined, alice);
    expect(created).toMatchObject({ org: 'team', label: 'notes', rev: 1, deprecated: false, description: 'lab notes' });
    expect(await acls.has(alice, 'projects/write', '/team/notes')).toBe(true);
    expect((await projects.read(ref, anonymous)).description).toBe('lab notes');
    expect(await rejection(() => projects.save(ref, {}, undefined, alice))).toEqual({ status: 409, type: 'ProjectAlreadyExists' });
    expect(await rejection(() => projects.read({ org: 'team', project: 'none' }, alice))).toEqual({ status: 404, type: 'ProjectNotFound' });

    expect(await projects.deprecate(ref, 1, false, alice)).toMatchObject({ deprecated: true, rev: 2 });
    expect(await rejection(() => projects.save(ref, { description: 'more' }, 2, alice))).toEqual({ status: 400, type: 'ProjectIsDeprecated' });
  });

  it('ACLs: a grant takes effect at once, at its address and below; writes need acls/write and the revision', async () => {
    const { platform, alice, bob } = fixture;
    const { orgs, projects, acls } = platform;
    await orgs.save('shared', undefined, undefined, alice);
    await projects.save({ org: 'shared', project: 'p' }, {}, undefined, alice);
    expect(await acls.has(bob, 'resources/write', '/shared/p')).toBe(false);
    expect(await rejection(() => acls.replace('/shared', [{ identity: BOB, permissions: ['resources/write'] }], 0, bob))).toEqual({
      status: 403,
      type: 'AuthorizationFailed',
    });

    const rev = (await acls.stored('/shared'))?.rev ?? 0;
    expect(await rejection(() => acls.append('/shared', [{ identity: BOB, permissions: ['resources/write'] }], rev + 5, alice))).toMatchObject({ status: 409 });
    await acls.append('/shared', [{ identity: BOB, permissions: ['resources/write'] }], rev, alice);
    expect(await acls.has(bob, 'resources/write', '/shared')).toBe(true);
    expect(await acls.has(bob, 'resources/write', '/shared/p')).toBe(true);
    expect(await acls.has(bob, 'resources/write', '/team')).toBe(false);

    const own = await acls.list('/shared', bob, true, false);
    expect(own).toEqual([{ address: '/shared', source: 'store', rev: rev + 1, acl: [{ identity: BOB, permissions: ['resources/write'] }] }]);

    await acls.subtract('/shared', [{ identity: BOB, permissions: ['resources/write'] }], rev + 1, alice);
    expect(await acls.has(bob, 'resources/write', '/shared/p')).toBe(false);
  });
});
