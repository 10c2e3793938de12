/**
 * Questions and contexts that leave the prompt no room. A question too long for any prompt is refused
 * at once, before its contexts are produced (QA reranks them) or it waits its turn. When no retrieved
 * context fits what the prompt leaves, the answer says why and what to change: a question that takes
 * most of the room is the thing to shorten, not the server's settings.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTinyGguf } from '../../scripts/make-tiny-gguf.js';
import { loadLlamaGenerator, PromptTooLongError, type Context, type LlamaGenerator } from '../../src/llm/index.js';

let dir: string;
let generator: LlamaGenerator;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'tiny-gguf-fit-'));
  const model = path.join(dir, 'tiny.gguf');
  await writeTinyGguf(model);
  // 1024 - 200 - 16 = 808 tokens for the prompt, of which the instructions take about 560 (byte-sized tokens).
  generator = await loadLlamaGenerator({ modelPath: model, contextSize: 1024, maxTokens: 200, temperature: 0, queueSize: 4, threads: 1, answerMaxChars: 40 });
});

afterAll(async () => {
  await generator?.close();
  await rm(dir, { recursive: true, force: true });
});

const contexts = [0, 1].map((id) => ({ id, text: `Paragraph ${id} about memory consolidation during slow-wave sleep in rats.`.repeat(3) }));

describe('an answer no context fits', () => {
  it('asks for a shorter question when the question takes most of the room the instructions leave', async () => {
    const instructions = generator.shortestPromptTokens();
    const room = generator.budget.tokens - instructions;
    const question = 'Does sleep help memory? '.repeat(Math.ceil((room * 0.8) / 24));
    const result = await generator.generate(question, contexts);
    expect(generator.stats.generations).toBe(0);
    expect(result).toMatchObject({ hasAnswer: false, sources: [] });
    expect(result.answer).toMatch(
      new RegExp(`^None of the 2 retrieved contexts fits .*: the instructions and the question take \\d+ of the ${generator.budget.tokens} tokens`),
    );
    expect(result.answer).toContain('ask a shorter question');
  });

  it('names the settings alone when the contexts, not the question, are too long', async () => {
    const huge = [0, 1].map((id) => ({ id, text: 'memory '.repeat(2000) }));
    const result = await generator.generate('Does sleep help memory?', huge);
    expect(result.answer).toMatch(/^None of the 2 retrieved contexts fits .*raise --llm-context-size or lower --max-paragraph-length\.$/);
    expect(result.answer).not.toContain('shorter question');
  });
});

describe('a question too long for any prompt', () => {
  it('is refused before it takes a place in the queue or its contexts are produced', async () => {
    let admitted = false;
    let produced = false;
    const reranked = async (): Promise<Context[]> => {
      produced = true;
      return contexts;
    };
    const asked = generator.generate('why '.repeat(400), reranked, { onAdmitted: () => (admitted = true) });
    await expect(asked).rejects.toBeInstanceOf(PromptTooLongError);
    expect({ admitted, produced }).toEqual({ admitted: false, produced: false });
  });
});
