/**
 * The resource service called directly: revisions, tags, deprecation, ids
 * from the path or the payload, the read-only literature project, and the
 * permission each call requires.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProjectRef } from '../../../src/platform/refs.js';
import { BASE } from '../helpers.js';
import { openTestPlatform, rejection, type PlatformFixture } from './fixture.js';

const REF: ProjectRef = { org: 'lab', project: 'data' };

describe('resource service, directly', () => {
  let fixture: PlatformFixture;
  beforeAll(async () => {
    fixture = await openTestPlatform();
    const { platform, alice } = fixture;
    await platform.orgs.save('lab', undefined, undefined, alice);
    await platform.projects.save(REF, {}, undefined, alice);
  });
  afterAll(() => fixture.close());

  it('creates, updates at the current revision, tags and reads any revision back', async () => {
    const { platform, alice, anonymous } = fixture;
    const { resources } = platform;
    const created = await resources.create(REF, 'sample', { name: 'one' }, alice);
    expect(created).toMatchObject({ kind: 'resource', project: 'lab/data', rev: 1, deprecated: false, source: { name: 'one' } });
    expect(created.id).toBe(`${BASE}/v1/resources/lab/data/_/sample`);

    expect(await rejection(() => resources.create(REF, 'sample', { name: 'dup' }, alice))).toEqual({ status: 409, type: 'ResourceAlreadyExists' });
    expect(await rejection(() => resources.update(REF, 'sample', 5, { name: 'stale' }, alice))).toMatchObject({ status: 409 });
    expect(await resources.update(REF, 'sample', 1, { name: 'two' }, alice)).toMatchObject({ rev: 2, source: { name: 'two' } });
    expect(await resources.tag(REF, 'sample', 2, 'first', 1, alice)).toMatchObject({ rev: 3, tags: { first: 1 } });

    const read = (selector: Parameters<typeof resources.fetch>[2]) => resources.fetch(REF, 'sample', selector, anonymous);
    expect((await read({})).state.source).toEqual({ name: 'two' });
    expect((await read({ rev: 1 })).state.source).toEqual({ name: 'one' });
    expect((await read({ tag: 'first' })).state.source).toEqual({ name: 'one' });
    expect(await rejection(() => read({ rev: 9 }))).toMatchObject({ status: 404 });
  });

  it('takes the id from the payload, refuses a path and payload that disagree, lists what it holds', async () => {
    const { platform, alice } = fixture;
    const { resources } = platform;
    const id = 'https://example.org/things/42';
    expect((await resources.create(REF, undefined, { '@id': id }, alice)).id).toBe(id);
    expect(await rejection(() => resources.create(REF, 'other', { '@id': 'https://example.org/things/43' }, alice))).toMatchObject({ status: 400 });
    const generated = await resources.create(REF, undefined, { name: 'no id' }, alice);
    expect(generated.id.startsWith(`${BASE}/v1/resources/lab/data/_/`)).toBe(true);

    const page = await resources.list(REF, 0, 100, alice);
    expect(page.states.map((state) => state.id)).toEqual(expect.arrayContaining([id, generated.id]));
    expect(page.total).toBe(page.states.length);
  });

  it('deprecation is a revision; a deprecated resource is read, not changed', async () => {
    const { platform, alice } = fixture;
    const { resources } = platform;
    await resources.create(REF, 'old', { name: 'old' }, alice);
    expect(await resources.deprecate(REF, 'old', 1, alice)).toMatchObject({ rev: 2, deprecated: true });
    expect((await resources.fetch(REF, 'old', {}, alice)).state.deprecated).toBe(true);
    expect(await rejection(() => resources.update(REF, 'old', 2, { name: 'new' }, alice))).toEqual({ status: 400, type: 'ResourceIsDeprecated' });
  });

  it('writes need resources/write; the literature project is readable and read-only', async () => {
    const { platform, alice, bob, anonymous } = fixture;
    const { resources } = platform;
    expect(await rejection(() => resources.create(REF, 'by-bob', {}, bob))).toEqual({ status: 403, type: 'AuthorizationFailed' });
    expect(await rejection(() => resources.create(REF, 'by-anonymous', {}, anonymous))).toEqual({ status: 403, type: 'AuthorizationFailed' });
    expect(await rejection(() => resources.fetch(REF, 'by-bob', {}, alice))).toEqual({ status: 404, type: 'ResourceNotFound' });

    const literature: ProjectRef = { org: 'literature', project: 'articles' };
    const page = await resources.list(literature, 0, 10, anonymous);
    expect(page.total).toBe(2);
    expect(page.states.map((state) => state.source)).toEqual([
      expect.objectContaining({ identifier: 'demo-000', name: 'Title of demo-000' }),
      expect.objectContaining({ identifier: 'demo-001', name: 'Title of demo-001' }),
    ]);
    expect((await rejection(() => resources.create(literature, 'new', {}, alice))).status).toBeGreaterThanOrEqual(400);
  });
});
