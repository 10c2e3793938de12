/**
 * A merge reads each copied article's stored fragment for its filter
 * columns. An uncompressed fragment changed in place so that it is still
 * JSON but lacks a member is damage too: the merge refuses, naming the
 * stored file, rather than failing on a TypeError that names nothing or
 * writing a segment without the article's id. The fragment's checksum finds
 * it before its members are looked at.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { mergeAll } from '../../src/search/merge.js';
import { readManifest, storedFile } from '../../src/search/manifest.js';
import { randomArticles, tempDir, writeIndex } from './helpers.js';

describe('a merge over a stored fragment changed in place', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ dir, cleanup } = await tempDir()));
  afterEach(() => cleanup());

  const snapshotOf = async () => ({ files: (await readdir(dir)).sort(), manifest: await readFile(path.join(dir, 'manifest.json'), 'utf8') });

  it.each(['article_id', 'article_authors', 'date'])('refuses, naming the stored file, when the last article has no %s', async (member) => {
    await writeIndex(dir, randomArticles(30, 1, 'a'), undefined, 'none');
    await writeIndex(dir, randomArticles(30, 2, 'b'), undefined, 'none');
    const file = storedFile(dir, (await readManifest(dir)).segments[0]!.name);
    const bytes = await readFile(file);
    // The member's name loses its last letter: the fragment is still JSON.
    const name = bytes.lastIndexOf(`"${member}":`);
    expect(name).toBeGreaterThan(0);
    bytes[name + member.length] = 'X'.charCodeAt(0);
    await writeFile(file, bytes);
    const before = await snapshotOf();

    const merging = mergeAll(dir);
    await expect(merging).rejects.toThrow(file);
    await expect(merging).rejects.toThrow(/the fragment of article 29 does not match its checksum.*is damaged: re-ingest/);
    expect(await snapshotOf()).toEqual(before);
  });
});
