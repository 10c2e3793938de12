/**
 * The answer's character bound follows the prompt's language: half the token budget at the rate the
 * question and contexts cost, so an answer in Chinese (several tokens per character) is closed by the
 * grammar before the token limit, where a bound of twice --llm-max-tokens characters cut it (502 code 6).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTinyGguf } from '../../scripts/make-tiny-gguf.js';
import { answerLengthBound } from '../../src/llm/grammar.js';
import { loadLlamaGenerator, type LlamaGenerator } from '../../src/llm/index.js';

describe('answerLengthBound', () => {
  it('is twice maxTokens for English rates, as it always was', () => {
    expect(answerLengthBound(400, 0.21)).toBe(800);
    expect(answerLengthBound(400, 0.25)).toBe(800);
  });

  it('is half the token budget at a costlier rate', () => {
    expect(answerLengthBound(400, 1.5)).toBe(133);
    expect(answerLengthBound(400, 3)).toBe(66);
  });

  it('falls back to twice maxTokens without a rate, and allows a character at least', () => {
    expect(answerLengthBound(400, 0)).toBe(800);
    expect(answerLengthBound(400, Number.NaN)).toBe(800);
    expect(answerLengthBound(1, 1000)).toBe(1);
  });
});

const MAX_TOKENS = 400;
const chineseContexts = Array.from({ length: 3 }, (_, i) => ({
  id: 20 + i,
  text: `第${i}段：海马体在记忆巩固中起重要作用，实验${i}表明睡眠促进这一过程。`,
}));

describe('an answer in a language of many tokens per character (tiny random-weight model)', () => {
  let dir: string;
  let generator: LlamaGenerator;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'answer-length-'));
    const model = path.join(dir, 'tiny.gguf');
    await writeTinyGguf(model);
    // No answer bound given: the default applies. Random weights never close a string on their own,
    // so the answer runs to the grammar's bound or to the token limit, whichever comes first.
    generator = await loadLlamaGenerator({ modelPath: model, contextSize: 2048, maxTokens: MAX_TOKENS, temperature: 0, queueSize: 4, threads: 1 });
  });
  afterAll(async () => {
    await generator?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('is closed by the grammar within the token limit', async () => {
    const result = await generator.generate('海马体的作用是什么？', chineseContexts);
    expect(generator.stats.truncated).toBe(0);
    expect(generator.stats.generatedTokens).toBeLessThan(MAX_TOKENS);
    expect(result.answer.length).toBeGreaterThan(0);
  });
});
