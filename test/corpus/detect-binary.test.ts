/**
 * Detection names the files people find beside their articles (archives, compressed files, PDFs, images, an
 * index's own files) for what they are, rather than as UTF-16 text to convert with iconv; an empty file as
 * empty, and a JSON array with the command that makes JSON lines of it. UTF-16 text is still named UTF-16.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../src/corpus/readers/index.js';
import { article, writeIndex } from '../search/helpers.js';
import { fixtureDir, writeFixture } from './fixtures.js';

/** A tar archive's first header block (512 bytes: the member's name, then "ustar" at 257), followed by the member's text. */
function tarOf(name: string, text: string): Buffer {
  const header = Buffer.alloc(512);
  header.write(name, 0, 'latin1');
  header.write('0000644\0', 100, 'latin1');
  header.write('ustar\u000000', 257, 'latin1');
  const body = Buffer.alloc(512);
  body.write(text, 0, 'utf8');
  return Buffer.concat([header, body, Buffer.alloc(1024)]);
}

const LINE = `${JSON.stringify({ article_id: 'a1', title: 'T', paragraphs: [{ section: 'S', text: 'x' }] })}\n`;
/** Bytes after each signature, as such files go on: not UTF-8, with NUL bytes. */
const BINARY_TAIL = Buffer.from([0x00, 0x14, 0x00, 0x08, 0xe2, 0xe3, 0xcf, 0xd3, 0x00, 0x00, 0x9c, 0xff]);

describe('detectFormat of a binary file', () => {
  it.each([
    ['papers.zip', Buffer.from('PK\x03\x04', 'latin1'), 'a ZIP archive (a .docx, .xlsx or .epub is one too): not an article file'],
    ['paper.docx', Buffer.from('PK\x03\x04', 'latin1'), 'a ZIP archive (a .docx, .xlsx or .epub is one too)'],
    ['corpus.jsonl.xz', Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]), 'xz-compressed (only gzip is read as it is): decompress it first (xz -dk '],
    ['corpus.jsonl.bz2', Buffer.from('BZh91AY&SY', 'latin1'), 'bzip2-compressed (only gzip is read as it is): decompress it first (bunzip2 -k '],
    ['paper.pdf', Buffer.from('%PDF-1.7\n%', 'latin1'), 'a PDF document: not an article file'],
    ['figure.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), 'a PNG image: not an article file'],
    ['figure.jpg', Buffer.from([0xff, 0xd8, 0xff, 0xe0]), 'a JPEG image: not an article file'],
    ['figure.gif', Buffer.from('GIF89a', 'latin1'), 'a GIF image: not an article file'],
    ['figure.tif', Buffer.from('II*\x00', 'latin1'), 'a TIFF image: not an article file'],
  ])('names %s for what it is', async (name, signature, said) => {
    const dir = await fixtureDir();
    const file = await writeFixture(dir, name, Buffer.concat([signature, BINARY_TAIL]));
    const error = await detectFormat(file).catch((caught: Error) => caught);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain(`Cannot read ${file}: it is ${said}`);
    expect((error as Error).message).not.toContain('iconv');
  });

  it('names a tar archive, gzipped or not, which holds NUL bytes that read as UTF-16', async () => {
    const dir = await fixtureDir();
    const tar = await writeFixture(dir, 'papers.tar', tarOf('papers/a.jsonl', LINE));
    const tarGz = await writeFixture(dir, 'papers.tar.gz', gzipSync(tarOf('papers/a.jsonl', LINE)));
    await expect(detectFormat(tar)).rejects.toThrow(`Cannot read ${tar}: it is a tar archive: not an article file (inputs are JSON lines or XML); extract it first (tar -xf ${tar})`);
    await expect(detectFormat(tarGz)).rejects.toThrow(`Cannot read ${tarGz}: it is a gzipped tar archive (.tar.gz): not an article file (inputs are JSON lines or XML); extract it first (tar -xzf ${tarGz})`);
  });

  it("names an index's own segment and stored-fields files as part of an index", async () => {
    const dir = await fixtureDir();
    const index = path.join(dir, 'index');
    await writeIndex(index, [article('a1', ['Place cells.'])]);
    const names = await readdir(index);
    const segment = names.find((name) => name.endsWith('.seg'))!;
    const stored = names.find((name) => name.endsWith('.stored'))!;
    await expect(detectFormat(path.join(index, segment))).rejects.toThrow(`it is a litserve segment file (.seg), part of an index, not an input`);
    await expect(detectFormat(path.join(index, stored))).rejects.toThrow(`it is a litserve stored-fields file (.stored), part of an index, not an input`);
  });

  it('still names UTF-16 text as UTF-16', async () => {
    const dir = await fixtureDir();
    const withMark = await writeFixture(dir, 'bom.jsonl', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(LINE, 'utf16le')]));
    const bigEndian = await writeFixture(dir, 'be.jsonl', Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(LINE, 'utf16le').swap16()]));
    for (const file of [withMark, bigEndian]) await expect(detectFormat(file)).rejects.toThrow(`Cannot read ${file}: it is not UTF-8 (UTF-16, say`);
  });

  it('names random bytes as binary data, not UTF-16 (the advice had sent them to iconv)', async () => {
    const dir = await fixtureDir();
    // Seeded bytes with a few NULs among them, as random data has.
    let seed = 99;
    const bytes = Buffer.from(Array.from({ length: 4096 }, () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 24));
    // From its first byte no UTF-8 (as the round's file was), a few NULs further on.
    [bytes[0], bytes[1], bytes[10], bytes[301]] = [0xff, 0x80, 0, 0];
    const file = await writeFixture(dir, 'random.bin', bytes);
    await expect(detectFormat(file)).rejects.toThrow(`Cannot read ${file}: it is binary data, not text (inputs are JSON lines or XML, in UTF-8)`);
  });
});

describe('detectFormat of a file with nothing to read', () => {
  it('says that an empty file is empty, gzipped or not, and one of white space only', async () => {
    const dir = await fixtureDir();
    const empty = await writeFixture(dir, 'empty.jsonl', '');
    const emptyGz = await writeFixture(dir, 'empty.jsonl.gz', gzipSync(''));
    const blank = await writeFixture(dir, 'blank.jsonl', '\n \n');
    await expect(detectFormat(empty)).rejects.toThrow(`Cannot read ${empty}: it is empty, with no records to read`);
    await expect(detectFormat(emptyGz)).rejects.toThrow(`Cannot read ${emptyGz}: it is empty once gunzipped, with no records to read`);
    await expect(detectFormat(blank)).rejects.toThrow(`Cannot read ${blank}: it is only white space, with no records to read`);
  });

  it('says that a JSON array is not JSON lines, and how to make JSON lines of it', async () => {
    const dir = await fixtureDir();
    const records = [{ article_id: 'a1', title: 'T', paragraphs: [] }, { article_id: 'a2', title: 'T', paragraphs: [] }];
    const json = await writeFixture(dir, 'articles.json', JSON.stringify(records, null, 2));
    const jsonl = await writeFixture(dir, 'articles.jsonl', JSON.stringify(records));
    await expect(detectFormat(json)).rejects.toThrow(`Cannot read ${json}: it is a JSON array; inputs are JSON lines, one object per line: convert it first (jq -c '.[]' ${json} > ${path.join(dir, 'articles.jsonl')})`);
    // Never the file's own name: the shell would empty it before jq reads it.
    await expect(detectFormat(jsonl)).rejects.toThrow(`(jq -c '.[]' ${jsonl} > ${path.join(dir, 'articles.lines.jsonl')})`);
  });
});
