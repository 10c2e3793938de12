/** The GGUF generator holds one client to its share of its queue (--llm-queue-per-client), on a tiny random-weight model. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTinyGguf } from '../../scripts/make-tiny-gguf.js';
import { createGenerator, LlamaGenerator, QueueFullError, type Context } from '../../src/llm/index.js';

let dir: string;
let model: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'tiny-gguf-share-'));
  model = path.join(dir, 'tiny.gguf');
  await writeTinyGguf(model);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const contexts: Context[] = [{ id: 0, text: 'The hippocampus supports memory consolidation.' }];

describe('the configured GGUF generator', () => {
  it("holds one client to half the queue's places by default, while another client is admitted", async () => {
    const generator = await createGenerator({
      llmModel: model,
      llmGpu: false,
      llmContextSize: 1024,
      llmMaxTokens: 32,
      llmTemperature: 0,
      llmQueueSize: 1,
      llmQueuePerClient: null,
      llmThreads: 1,
    });
    expect(generator).toBeInstanceOf(LlamaGenerator);
    try {
      // The first question holds the slot until its contexts come (as QA's reranking does): one place of two.
      let giveContexts!: () => void;
      const first = generator.generate('one', () => new Promise((resolve) => (giveContexts = () => resolve(contexts))), { caller: 'a' });
      const refusal = await generator.generate('two', contexts, { caller: 'a' }).catch((e: unknown) => e);
      expect(refusal).toBeInstanceOf(QueueFullError);
      expect((refusal as Error).message).toMatch(/from this client: it holds its share of the queue \(1 place, --llm-queue-per-client\)/);
      const other = generator.generate('three', contexts, { caller: 'b' });
      giveContexts();
      // Both were served (a random-weight model may run out of tokens: answered, not refused).
      for (const outcome of await Promise.allSettled([first, other])) {
        expect(outcome.status === 'rejected' && outcome.reason instanceof QueueFullError).toBe(false);
      }
    } finally {
      await generator.close();
    }
  });
});
