/**
 * An index written by a version of another segment or stored-fields format is refused by servers and writers
 * alike, saying to re-ingest, and not called damaged: nothing is wrong with its bytes (it had been said to be
 * "damaged" after the format's own message, which misled an operator upgrading).
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readManifest, segmentFile, storedFile } from '../../src/search/manifest.js';
import { FORMAT_VERSION } from '../../src/search/segment/format.js';
import { STORED_FORMAT_VERSION } from '../../src/search/stored/format.js';
import { Searcher } from '../../src/search/searcher.js';
import { article, markSegmentOutdated, tempDir, writeIndex } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** An index of one segment whose segment or stored-fields file says it is of the format before this one. */
async function outdatedIndex(file: 'segment' | 'stored'): Promise<{ dir: string; outdated: string }> {
  const { dir, cleanup } = await tempDir();
  cleanups.push(cleanup);
  await writeIndex(dir, [article('a1', ['place cells fire in one place'])]);
  const [entry] = (await readManifest(dir)).segments;
  const outdated = file === 'segment' ? segmentFile(dir, entry!.name) : storedFile(dir, entry!.name);
  if (file === 'segment') {
    await markSegmentOutdated(outdated);
    return { dir, outdated };
  }
  const bytes = await readFile(outdated);
  bytes.writeUInt32LE(STORED_FORMAT_VERSION - 1, 8);
  await writeFile(outdated, bytes);
  return { dir, outdated };
}

describe.each(['segment', 'stored'] as const)('an index whose %s file is of the previous format', (file) => {
  const version = file === 'segment' ? `segment format ${FORMAT_VERSION - 1}` : `stored-fields format ${STORED_FORMAT_VERSION - 1}`;

  it('is refused by a server, saying to re-ingest, not that it is damaged', async () => {
    const { dir, outdated } = await outdatedIndex(file);
    const opening = Searcher.open(dir, { threads: 0, k1: 0.9, b: 0.4, titleWeight: 0.5, filterCacheSize: 4 });
    const error = (await opening.then(() => null, (refusal: Error) => refusal))!;
    expect(error.message).toContain(outdated);
    expect(error.message).toContain(`${version} is not supported`);
    expect(error.message).toMatch(/re-ingest the corpus into a new index directory$/);
    expect(error.message).not.toMatch(/damaged/);
  });

  it('is refused by a writer, which writes nothing, saying to re-ingest, not that it is damaged', async () => {
    const { dir } = await outdatedIndex(file);
    const before = await readFile(path.join(dir, 'manifest.json'), 'utf8');
    const writing = writeIndex(dir, [article('a2', ['grid cells tile space'])]);
    const error = (await writing.then(() => null, (refusal: Error) => refusal))!;
    expect(error.message).toContain(`${version} is not supported`);
    expect(error.message).toContain('re-ingest the corpus into a new index directory (nothing was written');
    expect(error.message).not.toMatch(/damaged/);
    expect(await readFile(path.join(dir, 'manifest.json'), 'utf8')).toBe(before);
  });
});
