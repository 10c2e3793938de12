/**
 * A served index whose files are truncated or damaged after the server loaded
 * them: a query that reads the damaged bytes is answered 503 code 15 (the
 * index is damaged, re-ingest), the file is logged once, and queries that do
 * not read it go on being answered.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readFile, truncate, writeFile } from 'node:fs/promises';
import { readManifest, segmentFile, storedFile } from '../../src/search/manifest.js';
import { Segment } from '../../src/search/segment/reader.js';
import { FIELDS } from '../../src/search/segment/format.js';
import { article } from '../search/helpers.js';
import { capturingLogger } from './captured-log.js';
import { fixtureApp, type Fixture } from './app-fixture.js';

// Zebrafish articles, then octopus ones, in segments small enough that the first holds only zebrafish
// (checked below). Frequencies vary, so the postings take bytes of the file (equal gaps and frequencies pack to none).
const SMALL_SEGMENT_BYTES = 16 * 1024;
const ARTICLES = [
  ...Array.from({ length: 150 }, (_, i) =>
    article(`zebrafish-${i}`, [`Zebrafish lateral line hair cells regenerate after damage ${i}.${' Zebrafish again.'.repeat(i % 3)}`]),
  ),
  ...Array.from({ length: 150 }, (_, i) => article(`octopus-${i}`, [`Octopus arm suckers taste the chemicals they touch ${i}.`])),
];

let fixture: Fixture | null = null;
afterEach(async () => {
  await fixture?.close();
  fixture = null;
});

/** The fixture's segments' names, in index order (one per article here). */
async function segmentNames(indexDir: string): Promise<string[]> {
  return (await readManifest(indexDir)).segments.map((segment) => segment.name);
}

const DAMAGED = { detail: { code: 15, detail: expect.stringMatching(/index is damaged.*re-ingest the corpus into a new index directory/) } };

describe('a served index damaged after it was loaded', () => {
  it('answers 503 code 15 for a query reading a truncated segment, logs the file once, and serves the other segment', async () => {
    const { lines, logger } = capturingLogger();
    fixture = await fixtureApp(ARTICLES, {}, { logger, maxSegmentBytes: SMALL_SEGMENT_BYTES });
    const [first] = await segmentNames(fixture.indexDir);
    const damaged = segmentFile(fixture.indexDir, first!);
    const loaded = await Segment.load(damaged, { pagedPostings: true });
    expect([loaded.termOrdinal('zebrafish') >= 0, loaded.termOrdinal('octopus')]).toEqual([true, -1]);
    const { blockStart, blockOffset } = loaded.fields.text;
    const ordinal = loaded.termOrdinal('zebrafish');
    expect(blockOffset[blockStart[ordinal + 1]!] ?? loaded.fields.text.postings.length).toBeGreaterThan(blockOffset[blockStart[ordinal]!]!);
    // Cut the file where its postings start: everything else is in memory since the load.
    const postingsStart = Math.min(...FIELDS.map((field) => loaded.fields[field].postings.byteOffset));
    loaded.close();
    await truncate(damaged, postingsStart);

    for (let request = 0; request < 2; request++) {
      const response = await fixture.app.inject({ method: 'GET', url: '/retrieval/?query=zebrafish&use_reranker=false' });
      expect([response.statusCode, response.json()]).toEqual([503, DAMAGED]);
    }
    const intact = await fixture.app.inject({ method: 'GET', url: '/retrieval/?query=octopus&use_reranker=false' });
    expect(intact.statusCode).toBe(200);
    expect(intact.json().length).toBeGreaterThan(0);
    expect(intact.json().every((context: { article_id: string }) => context.article_id.startsWith('octopus-'))).toBe(true);

    const naming = lines.filter((line) => line.level >= 50 && JSON.stringify(line).includes(damaged));
    expect(naming).toHaveLength(1);
    expect(naming[0]!.msg).toContain(`index file ${damaged} is damaged or truncated`);
  });

  it('answers 503 code 15, not bytes that are not JSON, for a stored fragment with a flipped byte (dictionary compression)', async () => {
    fixture = await fixtureApp(ARTICLES, {}, { storedCompression: 'dictionary', maxSegmentBytes: SMALL_SEGMENT_BYTES });
    const [first] = await segmentNames(fixture.indexDir);
    const file = storedFile(fixture.indexDir, first!);
    const bytes = await readFile(file);
    // The file ends with its last paragraph's fragment, `…,"section":"Results"`: its closing quote becomes a control byte.
    expect(bytes.at(-1)).toBe(0x22);
    bytes[bytes.length - 1] = 0x22 ^ 0x3d;
    await writeFile(file, bytes);

    // Every zebrafish paragraph with its article: the last one of the first segment among them.
    const response = await fixture.app.inject({ method: 'GET', url: '/retrieval/?query=zebrafish&use_reranker=false&retriever_k=1000' });
    expect([response.statusCode, response.json()]).toEqual([503, DAMAGED]);
    const intact = await fixture.app.inject({ method: 'GET', url: '/retrieval/?query=octopus&use_reranker=false' });
    expect(intact.statusCode).toBe(200);
    expect(intact.json().length).toBeGreaterThan(0);
  });
});
