import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { expect, test } from 'vitest';
import yauzl from 'yauzl';
import { ZipWriter, checksumOf, deflatedMayReach4GiB } from '../../src/archive/zip-writer.js';
import { readFrontToBack } from './front-to-back-unzip.js';
import { unzip } from './unzip.js';

const modified = new Date('2025-03-04T05:06:07.800Z');
// Contents are compared by digest: a deep comparison of large buffers, byte by byte, takes seconds.
const sha256 = (content: Buffer) => createHash('sha256').update(content).digest('hex');

async function bytesOf(output: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of output) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Writes `add` into a writer, ends it, and gives the whole ZIP. */
async function written(add: (zip: ZipWriter) => Promise<void>): Promise<Buffer> {
  const zip = new ZipWriter();
  const bytes = bytesOf(zip.output);
  await add(zip);
  await zip.end();
  return bytes;
}

function slices(content: Buffer, size = 1000): Readable {
  const parts: Buffer[] = [];
  for (let at = 0; at < content.length; at += size) parts.push(content.subarray(at, at + size));
  return Readable.from(parts);
}

async function addStored(zip: ZipWriter, name: string, content: Buffer): Promise<void> {
  await zip.addStored({ name, modified }, slices(content), await checksumOf(slices(content)));
}

test('stored and deflated entries read back the same through the central directory (yauzl) and front to back', async () => {
  const random = randomBytes(100_000);
  const text = Buffer.from('a line of text\n'.repeat(10_000));
  const zip = await written(async (zip) => {
    await addStored(zip, 'random.bin', random);
    await addStored(zip, 'empty.bin', Buffer.alloc(0));
    await zip.addDeflated({ name: 'dir/text – é.txt', modified }, slices(text), { exactBytes: text.length, mayReach4GiB: false });
    await zip.addDeflated({ name: 'rendered.json', modified }, slices(text, 64 * 1024), { exactBytes: null, mayReach4GiB: false });
    // Announced as one that may reach 4 GiB: its data descriptor's sizes are 8 bytes.
    await zip.addDeflated({ name: 'announced.txt', modified }, slices(text), { exactBytes: text.length, mayReach4GiB: true });
  });
  const names = ['random.bin', 'empty.bin', 'dir/text – é.txt', 'rendered.json', 'announced.txt'];
  const contents = [random, Buffer.alloc(0), text, text, text];
  const central = await unzip(zip);
  expect(central.names).toEqual(names);
  expect(names.map((name) => sha256(central.entries.get(name)!))).toEqual(contents.map(sha256));
  expect(names.map((name) => central.methods.get(name))).toEqual([0, 0, 8, 8, 8]);
  // Seconds in the extended timestamp field; the DOS field, in local time, keeps even seconds.
  const dosTime = new Date(modified.getFullYear(), modified.getMonth(), modified.getDate(), modified.getHours(), modified.getMinutes(), modified.getSeconds() & ~1);
  expect(central.modified.get('random.bin')).toEqual({ extended: new Date('2025-03-04T05:06:07Z'), dos: dosTime });
  expect(readFrontToBack(zip).map((entry) => ({ ...entry, content: sha256(entry.content) }))).toEqual(
    names.map((name, i) => ({ name, method: [0, 0, 8, 8, 8][i], content: sha256(contents[i]!), zip64: name === 'announced.txt' })),
  );
});

test('an empty archive is the end record alone', async () => {
  const zip = await written(async () => {});
  expect(zip).toHaveLength(22);
  expect((await unzip(zip)).names).toEqual([]);
  expect(readFrontToBack(zip)).toEqual([]);
});

test('65,535 entries: the count goes to the ZIP64 end records', async () => {
  const count = 0xffff;
  const zip = await written(async (zip) => {
    for (let i = 0; i < count; i++) await zip.addStored({ name: String(i), modified }, Readable.from([]), { crc: 0, bytes: 0 });
  });
  // The end record's 16-bit count says "see ZIP64" (0xFFFF); yauzl reads the count and every central header.
  expect(zip.readUInt16LE(zip.length - 22 + 10)).toBe(0xffff);
  // Joined: a deep comparison of 65,535 strings takes seconds.
  expect((await centralDirectoryNames(zip)).join()).toBe(Array.from({ length: count }, (_, i) => String(i)).join());
});

/** The entry names of the central directory (yauzl), checking that it holds as many as the end records say. */
function centralDirectoryNames(zip: Buffer): Promise<string[]> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(zip, { lazyEntries: true }, (error, file) => {
      if (error) return reject(error);
      const names: string[] = [];
      file.on('entry', (entry: yauzl.Entry) => {
        names.push(entry.fileName);
        file.readEntry();
      });
      file.once('end', () => (names.length === file.entryCount ? resolve(names) : reject(new Error(`${names.length} of ${file.entryCount} entries`))));
      file.once('error', reject);
      file.readEntry();
    });
  });
}

test('stored content that differs from its checksum fails, and the slice that shows a wrong CRC never goes out', async () => {
  const content = Buffer.alloc(5000, 1);
  const expected = await checksumOf(slices(content));
  const header = 30 + 'a.bin'.length;
  const changedLastByte = Buffer.from(content);
  changedLastByte[4999] = 2;
  // In slices of 1,000 bytes: what each changed content lets out before it is refused.
  for (const [second, problem, sent] of [
    [changedLastByte, 'CRC-32', header + 4000],
    [Buffer.concat([content, Buffer.alloc(1)]), 'at least 5001 bytes', header + 5000],
    [content.subarray(0, 4000), 'at least 4000 bytes', header + 4000],
  ] as const) {
    const zip = new ZipWriter();
    const chunks: Buffer[] = [];
    zip.output.on('data', (chunk: Buffer) => chunks.push(chunk));
    await expect(zip.addStored({ name: 'a.bin', modified }, slices(second), expected)).rejects.toThrow(problem);
    await new Promise((resolve) => setImmediate(resolve)); // what was pushed is emitted
    expect(Buffer.concat(chunks).length).toBe(sent);
  }
});

test('the writer reads its source no faster than the output is read', async () => {
  // Random, so deflated it is as large as it was: what the output holds back is what the source gave.
  const slice = randomBytes(64 * 1024);
  let pulled = 0;
  const source = new Readable({
    read() {
      pulled += slice.length;
      this.push(pulled > 64 * 1024 ** 2 ? null : slice);
    },
  });
  const zip = new ZipWriter();
  zip.addDeflated({ name: 'big.txt', modified }, source, { exactBytes: null, mayReach4GiB: false }).catch(() => {});
  await new Promise<void>((resolve) => zip.output.once('data', () => resolve()));
  zip.output.pause();
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(pulled).toBeLessThan(8 * 1024 ** 2);
  zip.output.destroy();
  source.destroy();
});

test('an entry may reach 4 GiB deflated from a little under 4 GiB of content (deflate can grow incompressible data)', () => {
  expect(deflatedMayReach4GiB(2 ** 32 - 1)).toBe(true);
  expect(deflatedMayReach4GiB(2 ** 32 - 2 ** 20)).toBe(true);
  expect(deflatedMayReach4GiB(2 ** 32 - 2 ** 25)).toBe(false);
  expect(deflatedMayReach4GiB(0)).toBe(false);
});
