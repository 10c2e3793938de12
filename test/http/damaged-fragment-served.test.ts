/**
 * A served index whose uncompressed stored fragments changed on disk after
 * the server loaded it: nothing decodes them, but every read checks a
 * fragment against its checksum (reranking, QA, a context's metadata). The answer is
 * 503 code 15 naming the file in the log once, as for any damaged file, not
 * a 500 for a SyntaxError or a member gone missing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readFile, writeFile } from 'node:fs/promises';
import { readManifest, storedFile } from '../../src/search/manifest.js';
import type { Reranker } from '../../src/rerank/types.js';
import { article } from '../search/helpers.js';
import { capturingLogger } from './captured-log.js';
import { fixtureApp, type Fixture } from './app-fixture.js';

// At most reranker_k's maximum, so a reranked answer keeps every one of them (and reads every article).
const ARTICLES = Array.from({ length: 60 }, (_, i) => article(`zebrafish-${i}`, [`Zebrafish lateral line hair cells regenerate after damage ${i}.`]));

/** Scores a paragraph by its length: any order will do, every paragraph text is read to score it. */
const reranker: Reranker = {
  kind: 'cross-encoder',
  description: 'scores by length',
  score: async (_query, passages) => passages.map((passage) => passage.length),
  close: async () => undefined,
};

const DAMAGED = { detail: { code: 15, detail: expect.stringMatching(/index is damaged.*re-ingest the corpus into a new index directory/) } };

let fixture: Fixture | null = null;
afterEach(async () => {
  await fixture?.close();
  fixture = null;
});

/**
 * Changes one byte, in place, of the last fragment holding `member` (the
 * last article's or paragraph's): the byte after its name, making the
 * fragment no JSON, or the name's last letter, making it JSON without it.
 */
async function damage(file: string, member: 'abstract' | 'paragraph', how: 'not JSON' | 'member renamed'): Promise<void> {
  const bytes = await readFile(file);
  const name = bytes.lastIndexOf(`"${member}":`);
  expect(name).toBeGreaterThan(0);
  const colon = name + member.length + 2;
  expect(String.fromCharCode(bytes[colon]!)).toBe(':');
  if (how === 'not JSON') bytes[colon] = ';'.charCodeAt(0);
  else bytes[colon - 2] = 'X'.charCodeAt(0);
  await writeFile(file, bytes);
}

async function servedDamaged(member: 'abstract' | 'paragraph', how: 'not JSON' | 'member renamed') {
  const { lines, logger } = capturingLogger();
  fixture = await fixtureApp(ARTICLES, { reranker }, { logger, storedCompression: 'none', auth: null });
  const [segment] = (await readManifest(fixture.indexDir)).segments;
  const file = storedFile(fixture.indexDir, segment!.name);
  await damage(file, member, how);
  const namingFile = () => lines.filter((line) => line.level >= 50 && JSON.stringify(line).includes(file));
  return { app: fixture.app, namingFile };
}

const DAMAGES = [
  ['abstract', 'not JSON'],
  ['abstract', 'member renamed'],
  ['paragraph', 'not JSON'],
  ['paragraph', 'member renamed'],
] as const;

describe('a served none-compressed index with a fragment changed in place', () => {
  it.each(DAMAGES)('answers a reranked retrieval reading the %s fragment (%s) with 503 code 15 and logs the file once', async (member, how) => {
    const { app, namingFile } = await servedDamaged(member, how);
    for (let request = 0; request < 2; request++) {
      const response = await app.inject({ method: 'GET', url: '/retrieval/?query=zebrafish&retriever_k=100&reranker_k=100' });
      expect([response.statusCode, response.json()]).toEqual([503, DAMAGED]);
    }
    const [logged] = namingFile();
    expect(namingFile()).toHaveLength(1);
    expect(logged!.msg).toMatch(/is damaged or truncated/);
    expect((logged!.err as { message: string }).message).toMatch(/is damaged \(the fragment of (article|paragraph) \d+ does not match its checksum\)/);
  });

  it.each(DAMAGES.filter(([member]) => member === 'paragraph'))(
    'answers a question whose contexts hold the %s fragment (%s) with 503 code 15, reranked or not',
    async (member, how) => {
      const { app, namingFile } = await servedDamaged(member, how);
      // "59" ranks the damaged paragraph (the last one) first, so the generator reads it unreranked too.
      for (const use_reranker of [true, false]) {
        const response = await app.inject({ method: 'POST', url: '/qa/generative', payload: { query: 'zebrafish 59', retriever_k: 100, use_reranker } });
        expect([response.statusCode, response.json()]).toEqual([503, DAMAGED]);
      }
      // Unreranked, only the texts the generator uses are read: a question whose top contexts are intact is answered.
      const intact = await app.inject({ method: 'POST', url: '/qa/generative', payload: { query: 'zebrafish 0', retriever_k: 100, use_reranker: false } });
      expect(intact.statusCode).toBe(200);
      expect(namingFile()).toHaveLength(1);
    },
  );

  it.each(DAMAGES.filter(([member]) => member === 'abstract'))(
    'answers the /v1 read of the article whose %s fragment changed (%s) with 503 ServiceUnavailable, and another article',
    async (member, how) => {
      const { app, namingFile } = await servedDamaged(member, how);
      const read = (id: string) => app.inject({ method: 'GET', url: `/v1/resources/literature/articles/_/${id}` });
      for (let request = 0; request < 2; request++) {
        const response = await read('zebrafish-59');
        expect(response.statusCode).toBe(503);
        expect(response.json()).toMatchObject({ '@type': 'ServiceUnavailable', reason: expect.stringMatching(/index is damaged.*re-ingest/) });
      }
      expect(namingFile()).toHaveLength(1);
      expect((await read('zebrafish-0')).statusCode).toBe(200);
    },
  );
});
