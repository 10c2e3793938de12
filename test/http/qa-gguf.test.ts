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
import type { Reranker } from '../../src/rerank/types.js';
import { fixtureApp } from './app-fixture.js';
import { tempDir } from '../search/helpers.js';

const STORIES = path.resolve('..', 'shared', 'models', 'stories260K', 'stories260K.gguf');
if (!existsSync(STORIES)) console.warn(`skipping the stories260K QA tests: ${STORIES} not found`);

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

/** Keeps BM25's order: what matters is that a reranker runs. */
const reranker: Reranker = {
  kind: 'cross-encoder',
  description: 'keeps the order',
  score: async (_query, passages) => passages.map((_, i) => -i),
  close: async () => undefined,
};

// Searchable, and long for any model: its prompt takes more than half of a 2048-token context.
const LONG_QUESTION = 'Which place cells fire in CA1? '.repeat(80);

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

  it('reports an answer cut at the token limit as 502 code 6 with the partial output, streamed or not', async () => {
    const model = path.join(dir, 'tiny-limit.gguf');
    await writeTinyGguf(model, { seed: 3 });
    // The tiny model's JSON needs more than 16 tokens; at 40 it has begun the answer string when it is cut.
    for (const maxTokens of [16, 40]) {
      const generator = await loadLlamaGenerator({ modelPath: model, contextSize: 2048, maxTokens, temperature: 0, queueSize: 2, threads: 1 });
      const fixture = await fixtureApp(undefined, { generator: () => generator });
      try {
        const payload = { query: 'Which cells fire in CA1?', retriever_k: 5 };
        const response = await fixture.app.inject({ method: 'POST', url: '/qa/generative', payload });
        expect(response.statusCode).toBe(502);
        const body = response.json();
        expect(body.detail).toMatchObject({ code: 6 });
        expect(body.detail.detail).toContain('--llm-max-tokens');
        expect(body.detail.raw_answer.length).toBeGreaterThan(0);
        expect(() => JSON.parse(body.detail.raw_answer)).toThrow(); // cut-off JSON, as generated
        expect(body.detail.raw_answer).toMatch(/^\{"has_answer"/);

        const streamed = await fixture.app.inject({ method: 'POST', url: '/qa/streamed_generative', payload });
        if (maxTokens === 16) {
          // Nothing of the answer was generated: an ordinary JSON error.
          expect(streamed.statusCode).toBe(502);
          expect(streamed.json()).toEqual(body);
        } else {
          expect(streamed.statusCode).toBe(200);
          const tokens = [...streamed.body.matchAll(/event: token\ndata: (.*)\n/g)].map((m) => JSON.parse(m[1]!).text as string);
          expect(tokens.length).toBeGreaterThan(0);
          expect(tokens.join('')).toBe(body.detail.answer);
          expect(streamed.body).not.toContain('event: result');
          const error = streamed.body.split('event: error\ndata: ')[1]!;
          expect(JSON.parse(error.trim())).toEqual(body);
        }
      } finally {
        await fixture.close();
        await generator.close();
      }
    }
  }, 120_000);
  it('names only the request parameter whose lowering would give the model fewer contexts, in the code 6 advice', async () => {
    const model = path.join(dir, 'tiny-advice.gguf');
    await writeTinyGguf(model, { seed: 3 });
    const generator = await loadLlamaGenerator({ modelPath: model, contextSize: 2048, maxTokens: 16, temperature: 0, queueSize: 2, threads: 1 });
    const plain = await fixtureApp(undefined, { generator: () => generator });
    const reranking = await fixtureApp(undefined, { generator: () => generator, reranker });
    const adviceOf = async (fixture: typeof plain, payload: object) => {
      const response = await fixture.app.inject({ method: 'POST', url: '/qa/generative', payload: { query: 'Which cells fire in CA1?', ...payload } });
      expect(response.statusCode).toBe(502);
      return (response.json().detail.detail as string).split('; ')[1];
    };
    try {
      // No reranker configured: reranker_k is ignored.
      expect(await adviceOf(plain, { retriever_k: 2, reranker_k: 1 })).toBe(
        'raise --llm-max-tokens (LLM_MAX_TOKENS), or lower retriever_k below 2 so there is less to answer from',
      );
      // Reranked: reranker_k chose the contexts, not retriever_k.
      expect(await adviceOf(reranking, { retriever_k: 5, reranker_k: 2 })).toBe(
        'raise --llm-max-tokens (LLM_MAX_TOKENS), or lower reranker_k below 2 so there is less to answer from',
      );
      expect(await adviceOf(reranking, { retriever_k: 2, use_reranker: false })).toBe(
        'raise --llm-max-tokens (LLM_MAX_TOKENS), or lower retriever_k below 2 so there is less to answer from',
      );
      // A single context: lowering either changes nothing.
      expect(await adviceOf(plain, { retriever_k: 1 })).toBe('raise --llm-max-tokens (LLM_MAX_TOKENS)');
    } finally {
      await plain.close();
      await reranking.close();
      await generator.close();
    }
  }, 120_000);
});

describe.skipIf(!existsSync(STORIES))('QA with stories260K under settings that leave the prompt too little room', () => {
  const ask = async (generator: () => Generator, query: string) => {
    const fixture = await fixtureApp(undefined, { generator });
    try {
      return await fixture.app.inject({ method: 'POST', url: '/qa/generative', payload: { query, retriever_k: 5 } });
    } finally {
      await fixture.close();
    }
  };

  it('answers 503 code 3 naming the settings, not 413, when --llm-max-tokens leaves no room for any prompt', async () => {
    // As served: the model is refused at load, and the QA endpoints answer with the reason (src/server.ts).
    const refusal = await loadLlamaGenerator({ modelPath: STORIES, contextSize: 4096, maxTokens: 2000, temperature: 0, queueSize: 2, threads: 1 }).catch(
      (e: unknown) => e as Error,
    );
    const response = await ask(() => {
      throw refusal;
    }, 'Which cells fire in CA1?');
    expect(response.statusCode).toBe(503);
    const { code, detail } = response.json().detail;
    expect(code).toBe(3);
    expect(detail).toContain('--llm-max-tokens 2000 leaves the prompt 32 tokens');
    expect(detail).toContain("2048-token context (the model's training context; --llm-context-size asked 4096)");
  }, 120_000);

  it('answers 503 code 3 for a short question the settings leave no room for, and 413 code 4 for a genuinely long one', async () => {
    // 2048 - 1600 - 16 = 432 tokens for the prompt: just more than its shortest (422 with this vocabulary).
    const cramped = await loadLlamaGenerator({ modelPath: STORIES, contextSize: 2048, maxTokens: 1600, temperature: 0, queueSize: 2, threads: 1 });
    const normal = await loadLlamaGenerator({ modelPath: STORIES, contextSize: 2048, maxTokens: 200, temperature: 0, queueSize: 2, threads: 1 });
    try {
      const short = await ask(() => cramped, 'Which cells fire in CA1?');
      expect(short.statusCode).toBe(503);
      expect(short.json().detail).toMatchObject({ code: 3, detail: expect.stringMatching(/^the server's settings leave too little room for the question: --llm-max-tokens 1600 .*--llm-context-size/) });
      for (const generator of [cramped, normal]) {
        const long = await ask(() => generator, LONG_QUESTION);
        expect(long.statusCode).toBe(413);
        expect(long.json().detail).toMatchObject({ code: 4, detail: expect.stringMatching(/^the question is too long for the language model/) });
      }
    } finally {
      await cramped.close();
      await normal.close();
    }
  }, 120_000);
});
