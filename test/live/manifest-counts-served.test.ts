/**
 * A manifest whose counts for a segment are not the segment file's (edited by
 * hand) is refused by a server, naming the manifest, as writers refuse it: a
 * server had switched to it and served it, while every ingestion, deletion and
 * merge after it failed. Writers name the manifest with both counts too.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LiveIndex } from '../../src/live/live-index.js';
import { IndexWriter } from '../../src/search/index-writer.js';
import { MANIFEST_FILE } from '../../src/search/manifest.js';
import { article, tempDir, writeIndex } from '../search/helpers.js';

const options = { threads: 0, k1: 0.9, b: 0.4, titleWeight: 0.5, filterCacheSize: 4 };
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe('a manifest counting other articles or paragraphs than its segment holds', () => {
  it.each([['articles'], ['paragraphs']] as const)('is refused by the server (%s), which keeps its generation', async (field) => {
    const { dir, cleanup } = await tempDir();
    cleanups.push(cleanup);
    await writeIndex(dir, [article('a', ['first text', 'more text']), article('b', ['second text'])]);
    const index = await LiveIndex.open(dir, options);
    cleanups.unshift(() => index.close());

    const file = path.join(dir, MANIFEST_FILE);
    const manifest = JSON.parse(await readFile(file, 'utf8'));
    const held = { articles: manifest.segments[0].articles, paragraphs: manifest.segments[0].paragraphs };
    manifest.generation += 1;
    manifest.segments[0][field] += 5;
    await writeFile(file, JSON.stringify(manifest));

    const counted = { ...held, [field]: held[field] + 5 };
    const said = `${file} is not a valid index manifest: segments[0] (seg-000001000) counts ${counted.articles} articles and ${counted.paragraphs} paragraphs, but its segment file holds ${held.articles} and ${held.paragraphs}`;
    await expect(index.reload()).rejects.toThrow(said);
    expect(index.current.generation).toBe(1);
    // Writers refuse it too, with the same words: a wrong paragraph count had been blamed on the segment's .stored file.
    await expect(IndexWriter.open(dir)).rejects.toThrow(said);
    await expect(IndexWriter.open(dir)).rejects.toThrow(/is damaged: re-ingest/);
  });
});
