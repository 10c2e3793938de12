import { Readable } from 'node:stream';
import { expect, test } from 'vitest';
import type { ResolvedFile } from '../../src/archive/resolve.js';
import { zipStream } from '../../src/archive/zip.js';
import { unzip } from './unzip.js';

function fileEntry(name: string, bytes: number, mediaType = 'application/octet-stream'): ResolvedFile {
  const state = { updatedAt: Date.parse('2025-01-01T00:00:00Z'), file: { digest: 'x', bytes, filename: name, mediaType } } as ResolvedFile['state'];
  return { name, state, project: {} as ResolvedFile['project'], kind: 'file' };
}

/** An endless-enough source that records whether it was opened and closed. */
function trackedSource(bytes: number) {
  const events: string[] = [];
  let sent = 0;
  const stream = new Readable({
    read() {
      if (sent >= bytes) return void this.push(null);
      const chunk = Buffer.alloc(Math.min(64 * 1024, bytes - sent), sent % 251);
      sent += chunk.length;
      this.push(chunk);
    },
  });
  stream.once('close', () => events.push('closed'));
  return { stream, events };
}

test('sources are opened one at a time, only when the writer reaches them', async () => {
  const opened: string[] = [];
  const entries = [fileEntry('a.bin', 10), fileEntry('b.bin', 10), fileEntry('c.bin', 10)];
  const output = zipStream(
    entries,
    {
      render: () => Promise.reject(new Error('no resources here')),
      compressible: async () => true,
      open: (entry) => {
        opened.push(entry.name);
        return Readable.from([Buffer.alloc(10, 1)]);
      },
    },
    () => {},
  );
  expect(opened.length).toBeLessThanOrEqual(1);
  const chunks: Buffer[] = [];
  for await (const chunk of output) chunks.push(chunk as Buffer);
  expect(opened).toEqual(['a.bin', 'b.bin', 'c.bin']);
  expect((await unzip(Buffer.concat(chunks))).names).toEqual(['a.bin', 'b.bin', 'c.bin']);
});

test.each([
  ['deflated', true],
  ['stored (read twice)', false],
])('when the reader goes away, the source being read is closed (%s)', async (_, compressible) => {
  const sources: ReturnType<typeof trackedSource>[] = [];
  const output = zipStream(
    [fileEntry('big.bin', 64 * 1024 * 1024)],
    {
      render: () => Promise.reject(new Error('none')),
      compressible: async () => compressible,
      open: () => {
        sources.push(trackedSource(64 * 1024 * 1024));
        return sources.at(-1)!.stream;
      },
    },
    () => {},
  );
  await new Promise<void>((resolve) => output.once('data', () => resolve()));
  output.destroy();
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(sources.map((source) => source.events)).toEqual(sources.map(() => ['closed']));
  expect(sources).toHaveLength(compressible ? 1 : 2);
});

test.each([
  ['other bytes', Buffer.alloc(1000, 8), 'its content changed since its checksum was taken'],
  ['more bytes', Buffer.alloc(1001, 7), 'its content changed since its checksum was taken'],
])('a stored file with %s on its second read cuts the ZIP short and is reported', async (_, second, message) => {
  const errors: Error[] = [];
  const reads = [Buffer.alloc(1000, 7), second];
  const output = zipStream(
    [fileEntry('packed.bin', 1000)],
    { render: () => Promise.reject(new Error('none')), compressible: async () => false, open: () => Readable.from([reads.shift()!]) },
    (e) => errors.push(e),
  );
  await expect(
    (async () => {
      for await (const _ of output);
    })(),
  ).rejects.toThrow(message);
  expect(errors.map((e) => e.message)).toEqual([expect.stringContaining(message)]);
});

test('a stored file whose size on disk is not the recorded one cuts the ZIP short and is reported', async () => {
  const errors: Error[] = [];
  const output = zipStream(
    [fileEntry('packed.bin', 1000)],
    { render: () => Promise.reject(new Error('none')), compressible: async () => false, open: () => Readable.from([Buffer.alloc(999)]) },
    (e) => errors.push(e),
  );
  await expect(
    (async () => {
      for await (const _ of output);
    })(),
  ).rejects.toThrow("is damaged in the server's storage: 999 bytes where 1000 were stored");
  expect(errors).toHaveLength(1);
  // Typed as the file's own download answers it: a 404 when nothing was sent yet (it had been a 500).
  expect(errors[0]).toMatchObject({ status: 404, type: 'FileContentNotFound' });
});

test('a failing source cuts the ZIP short and is reported', async () => {
  const errors: Error[] = [];
  const failing = new Readable({
    read() {
      this.destroy(new Error('disk went away'));
    },
  });
  const output = zipStream([fileEntry('x.bin', 100)], { render: () => Promise.reject(new Error('none')), compressible: async () => true, open: () => failing }, (e) => errors.push(e));
  await expect(
    (async () => {
      for await (const _ of output);
    })(),
  ).rejects.toThrow('disk went away');
  expect(errors.map((e) => e.message)).toEqual(['disk went away']);
});

test('each file is deflated or stored as the compressibility check says', async () => {
  const output = zipStream(
    [fileEntry('packed.bin', 1000), fileEntry('plain.txt', 1000)],
    {
      render: () => Promise.reject(new Error('none')),
      compressible: async (entry) => entry.name === 'plain.txt',
      open: () => Readable.from([Buffer.alloc(1000, 7)]),
    },
    () => {},
  );
  const chunks: Buffer[] = [];
  for await (const chunk of output) chunks.push(chunk as Buffer);
  const zip = await unzip(Buffer.concat(chunks));
  expect(zip.methods).toEqual(new Map([['packed.bin', 0], ['plain.txt', 8]]));
  expect(zip.entries.get('packed.bin')).toEqual(Buffer.alloc(1000, 7));
});
