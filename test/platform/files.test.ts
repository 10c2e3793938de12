import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BASE, TOKENS, type TestServer, bearer, createProject, multipart, startServer } from './helpers.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ maxFileBytes: 1024 });
  await createProject(server.app, 'org', 'proj');
});
afterAll(() => server.close());

const alice = bearer(TOKENS.alice);
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

async function upload(url: string, filename: string, content: string, mediaType = 'text/plain', token = TOKENS.alice, method: 'POST' | 'PUT' = 'POST') {
  const body = await multipart(filename, content, mediaType);
  return server.app.inject({ method, url, headers: { ...bearer(token), ...body.headers }, payload: body.payload });
}

/** A multipart body written by hand, for what FormData does not send: several parts, a file part without a name. */
function rawMultipart(parts: { name: string; filename?: string; type?: string; content: string }[]) {
  const boundary = 'raw-multipart-boundary';
  const part = ({ name, filename, type, content }: (typeof parts)[number]) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename === undefined ? '' : `; filename="${filename}"`}\r\n` +
    `${type === undefined ? '' : `Content-Type: ${type}\r\n`}\r\n${content}\r\n`;
  return { payload: Buffer.from(`${parts.map(part).join('')}--${boundary}--\r\n`), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

function sendRaw(parts: Parameters<typeof rawMultipart>[0]) {
  const body = rawMultipart(parts);
  return server.app.inject({ method: 'POST', url: '/v1/files/org/proj', headers: { ...alice, ...body.headers }, payload: body.payload });
}

/** Every stored blob and leftover upload under the data directory. */
async function storedFiles(): Promise<string[]> {
  const root = path.join(server.dataDir, 'platform', 'files');
  return (await readdir(root, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

describe('uploads', () => {
  test('POST stores the content and answers the file metadata', async () => {
    const response = await upload('/v1/files/org/proj', 'notes.txt', 'hello files');
    expect(response.statusCode).toBe(201);
    const body = response.json();
    expect(body).toMatchObject({
      '@type': 'File',
      _bytes: 11,
      _digest: { _algorithm: 'SHA-256', _value: sha256('hello files') },
      _filename: 'notes.txt',
      _mediaType: 'text/plain',
      _rev: 1,
      _constrainedBy: 'https://bluebrain.github.io/nexus/schemas/files.json',
    });
    expect(body._self).toBe(`${BASE}/v1/files/org/proj/${encodeURIComponent(body['@id'])}`);
  });

  test('PUT with an id creates; with ?rev updates; content by latest, rev and tag', async () => {
    expect((await upload('/v1/files/org/proj/doc', 'a.txt', 'version one', 'text/plain', TOKENS.alice, 'PUT')).statusCode).toBe(201);
    const stale = await upload('/v1/files/org/proj/doc?rev=5', 'a.txt', 'nope', 'text/plain', TOKENS.alice, 'PUT');
    expect(stale.statusCode).toBe(409);
    const updated = await upload('/v1/files/org/proj/doc?rev=1', 'b.txt', 'version two', 'text/plain', TOKENS.alice, 'PUT');
    expect(updated.json()).toMatchObject({ _rev: 2, _filename: 'b.txt' });
    const tagged = await server.app.inject({ method: 'POST', url: '/v1/files/org/proj/doc/tags?rev=2', headers: alice, payload: { tag: 'first', rev: 1 } });
    expect(tagged.json()._rev).toBe(3);

    const latest = await server.app.inject({ method: 'GET', url: '/v1/files/org/proj/doc' });
    expect(latest.body).toBe('version two');
    expect(latest.headers['content-type']).toBe('text/plain');
    expect(latest.headers['content-length']).toBe('11');
    expect(latest.headers['content-disposition']).toBe(`attachment; filename="b.txt"; filename*=UTF-8''b.txt`);
    expect((await server.app.inject({ method: 'GET', url: '/v1/files/org/proj/doc?rev=1' })).body).toBe('version one');
    expect((await server.app.inject({ method: 'GET', url: '/v1/files/org/proj/doc?tag=first' })).body).toBe('version one');
  });

  test('JSON callers get the metadata, others the content', async () => {
    const metadata = await server.app.inject({ method: 'GET', url: '/v1/files/org/proj/doc', headers: { accept: 'application/json' } });
    expect(metadata.json()).toMatchObject({ '@type': 'File', _filename: 'b.txt', _rev: 3 });
    const content = await server.app.inject({ method: 'GET', url: '/v1/files/org/proj/doc', headers: { accept: '*/*' } });
    expect(content.body).toBe('version two');
    const refused = await server.app.inject({ method: 'GET', url: '/v1/files/org/proj/doc', headers: { accept: 'image/png' } });
    expect(refused.statusCode).toBe(406);
  });

  test('identical content is stored once', async () => {
    const before = (await storedFiles()).length;
    await upload('/v1/files/org/proj', 'copy1.txt', 'same bytes');
    await upload('/v1/files/org/proj', 'copy2.txt', 'same bytes');
    expect((await storedFiles()).length).toBe(before + 1);
  });

  test('a client holding the content (If-None-Match its ETag) gets 304 without it', async () => {
    const first = await server.app.inject({ method: 'GET', url: '/v1/files/org/proj/doc' });
    const etag = first.headers.etag as string;
    expect(etag).toBe(`"${sha256('version two')}"`);
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await server.app.inject({ method: 'GET', url: '/v1/files/org/proj/doc', headers: { 'if-none-match': header } });
      expect(again.statusCode).toBe(304);
      expect(again.body).toBe('');
      expect(again.headers.etag).toBe(etag);
    }
    const older = await server.app.inject({ method: 'GET', url: '/v1/files/org/proj/doc?rev=1', headers: { 'if-none-match': etag } });
    expect(older.statusCode).toBe(200);
    expect(older.body).toBe('version one');
  });

  test('a download evaluates If-Match and If-Unmodified-Since: 412 when the content is no longer the one named (they were ignored)', async () => {
    const current = await server.app.inject({ method: 'GET', url: '/v1/files/org/proj/doc' });
    const etag = current.headers.etag as string;
    const get = (headers: Record<string, string>) => server.app.inject({ method: 'GET', url: '/v1/files/org/proj/doc', headers });
    for (const header of [etag, `"other", ${etag}`, '*']) expect((await get({ 'if-match': header, range: 'bytes=0-3' })).statusCode).toBe(206);
    for (const header of [`"${sha256('version one')}"`, `W/${etag}`]) {
      const refused = await get({ 'if-match': header, range: 'bytes=0-3' });
      expect(refused.statusCode).toBe(412);
      expect(refused.json()).toMatchObject({ '@type': 'PreconditionFailed' });
      expect(refused.headers['content-range']).toBeUndefined();
    }
    expect((await get({ 'if-unmodified-since': 'Sat, 01 Jan 2000 00:00:00 GMT' })).statusCode).toBe(412);
    expect((await get({ 'if-unmodified-since': new Date(Date.now() + 86_400_000).toUTCString() })).statusCode).toBe(200);
    // If-Match wins over If-Unmodified-Since (RFC 9110 §13.1.4).
    expect((await get({ 'if-match': etag, 'if-unmodified-since': 'Sat, 01 Jan 2000 00:00:00 GMT' })).statusCode).toBe(200);
  });

  test('a name is measured in characters: 255 emoji are taken, as 255 letters are (they had been counted as 510)', async () => {
    const created = await upload('/v1/files/org/proj/emoji-name', `${'\u{1F9E0}'.repeat(251)}.txt`, 'x', 'text/plain', TOKENS.alice, 'PUT');
    expect(created.statusCode).toBe(201);
    expect(created.json()._filename).toBe(`${'\u{1F9E0}'.repeat(251)}.txt`);
    const over = await upload('/v1/files/org/proj/emoji-over', `${'\u{1F9E0}'.repeat(252)}.txt`, 'x', 'text/plain', TOKENS.alice, 'PUT');
    expect([over.statusCode, over.json()['@type']]).toEqual([400, 'InvalidFile']);
  });

  test('names are Unicode-safe in Content-Disposition', async () => {
    const created = (await upload('/v1/files/org/proj/unicode', 'résumé final.txt', 'x', 'text/plain', TOKENS.alice, 'PUT')).json();
    expect(created._filename).toBe('résumé final.txt');
    const response = await server.app.inject({ method: 'GET', url: '/v1/files/org/proj/unicode' });
    expect(response.headers['content-disposition']).toBe(
      `attachment; filename="r_sum_ final.txt"; filename*=UTF-8''${encodeURIComponent('résumé final.txt')}`,
    );
  });
});

describe('rejected uploads store nothing', () => {
  test.each([
    ['too large (413)', () => upload('/v1/files/org/proj', 'big.bin', 'x'.repeat(2048)), 413, 'FileTooLarge'],
    ['a file name over 255 characters (400)', () => upload('/v1/files/org/proj', `${'n'.repeat(256)}.txt`, 'x'), 400, 'InvalidFile'],
    ['a control character in the file name (400)', () => upload('/v1/files/org/proj', 'tab\there.txt', 'x'), 400, 'InvalidFile'],
    ['a C1 control character in the file name (400)', () => upload('/v1/files/org/proj', 'next\u0085line.txt', 'x'), 400, 'InvalidFile'],
    ['a bidirectional override in the file name, which shows it as another (400)', () => upload('/v1/files/org/proj', 'invoice\u202Efdp.exe', 'x'), 400, 'InvalidFile'],
    ['a zero-width space in the file name, which shows it as another (400)', () => upload('/v1/files/org/proj', 'in\u200Bvoice.pdf', 'x'), 400, 'InvalidFile'],
    ['a bidirectional isolate in the file name (400)', () => upload('/v1/files/org/proj', 'a\u2067b.txt', 'x'), 400, 'InvalidFile'],
    ['a path as the file name (400)', () => upload('/v1/files/org/proj', 'a/b.txt', 'x'), 400, 'InvalidFile'],
    ['a Windows path as the file name (400)', () => sendRaw([{ name: 'file', filename: 'a\\b.txt', type: 'text/plain', content: 'x' }]), 400, 'InvalidFile'],
    ['a file part without a name (400)', () => sendRaw([{ name: 'file', type: 'application/octet-stream', content: 'x' }]), 400, 'InvalidFile'],
    [
      'a second file part (400)',
      () =>
        sendRaw([
          { name: 'file', filename: 'first.txt', type: 'text/plain', content: 'first of two' },
          { name: 'file', filename: 'second.txt', type: 'text/plain', content: 'second of two' },
        ]),
      400,
      'InvalidFile',
    ],
    // The refused upload is drained, and its stream then fails on the second part: that failure must go unreported, not crash the process.
    [
      'a bad name and a second file part (400)',
      () =>
        sendRaw([
          { name: 'file', filename: '..', type: 'text/plain', content: 'first of two' },
          { name: 'other', filename: 'second.txt', type: 'text/plain', content: 'second of two' },
        ]),
      400,
      'InvalidFile',
    ],
    ['no files/write (403)', () => upload('/v1/files/org/proj', 'a.txt', 'x', 'text/plain', TOKENS.bob), 403, 'AuthorizationFailed'],
    ['an unknown storage (404)', () => upload('/v1/files/org/proj?storage=remote', 'a.txt', 'x'), 404, 'StorageNotFound'],
    ['an existing id (409)', () => upload('/v1/files/org/proj/doc', 'a.txt', 'fresh content', 'text/plain', TOKENS.alice, 'PUT'), 409, 'ResourceAlreadyExists'],
    ['a read-only project (400)', () => upload('/v1/files/literature/articles', 'a.txt', 'x'), 400, 'ProjectIsReadOnly'],
    [
      'a part not named file (400)',
      async () => {
        const body = await multipart('a.txt', 'x', 'text/plain', 'other');
        return server.app.inject({ method: 'POST', url: '/v1/files/org/proj', headers: { ...alice, ...body.headers }, payload: body.payload });
      },
      400,
      'InvalidFile',
    ],
    [
      'not multipart (415)',
      () => server.app.inject({ method: 'POST', url: '/v1/files/org/proj', headers: alice, payload: { not: 'multipart' } }),
      415,
      'UnsupportedMediaType',
    ],
  ])('%s', async (_name, send, status, type) => {
    const before = await storedFiles();
    const listing = (await server.app.inject({ method: 'GET', url: '/v1/resources/org/proj' })).json()._total;
    const response = await send();
    expect(response.statusCode).toBe(status);
    expect(response.json()['@type']).toBe(type);
    expect(await storedFiles()).toEqual(before);
    expect((await server.app.inject({ method: 'GET', url: '/v1/resources/org/proj' })).json()._total).toBe(listing);
  });
});

describe('file names and parts are taken as sent', () => {
  test.each([
    ['a/b.txt', () => upload('/v1/files/org/proj', 'a/b.txt', 'x')],
    ['a\\b.txt', () => sendRaw([{ name: 'file', filename: 'a\\b.txt', type: 'text/plain', content: 'x' }])],
    ['..', () => upload('/v1/files/org/proj', '..', 'x')],
    ['../x.txt', () => upload('/v1/files/org/proj', '../x.txt', 'x')],
  ])('the refusal of %s names the name sent', async (name, send) => {
    const response = await send();
    expect(response.statusCode).toBe(400);
    expect(response.json().reason).toContain(`File name '${name}' is not allowed`);
  });

  test('a part named file without a file name, or a file part named otherwise: the message says which', async () => {
    const field = await sendRaw([{ name: 'file', content: 'no file name' }]);
    expect(field.statusCode).toBe(400);
    expect(field.json().reason).toContain("The multipart body holds no file: a part named 'file' with a file name is needed");
    const misnamed = await sendRaw([{ name: 'upload', filename: 'a.txt', type: 'text/plain', content: 'x' }]);
    expect(misnamed.json()).toMatchObject({ '@type': 'InvalidFile', reason: "The multipart body's file part is named 'upload': it must be named 'file'." });
  });

  test('two file parts: the message says one file per request', async () => {
    const response = await sendRaw([
      { name: 'file', filename: 'first.txt', type: 'text/plain', content: 'first' },
      { name: 'file', filename: 'second.txt', type: 'text/plain', content: 'second' },
    ]);
    expect(response.json()).toMatchObject({ '@type': 'InvalidFile', reason: 'One file is uploaded per request: the body has a second file part.' });
  });

  test('text fields beside the file are ignored, as before', async () => {
    const response = await sendRaw([
      { name: 'comment', content: 'before' },
      { name: 'file', filename: 'fields.txt', type: 'text/plain', content: 'with fields' },
      { name: 'comment', content: 'after' },
    ]);
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({ _filename: 'fields.txt', _bytes: 11 });
  });
});

describe('files and resources share ids', () => {
  test('a resource is not served as a file, nor a file under a named schema (under _ it is: files-as-resources.test.ts)', async () => {
    await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/res', headers: alice, payload: { a: 1 } });
    expect((await server.app.inject({ method: 'GET', url: '/v1/files/org/proj/res' })).json()['@type']).toBe('FileNotFound');
    expect((await server.app.inject({ method: 'GET', url: '/v1/resources/org/proj/resource/doc' })).json()['@type']).toBe('ResourceNotFound');
  });
});

describe('listing files and their tags', () => {
  test('GET /v1/files/{org}/{project} pages through the files (not the resources), typed File; the resource listing holds both', async () => {
    await createProject(server.app, 'org', 'listed');
    for (const name of ['b', 'a', 'c']) await upload(`/v1/files/org/listed/${name}`, `${name}.txt`, name, 'text/plain', TOKENS.alice, 'PUT');
    await server.app.inject({ method: 'PUT', url: '/v1/resources/org/listed/_/r', headers: alice, payload: { a: 1 } });
    const page = await server.app.inject({ method: 'GET', url: '/v1/files/org/listed?from=1&size=1' });
    expect(page.statusCode).toBe(200);
    const base = `${BASE}/v1/resources/org/listed/_/`;
    expect(page.json()).toMatchObject({ _total: 3, _results: [{ '@id': `${base}b`, '@type': 'File', _filename: 'b.txt', _bytes: 1 }] });
    expect(page.json()._results).toHaveLength(1);
    const resources = await server.app.inject({ method: 'GET', url: '/v1/resources/org/listed' });
    expect(resources.json()).toMatchObject({
      _total: 4,
      _results: [{ '@id': `${base}a`, '@type': 'File' }, { '@id': `${base}b`, '@type': 'File' }, { '@id': `${base}c`, '@type': 'File' }, { '@id': `${base}r` }],
    });
    expect(resources.json()._results[3]).not.toHaveProperty('_filename');
    expect((await server.app.inject({ method: 'GET', url: '/v1/files/org/nothing' })).json()['@type']).toBe('ProjectNotFound');
  });

  test('GET …/tags lists a file\'s tags, as for resources', async () => {
    const tags = await server.app.inject({ method: 'GET', url: '/v1/files/org/proj/doc/tags' });
    expect(tags.statusCode).toBe(200);
    expect(tags.json()).toMatchObject({ tags: [{ tag: 'first', rev: 1 }] });
    expect((await server.app.inject({ method: 'GET', url: '/v1/files/org/proj/doc/tags?rev=1' })).json().tags).toEqual([]);
    expect((await server.app.inject({ method: 'GET', url: '/v1/files/org/proj/res/tags' })).json()['@type']).toBe('FileNotFound');
  });
});
