/**
 * Tag names, as Nexus's UserTag takes them: 1 to 64 ASCII characters (spaces and `/` too), not `latest`,
 * which names the latest revision; control characters are refused as well (src/platform/tags.ts).
 * A refused name is `400 DecodingFailed` naming the rule and writes nothing; a tag stored before the
 * rules still reads and deletes.
 */
import { describe, expect, test } from 'vitest';
import { RevisionStore } from '../../src/platform/revisions.js';
import { TOKENS, bearer, multipart, serverWithProject } from './helpers.js';

const server = serverWithProject();
const alice = bearer(TOKENS.alice);

function inject(method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, payload?: object) {
  return server().app.inject({ method, url, headers: alice, ...(payload && { payload }) });
}

const REFUSED: [string, string][] = [
  ['latest', "Invalid tag name: 'latest' is reserved: it names the latest revision."],
  ['', 'Invalid tag name: a tag has 1 to 64 characters, not 0.'],
  ['x'.repeat(65), 'Invalid tag name: a tag has 1 to 64 characters, not 65.'],
  ['x'.repeat(300), 'Invalid tag name: a tag has 1 to 64 characters, not 300.'],
  ['café', "Invalid tag name: a tag holds printable ASCII characters only (space to '~')."],
  ['tab\there', "Invalid tag name: a tag holds printable ASCII characters only (space to '~')."],
  ['nul\u0000', "Invalid tag name: a tag holds printable ASCII characters only (space to '~')."],  // The embedded store's encoding renames that key as it reads it back.
  ['__proto__', "Invalid tag name: '__proto__' cannot be stored as a tag name."],
];

describe('a new tag', () => {
  test.each([
    ['resource', '/v1/resources/org/proj/_/refused-resource'],
    ['file', '/v1/files/org/proj/refused-file'],
  ])('of a %s with a name Nexus refuses is 400 DecodingFailed naming the rule, and nothing is written', async (kind, url) => {
    if (kind === 'resource') await inject('PUT', url, { name: 'r' });
    else {
      const upload = await multipart('a.txt', 'a', 'text/plain');
      await server().app.inject({ method: 'PUT', url, headers: { ...alice, ...upload.headers }, payload: upload.payload });
    }
    const answers = [];
    for (const [name] of REFUSED) {
      const response = await inject('POST', `${url}/tags?rev=1`, { tag: name, rev: 1 });
      answers.push([response.statusCode, response.json()['@type'], response.json().reason]);
    }
    expect(answers).toEqual(REFUSED.map(([, reason]) => [400, 'DecodingFailed', reason]));
    expect((await inject('GET', `${url}/tags`)).json().tags).toEqual([]);
    expect((await inject('GET', `/v1/resources/org/proj/_/refused-${kind}`)).json()._rev).toBe(1);
  });

  test('with spaces, slashes or punctuation, up to 64 characters, is taken, read and deleted, as in Nexus', async () => {
    await inject('PUT', '/v1/resources/org/proj/_/taken', { name: 'taken' });
    const names = ['a b', 'a/b', 'v1.0-rc~1', 'x'.repeat(64), 'Latest'];
    for (const [index, name] of names.entries()) {
      const tagged = await inject('POST', `/v1/resources/org/proj/_/taken/tags?rev=${index + 1}`, { tag: name, rev: 1 });
      expect([name, tagged.statusCode]).toEqual([name, 201]);
    }
    for (const name of names) {
      expect([name, (await inject('GET', `/v1/resources/org/proj/_/taken?tag=${encodeURIComponent(name)}`)).json()._rev]).toEqual([name, 1]);
    }
    const deleted = await inject('DELETE', `/v1/resources/org/proj/_/taken/tags/${encodeURIComponent('a/b')}?rev=6`);
    expect([deleted.statusCode, deleted.json()._rev]).toEqual([200, 7]);
    expect((await inject('GET', '/v1/resources/org/proj/_/taken/tags')).json().tags.map((t: { tag: string }) => t.tag)).not.toContain('a/b');
  });

  test('a tag stored before the rules (latest, non-ASCII) still reads, lists and deletes', async () => {
    await inject('PUT', '/v1/resources/org/proj/_/legacy', { name: 'legacy' });
    await inject('PUT', '/v1/resources/org/proj/_/legacy?rev=1', { name: 'second' });
    // Written as a tag was before the rules: straight into the revision store, past the check of new tags.
    const { platform } = server();
    const revisions = await RevisionStore.open(platform.store, platform.clock);
    const id = (await inject('GET', '/v1/resources/org/proj/_/legacy')).json()['@id'];
    await revisions.update('org/proj', id, 'resource', 2, await platform.identify(`Bearer ${TOKENS.alice}`), (latest) => ({
      tags: { ...latest.tags, latest: 1, café: 1 },
    }));

    expect((await inject('GET', '/v1/resources/org/proj/_/legacy?tag=latest')).json().name).toBe('legacy');
    expect((await inject('GET', `/v1/resources/org/proj/_/legacy?tag=${encodeURIComponent('café')}`)).json().name).toBe('legacy');
    expect((await inject('GET', '/v1/resources/org/proj/_/legacy/tags')).json().tags).toEqual([
      { tag: 'latest', rev: 1 },
      { tag: 'café', rev: 1 },
    ]);
    expect((await inject('DELETE', '/v1/resources/org/proj/_/legacy/tags/latest?rev=3')).statusCode).toBe(200);
    expect((await inject('GET', '/v1/resources/org/proj/_/legacy/tags')).json().tags).toEqual([{ tag: 'café', rev: 1 }]);
    // Moved to another revision, it is a new tag: the rules apply.
    const moved = await inject('POST', '/v1/resources/org/proj/_/legacy/tags?rev=4', { tag: 'café', rev: 2 });
    expect([moved.statusCode, moved.json()['@type']]).toEqual([400, 'DecodingFailed']);
  });

  test('?tag=latest reads the latest revision, as the reserved name says, on every read and in archives (it was 404 TagNotFound)', async () => {
    await inject('PUT', '/v1/resources/org/proj/_/newest', { name: 'first' });
    await inject('PUT', '/v1/resources/org/proj/_/newest?rev=1', { name: 'second' });
    for (const url of ['/v1/resources/org/proj/_/newest?tag=latest', '/v1/resources/org/proj/_/newest/source?tag=latest']) {
      const read = await inject('GET', url);
      expect([url, read.statusCode, read.json().name]).toEqual([url, 200, 'second']);
    }
    const archived = await server().app.inject({
      method: 'PUT',
      url: '/v1/archives/org/proj/latest-tag',
      headers: { ...bearer(TOKENS.alice), accept: 'application/json' },
      payload: { resources: [{ '@type': 'Resource', resourceId: 'newest', tag: 'latest', format: 'source' }] },
    });
    expect(archived.statusCode, archived.body).toBe(201);
    expect((await inject('GET', '/v1/resources/org/proj/_/literature-free?tag=latest')).json()['@type']).toBe('ResourceNotFound');
  });
});
