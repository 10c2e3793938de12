/**
 * The whole QA path through the HTTP API with a real GGUF model run by
 * node-llama-cpp: a tiny random-weight model the test writes itself, and the
 * real trained stories260K model when ../shared has it. The answers are
 * gibberish; the shape is not: raw_answer carries the separators, and every
 * metadata entry is a cited context.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { writeTinyGguf } from '../../scripts/make-tiny-gguf.js';
import { loadLlamaGenerator } from '../../src/llm/index.js';
import type { Generator } from '../../src/llm/types.js';
import { fixtureApp } from './app-fixture.js';
import { tempDir } from '../search/helpers.js';

const STORIES = path.resolve('..', 'shared', 'models', 'stories260K', 'stories260K.gguf');
if (!existsSync(STORIES)) console.warn(`skipping the stories260K QA test: ${STORIES} not found`);

async function askThroughGguf(modelPath: string) {
  const generator: Generator = await loadLlamaGenerator({ modelPath, contextSize: 2048, maxTokens: 200, temperature: 0, queueSize: 2, threads: 1 });
  const fixture = await fixtureApp(undefined, { generator: () => generator });
  try {
    const response = await fixture.app.inject({ method: 'POST', url: '/qa/generative', payload: { query: 'Which cells fire in CA1?', retriever_k: 5 } });
    const streamed = await fixture.app.inject({ method: 'POST', url: '/qa/streamed_generative', payload: { query: 'Which cells fire in CA1?', retriever_k: 5 } });
    return { response, streamed };
  } finally {
    await fixture.close();
    await generator.close();
  }
}

function checkAnswer(body: { answer: string; raw_answer: string; metadata: { context_id: number }[] }) {
  expect(body.raw_answer).toContain('<bbs_sources>:');
  if (body.raw_answer.startsWith('<bbs_error>')) {
    expect(body.metadata).toEqual([]);
  } else {
    const cited = body.raw_answer.split('<bbs_sources>:')[1]!.split(',').filter((s) => s.trim()).map(Number);
    expect(body.metadata.map((m) => m.context_id)).toEqual(cited);
    for (const id of cited) expect(id).toBeLessThan(5);
  }
}

describe('QA over HTTP with a GGUF model', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeAll(async () => ({ dir, cleanup } = await tempDir()));
  afterAll(() => cleanup());

  it('answers through node-llama-cpp with a tiny generated model', async () => {
    const model = path.join(dir, 'tiny.gguf');
    await writeTinyGguf(model, { seed: 3 });
    const { response, streamed } = await askThroughGguf(model);
    expect(response.statusCode).toBe(200);
    checkAnswer(response.json());
    expect(streamed.headers['content-type']).toContain('text/event-stream');
    expect(streamed.body).toMatch(/event: result\ndata: \{/);
  }, 120_000);

  it.skipIf(!existsSync(STORIES))('answers through node-llama-cpp with the real stories260K weights', async () => {
    const { response, streamed } = await askThroughGguf(STORIES);
    expect(response.statusCode).toBe(200);
    checkAnswer(response.json());
    const result = streamed.body.split('event: result\ndata: ')[1]!;
    checkAnswer(JSON.parse(result.trim()));
  }, 120_000);
});
