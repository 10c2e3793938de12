/**
 * QA reads a retrieved paragraph's text only when the generator uses it. Without reranking,
 * retriever_k paragraphs are offered (500 by default) while the extractive generator answers from
 * its top five and a model from those that fit its prompt; every text had been read before the
 * question was admitted. The answers are those given from every text read first, and the
 * extractive generator still answers at once, whatever its queue holds.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import path from 'node:path';
import { ingest } from '../../src/corpus/ingest.js';
import { Library } from '../../src/corpus/library.js';
import { ExtractiveGenerator } from '../../src/llm/extractive.js';
import { loadLlamaGenerator } from '../../src/llm/index.js';
import { QueueFullError, type Context } from '../../src/llm/types.js';
import { LiveIndex } from '../../src/live/live-index.js';
import { QaPipeline, type QaRequest } from '../../src/qa/pipeline.js';
import { compileFilterSpec } from '../../src/search/query/filter-spec.js';
import type { ParagraphHit } from '../../src/search/searcher.js';
import { writeTinyGguf } from '../../scripts/make-tiny-gguf.js';
import { article, tempDir, writeIndex } from '../search/helpers.js';

const SEARCH = { threads: 0, k1: 0.6, b: 0.75, titleWeight: 0.25, filterCacheSize: 4 };
const filters = compileFilterSpec({});
const unreranked = (query: string, retrieverK: number): QaRequest => ({ query, retrieverK, useReranker: false, rerankerK: 8 });

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => ({ dir, cleanup } = await tempDir()));
afterAll(() => cleanup());
afterEach(() => vi.restoreAllMocks());

/** Where each paragraphText call read, in call order. */
function countReads() {
  const spy = vi.spyOn(Library.prototype, 'paragraphText');
  return () => spy.mock.calls.map(([hit]) => `${hit.segment}:${hit.paragraph}`);
}

const place = (hit: ParagraphHit) => `${hit.segment}:${hit.paragraph}`;

/** The retrieved paragraphs in rank order, with every text read (as QA had read them). */
async function retrievedWithTexts(index: LiveIndex, pipeline: QaPipeline, request: QaRequest) {
  return index.read(async (view) => {
    const { candidates } = await pipeline.retrieve(view, request, filters);
    const contexts: Context[] = candidates.map((c) => ({ id: c.contextId, text: view.library.paragraphText(c.hit) }));
    return { places: candidates.map((c) => place(c.hit)), contexts };
  });
}

describe('an unreranked question on the demo corpus, with the extractive generator', () => {
  let index: LiveIndex;
  const generator = new ExtractiveGenerator({ queueSize: 1 });
  let pipeline: QaPipeline;
  beforeAll(async () => {
    const indexDir = path.join(dir, 'demo');
    await ingest({ inputs: [path.resolve('data', 'demo', 'articles.jsonl')], indexDir, format: 'articles-jsonl' });
    index = await LiveIndex.open(indexDir, SEARCH);
    pipeline = new QaPipeline(index, () => generator, null, { maxParagraphLength: 100_000 });
  });
  afterAll(() => index.close());

  it.each(['What do place cells encode?', 'What is the meaning of life?', 'Which neurons signal reward prediction errors?'])(
    'reads the texts of the top five of 100 contexts only, and answers %j as from every text',
    async (query) => {
      const request = unreranked(query, 100);
      const retrieved = await retrievedWithTexts(index, pipeline, request);
      expect(retrieved.places.length).toBeGreaterThan(5);
      const expected = await generator.generate(query, retrieved.contexts);

      const reads = countReads();
      const answer = await pipeline.answer(request, filters);
      expect(reads()).toEqual(retrieved.places.slice(0, 5));
      expect(answer.raw_answer).toBe(expected.raw);
      expect(answer.metadata.map((m) => m.context_id)).toEqual(expected.sources);
    },
  );

  it('answers at once while its queue is full of questions to rerank', async () => {
    let release!: (contexts: Context[]) => void;
    const held = new Promise<Context[]>((resolve) => (release = resolve));
    const reranking = [generator.generate('place cells', () => held), generator.generate('place cells', () => held)];
    await expect(generator.generate('place cells', async () => [])).rejects.toBeInstanceOf(QueueFullError);

    const answer = await pipeline.answer(unreranked('What do place cells encode?', 100), filters);
    expect(answer.metadata.length).toBeGreaterThan(0);
    release([]);
    await Promise.all(reranking);
  });
});

describe('an unreranked question with a language model', () => {
  it('reads, best-ranked first, the texts measured for its prompt: those kept and at most 64 more', async () => {
    const modelPath = path.join(dir, 'tiny.gguf');
    await writeTinyGguf(modelPath);
    const indexDir = path.join(dir, 'zebrafish');
    await writeIndex(indexDir, Array.from({ length: 200 }, (_, i) => article(`zebrafish-${i}`, [`Zebrafish hair cells regenerate after damage ${i}.`])));
    const index = await LiveIndex.open(indexDir, SEARCH);
    const logged: Record<string, unknown>[] = [];
    const logger = { debug: () => {}, info: (details: object) => logged.push(details as Record<string, unknown>), warn: () => {} };
    // A short answer cap, so the tiny model's byte-sized tokens finish the JSON within the token limit.
    const generator = await loadLlamaGenerator({ modelPath, contextSize: 1024, maxTokens: 200, answerMaxChars: 40, temperature: 0, queueSize: 1, threads: 1, logger });
    try {
      const pipeline = new QaPipeline(index, () => generator, null, { maxParagraphLength: 100_000 });
      const request = unreranked('zebrafish hair cells', 200);
      const { places } = await retrievedWithTexts(index, pipeline, request);
      expect(places).toHaveLength(200);

      const reads = countReads();
      await pipeline.answer(request, filters);
      const { kept } = logged.find((details) => 'dropped' in details) as { kept: number };
      const read = reads();
      expect(read).toEqual(places.slice(0, read.length));
      expect(read.length).toBeGreaterThanOrEqual(kept);
      expect(read.length).toBeLessThanOrEqual(kept + 64);
    } finally {
      await generator.close();
      await index.close();
    }
  }, 60_000);
});
