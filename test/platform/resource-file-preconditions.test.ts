/**
 * A resource or file write that its target refuses anyway is answered with that refusal, not 412, whatever
 * its preconditions say (RFC 9110 §13.2.1), as organization and project writes are
 * (org-project-preconditions.test.ts). The order is the write's permission, then everything the write itself
 * would refuse before reading its content (an upload's storage that does not exist, a project that takes no
 * writes, a file changed through the resource routes, an entity that does not exist, a stale `rev`, a
 * deprecated entity, one not deprecated for an undeprecation, the deletion of a tag not held, another upload
 * of the file in progress), then If-Match, If-Unmodified-Since and If-None-Match, then what the content is
 * refused for (a payload, a new tag's name, an upload's file name). Every refused write here changes nothing.
 */
import { Readable } from 'node:stream';
import type { InjectOptions } from 'fastify';
import { beforeAll, describe, expect, test } from 'vitest';
import { TOKENS, bearer, multipart, serverWithProject } from './helpers.js';

const server = serverWithProject();
const alice = bearer(TOKENS.alice);

function send(request: InjectOptions) {
  return server().app.inject({ ...request, headers: { ...alice, ...request.headers } });
}

/** Preconditions each false for any existing resource or file: none of them carries the tag "x", and each changed after 1990. */
const FALSE_FOR_EXISTING = [{ 'if-match': '"x"' }, { 'if-none-match': '*' }, { 'if-unmodified-since': 'Mon, 01 Jan 1990 00:00:00 GMT' }];
/** Preconditions each false for a target that does not exist: If-Match, naming any tag or `*`. */
const FALSE_FOR_MISSING = [{ 'if-match': '*' }, { 'if-match': '"x"' }];
/** Preconditions each false for a project's collection, which has no tag and no date. */
const FALSE_FOR_COLLECTION = FALSE_FOR_EXISTING.slice(0, 2);

type Write = { method: 'PUT' | 'POST' | 'DELETE'; url: string; payload?: object; headers?: Record<string, string> };

/** A file upload to `url` (PUT: a creation or an update; POST: a creation). */
async function upload(method: 'PUT' | 'POST', url: string): Promise<Write> {
  const body = await multipart('notes.txt', 'content', 'text/plain');
  return { method, url, headers: body.headers, payload: body.payload };
}

/** Every entity of the project, files included, with its latest revision: what a refused write must leave as it was. */
async function projectState(): Promise<unknown> {
  const listing = (await send({ method: 'GET', url: '/v1/resources/org/proj?size=100' })).json();
  return listing._results.map((entity: Record<string, unknown>) => [entity['@id'], entity._rev]);
}

/** [status, @type] of a response. */
function refusalOf(response: { statusCode: number; json(): Record<string, unknown> }): [number, unknown] {
  return [response.statusCode, response.json()['@type']];
}

/**
 * Expects `write` refused with `unconditional` (its status and @type) without a precondition and with
 * `conditional` (by default the same) with each false one, changing nothing.
 */
async function expectRefused(write: Write, refusal: [number, string], falsePreconditions = FALSE_FOR_EXISTING, conditionalRefusal = refusal) {
  const before = await projectState();
  const unconditional = refusalOf(await send(write));
  const conditional: [number, unknown][] = [];
  for (const precondition of falsePreconditions) conditional.push(refusalOf(await send({ ...write, headers: { ...write.headers, ...precondition } })));
  const { method, url } = write;
  const expected = { method, url, unconditional: refusal, conditional: falsePreconditions.map(() => conditionalRefusal) };
  expect({ method, url, unconditional, conditional }).toEqual(expected);
  expect(await projectState()).toEqual(before);
}

/** Every change of the resource (`/v1/resources/org/proj/_/{id}`) or file (`/v1/files/org/proj/{id}`) at `url` from revision `rev`. */
async function changesOf(url: string, rev: number): Promise<Write[]> {
  const isFile = url.startsWith('/v1/files/');
  return [
    isFile ? await upload('PUT', `${url}?rev=${rev}`) : { method: 'PUT', url: `${url}?rev=${rev}`, payload: { name: 'changed' } },
    { method: 'POST', url: `${url}/tags?rev=${rev}`, payload: { tag: 'new', rev: 1 } },
    { method: 'DELETE', url: `${url}/tags/held?rev=${rev}` },
    { method: 'DELETE', url: `${url}?rev=${rev}` },
    { method: 'PUT', url: `${url}/undeprecate?rev=${rev}` },
  ];
}

/**
 * The changes of the entity at `url` from revision `rev` whose content is refused: an update with a payload naming
 * another id (a resource) or an upload named `..` (a file), and a tag named `latest` (reserved).
 */
async function changesWithRefusedContentOf(url: string, rev: number): Promise<Write[]> {
  const update: Write = url.startsWith('/v1/files/')
    ? { method: 'PUT', url: `${url}?rev=${rev}`, ...(await multipart('..', 'content', 'text/plain')) }
    : { method: 'PUT', url: `${url}?rev=${rev}`, payload: { '@id': 'http://elsewhere.test/other' } };
  return [update, { method: 'POST', url: `${url}/tags?rev=${rev}`, payload: { tag: 'latest', rev: 1 } }];
}

/** The changes of `changesOf` but the undeprecation: those a deprecated entity refuses. */
async function changesButUndeprecationOf(url: string, rev: number): Promise<Write[]> {
  return (await changesOf(url, rev)).filter((write) => !write.url.includes('/undeprecate'));
}

const RESOURCE = '/v1/resources/org/proj/_/live';
const DEPRECATED_RESOURCE = '/v1/resources/org/proj/_/asleep';
const FILE = '/v1/files/org/proj/live-file';
const DEPRECATED_FILE = '/v1/files/org/proj/asleep-file';

/** Creates the entity at `url` (a resource or a file) at revision 2, tagged `held`, then deprecates it if asked. */
async function createTagged(url: string, deprecated: boolean): Promise<void> {
  const created = url.startsWith('/v1/files/') ? await send(await upload('PUT', url)) : await send({ method: 'PUT', url, payload: { name: 'first' } });
  expect(created.statusCode).toBe(201);
  expect((await send({ method: 'POST', url: `${url}/tags?rev=1`, payload: { tag: 'held', rev: 1 } })).statusCode).toBe(201);
  if (deprecated) expect((await send({ method: 'DELETE', url: `${url}?rev=2` })).statusCode).toBe(200);
}

beforeAll(async () => {
  await createTagged(RESOURCE, false);
  await createTagged(DEPRECATED_RESOURCE, true);
  await createTagged(FILE, false);
  await createTagged(DEPRECATED_FILE, true);
});

describe.each([
  ['resource', RESOURCE, DEPRECATED_RESOURCE, '/v1/resources/org/proj/_/nowhere', 'ResourceNotFound', 'Resource'],
  // A file's refusals in a file's words, as Nexus's: they had been ResourceIsDeprecated and ResourceIsNotDeprecated.
  ['file', FILE, DEPRECATED_FILE, '/v1/files/org/proj/nowhere', 'FileNotFound', 'File'],
])('a %s write its target refuses', (_kind, live, deprecated, missing, notFound, entity) => {
  test("answers the write's 404 to every change of one that does not exist, If-Match or not", async () => {
    for (const write of await changesOf(missing, 1)) await expectRefused(write, [404, notFound], FALSE_FOR_MISSING);
  });

  test("answers the write's refusal of every change of a deprecated one but its undeprecation", async () => {
    for (const write of await changesButUndeprecationOf(deprecated, 3)) await expectRefused(write, [400, `${entity}IsDeprecated`]);
  });

  test("answers the write's refusal of a live one's undeprecation", async () => {
    await expectRefused({ method: 'PUT', url: `${live}/undeprecate?rev=2` }, [400, `${entity}IsNotDeprecated`]);
  });

  test("answers the write's refusal of the deletion of a tag it does not hold", async () => {
    await expectRefused({ method: 'DELETE', url: `${live}/tags/none?rev=2` }, [404, 'TagNotFound']);
  });

  test('answers 409 for a stale revision, to every change', async () => {
    for (const write of await changesOf(live, 7)) await expectRefused(write, [409, 'IncorrectRev']);
  });

  test('answers 409 for a stale revision before what the content is refused for, with or without a precondition', async () => {
    for (const write of await changesWithRefusedContentOf(live, 7)) await expectRefused(write, [409, 'IncorrectRev']);
  });
});

describe('content a write refuses', () => {
  test.each([
    ['resource', RESOURCE, ['UnexpectedId', 'DecodingFailed']],
    ['file', FILE, ['InvalidFile', 'DecodingFailed']],
  ])("comes after the preconditions: a false one answers 412, none the content's 400 (%s)", async (_kind, live, types) => {
    const writes = await changesWithRefusedContentOf(live, 2);
    for (const [i, write] of writes.entries()) await expectRefused(write, [400, types[i]!], FALSE_FOR_EXISTING, [412, 'PreconditionFailed']);
  });
});

describe('a file update while another upload of the file is in progress', () => {
  test('answers 409, with a false precondition too', async () => {
    const url = '/v1/files/org/proj/busy-file';
    expect((await send(await upload('PUT', url))).statusCode).toBe(201);
    const body = await multipart('notes.txt', 'second', 'text/plain');
    // An upload whose body is sent when the test says so: once its write starts reading it, the write holds the file.
    let startReading!: () => void;
    const reading = new Promise<void>((resolve) => (startReading = resolve));
    const content = new Readable({ read: () => startReading() });
    const first = send({ method: 'PUT', url: `${url}?rev=1`, headers: body.headers, payload: content });
    await reading;
    await expectRefused(await upload('PUT', `${url}?rev=1`), [409, 'IncorrectRev']);
    content.push(body.payload);
    content.push(null);
    expect((await first).statusCode).toBe(200);
  });
});

describe('a file creation while another upload is creating the same id', () => {
  test('answers 409 saying that upload is in progress, not that the file exists (it may never)', async () => {
    const url = '/v1/files/org/proj/being-created';
    const body = await multipart('notes.txt', 'first', 'text/plain');
    let startReading!: () => void;
    const reading = new Promise<void>((resolve) => (startReading = resolve));
    const content = new Readable({ read: () => startReading() });
    const first = send({ method: 'PUT', url, headers: body.headers, payload: content });
    await reading;
    const second = await send(await upload('PUT', url));
    expect(second.statusCode).toBe(409);
    // It had said "Resource '…' already exists" of a file that did not exist yet.
    expect(second.json().reason).toMatch(/^File '.*being-created' is being created in project 'org\/proj' by another upload in progress; retry once it has ended\.$/);
    content.push(body.payload);
    content.push(null);
    expect((await first).statusCode).toBe(201);
  });
});

describe('a file changed through the resource routes', () => {
  test("answers the write's refusal of every change", async () => {
    for (const write of await changesOf('/v1/resources/org/proj/_/live-file', 2)) await expectRefused(write, [400, 'ResourceIsAFile']);
  });
});

describe('a file upload to a storage that does not exist', () => {
  test("answers the write's 404 to an update, and to a creation over an existing file or in the collection", async () => {
    await expectRefused(await upload('PUT', `${FILE}?rev=2&storage=elsewhere`), [404, 'StorageNotFound']);
    await expectRefused(await upload('PUT', `${FILE}?storage=elsewhere`), [404, 'StorageNotFound']);
    await expectRefused(await upload('POST', '/v1/files/org/proj?storage=elsewhere'), [404, 'StorageNotFound'], FALSE_FOR_COLLECTION);
  });
});
