/**
 * File downloads honour one `Range` (RFC 9110 §14): 206 with `Content-Range` and exactly those bytes,
 * 416 for a range past the end, the whole file for what a server may ignore, and `If-Range` that
 * names other bytes. Every content answer says `Accept-Ranges: bytes`.
 */
import { appendFile, rm, truncate } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, test, vi } from 'vitest';
import { byteRangeOf, rangeStillApplies } from '../../src/http/platform/byte-range.js';
import { BlobStore } from '../../src/platform/blobs.js';
import { TOKENS, bearer, multipart, serverWithProject } from './helpers.js';

const server = serverWithProject();
const alice = bearer(TOKENS.alice);
const CONTENT = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));

async function uploaded(id: string, content: Buffer): Promise<string> {
  const body = await multipart('data.bin', content);
  const response = await server().app.inject({ method: 'PUT', url: `/v1/files/org/proj/${id}`, headers: { ...alice, ...body.headers }, payload: body.payload });
  expect(response.statusCode).toBe(201);
  return `/v1/files/org/proj/${id}`;
}

function download(url: string, headers: Record<string, string>) {
  return server().app.inject({ method: 'GET', url, headers: { ...alice, accept: '*/*', ...headers } });
}

describe('byteRangeOf', () => {
  test.each([
    ['bytes=0-9', { start: 0, end: 9 }],
    ['bytes=990-', { start: 990, end: 999 }],
    ['bytes=-10', { start: 990, end: 999 }],
    ['bytes=-5000', { start: 0, end: 999 }],
    ['bytes=500-5000', { start: 500, end: 999 }],
    ['BYTES = 7 - 7', { start: 7, end: 7 }],
  ])('%s selects %o of 1,000 bytes', (header, range) => {
    expect(byteRangeOf(header, 1000)).toEqual(range);
  });

  test.each(['bytes=1000-', 'bytes=1000-1001', 'bytes=-0', 'bytes=99999999999999999999-'])('%s is unsatisfiable', (header) => {
    expect(byteRangeOf(header, 1000)).toBe('unsatisfiable');
  });

  test.each([undefined, 'bytes=0-1,5-6', 'items=0-1', 'bytes=9-3', 'bytes=', 'bytes=a-b', 'bytes=0-1 junk'])('%s is answered whole', (header) => {
    expect(byteRangeOf(header, 1000)).toBe('whole');
  });

  test('an empty file is answered whole, whatever the range', () => {
    expect(byteRangeOf('bytes=0-', 0)).toBe('whole');
    expect(byteRangeOf('bytes=-1', 0)).toBe('whole');
  });

  test('If-Range applies the range only for the same entity tag', () => {
    expect(rangeStillApplies(undefined, '"abc"')).toBe(true);
    expect(rangeStillApplies(' "abc" ', '"abc"')).toBe(true);
    expect(rangeStillApplies('"other"', '"abc"')).toBe(false);
    expect(rangeStillApplies('W/"abc"', '"abc"')).toBe(false);
    expect(rangeStillApplies('Wed, 21 Oct 2026 07:28:00 GMT', '"abc"')).toBe(false);
  });
});

describe('GET /v1/files with Range', () => {
  test('a range answers 206 with those bytes and Content-Range', async () => {
    const url = await uploaded('ranged', CONTENT);
    const response = await download(url, { range: 'bytes=100-199' });
    expect(response.statusCode).toBe(206);
    expect(response.headers['content-range']).toBe('bytes 100-199/1000');
    expect(response.headers['content-length']).toBe('100');
    expect(response.headers['accept-ranges']).toBe('bytes');
    expect(response.rawPayload.equals(CONTENT.subarray(100, 200))).toBe(true);

    const tail = await download(url, { range: 'bytes=-24' });
    expect(tail.statusCode).toBe(206);
    expect(tail.headers['content-range']).toBe('bytes 976-999/1000');
    expect(tail.rawPayload.equals(CONTENT.subarray(976))).toBe(true);
  });

  test('a range past the end is 416 with the length, in the /v1 vocabulary', async () => {
    const url = await uploaded('past-end', CONTENT);
    const response = await download(url, { range: 'bytes=1000-' });
    expect(response.statusCode).toBe(416);
    expect(response.headers['content-range']).toBe('bytes */1000');
    expect(response.json()['@type']).toBe('RangeNotSatisfiable');
  });

  test('the whole file, with Accept-Ranges, without a range or for several', async () => {
    const url = await uploaded('whole', CONTENT);
    for (const headers of [{}, { range: 'bytes=0-1,5-6' }] as Record<string, string>[]) {
      const response = await download(url, headers);
      expect(response.statusCode).toBe(200);
      expect(response.headers['accept-ranges']).toBe('bytes');
      expect(response.headers['content-range']).toBeUndefined();
      expect(response.rawPayload.equals(CONTENT)).toBe(true);
    }
  });

  test('If-Range with the current entity tag resumes; with an old one sends the new bytes whole', async () => {
    const url = await uploaded('resumed', CONTENT);
    const etag = (await download(url, {})).headers.etag as string;
    const resumed = await download(url, { range: 'bytes=500-', 'if-range': etag });
    expect(resumed.statusCode).toBe(206);
    expect(resumed.rawPayload.equals(CONTENT.subarray(500))).toBe(true);

    const changed = Buffer.from('a new version of the file');
    const body = await multipart('data.bin', changed);
    const update = await server().app.inject({ method: 'PUT', url: `${url}?rev=1`, headers: { ...alice, ...body.headers }, payload: body.payload });
    expect(update.statusCode).toBe(200);
    const stale = await download(url, { range: 'bytes=500-', 'if-range': etag });
    expect(stale.statusCode).toBe(200);
    expect(stale.rawPayload.equals(changed)).toBe(true);
  });

  test('a range of an earlier revision reads that revision', async () => {
    const url = await uploaded('by-rev', CONTENT);
    const body = await multipart('data.bin', Buffer.from('second'));
    await server().app.inject({ method: 'PUT', url: `${url}?rev=1`, headers: { ...alice, ...body.headers }, payload: body.payload });
    const response = await download(`${url}?rev=1`, { range: 'bytes=0-3' });
    expect(response.statusCode).toBe(206);
    expect(response.rawPayload.equals(CONTENT.subarray(0, 4))).toBe(true);
  });

  test('HEAD ignores Range (RFC 9110 §14.2): the headers of the whole file, without reading it', async () => {
    const url = await uploaded('headed', CONTENT);
    const read = vi.spyOn(BlobStore.prototype, 'open');
    try {
      const response = await server().app.inject({ method: 'HEAD', url, headers: { ...alice, accept: '*/*', range: 'bytes=100-199' } });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-length']).toBe('1000');
      expect(response.headers['content-range']).toBeUndefined();
      expect(response.headers['accept-ranges']).toBe('bytes');
      expect(response.rawPayload.length).toBe(0);
      expect(read).not.toHaveBeenCalled();
    } finally {
      read.mockRestore();
    }
  });

  test('a download looks for its content on disk once, range or not', async () => {
    const url = await uploaded('looked-up', CONTENT);
    const lookups = vi.spyOn(BlobStore.prototype, 'sizeOf');
    try {
      for (const range of [undefined, 'bytes=0-9']) {
        lookups.mockClear();
        const response = await download(url, range === undefined ? {} : { range });
        expect(response.statusCode).toBe(range === undefined ? 200 : 206);
        expect(lookups).toHaveBeenCalledTimes(1);
      }
    } finally {
      lookups.mockRestore();
    }
  });

  test('a file whose content went missing is 404 FileContentNotFound, whatever the range, HEAD included', async () => {
    const url = await uploaded('lost', CONTENT);
    const digest = (await download(url, { accept: 'application/ld+json' })).json()._digest._value as string;
    await rm(path.join(server().dataDir, 'platform', 'files', 'sha256', digest.slice(0, 2), digest.slice(2, 4), digest));
    for (const method of ['GET', 'HEAD'] as const) {
      for (const range of ['bytes=0-9', 'bytes=1000-']) {
        const response = await server().app.inject({ method, url, headers: { ...alice, accept: '*/*', range } });
        expect({ method, range, status: response.statusCode }).toEqual({ method, range, status: 404 });
        expect(response.headers['content-range']).toBeUndefined();
        // A HEAD answer has no body to name the error.
        if (method === 'GET') expect(response.json()['@type']).toBe('FileContentNotFound');
      }
    }
  });

  test('a content cut short or grown on disk is 404 FileContentNotFound saying so, before any byte (it was 200 with fewer bytes than its Content-Length)', async () => {
    const url = await uploaded('damaged', CONTENT);
    const digest = (await download(url, { accept: 'application/ld+json' })).json()._digest._value as string;
    const stored = path.join(server().dataDir, 'platform', 'files', 'sha256', digest.slice(0, 2), digest.slice(2, 4), digest);
    for (const [change, size] of [[() => truncate(stored, 400), 400], [() => appendFile(stored, Buffer.alloc(1000, 1)), 1400]] as const) {
      await change();
      for (const range of [undefined, 'bytes=0-9']) {
        const response = await download(url, range === undefined ? {} : { range });
        expect(response.statusCode).toBe(404);
        expect(response.headers['content-length']).not.toBe(String(CONTENT.length));
        expect(response.json()).toMatchObject({
          '@type': 'FileContentNotFound',
          reason: expect.stringContaining(`is damaged in the server's storage: ${size} bytes where ${CONTENT.length} were stored`),
        });
      }
    }
  });
});
