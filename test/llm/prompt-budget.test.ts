/** How the context window is shared between prompt and answer, and whom a prompt that does not fit blames. */
import { describe, expect, it } from 'vitest';
import { PromptBudget } from '../../src/llm/prompt-budget.js';
import { ModelUnavailableError, PromptTooLongError } from '../../src/llm/types.js';

describe('PromptBudget', () => {
  it('keeps the answer budget and a margin out of the window', () => {
    expect(new PromptBudget({ asked: 4096, trained: 8192, inForce: 4096 }, 512).tokens).toBe(4096 - 512 - 16);
  });

  it("keeps a tenth of the window free when the answer's budget is smaller: node-llama-cpp cuts the start off a longer prompt", () => {
    const small = new PromptBudget({ asked: 2048, trained: 2048, inForce: 2048 }, 128);
    expect(small.tokens).toBe(2048 - 204 - 16);
    expect(small.tooLong(small.tokens + 1).message).toBe(
      "the question is too long for the language model: its prompt needs 1829 tokens, more than the 1828 left of its 2048-token context (204, a tenth, kept free for the answer and the model's context shift)",
    );
  });

  it('refuses only when even the shortest prompt does not fit', () => {
    const budget = new PromptBudget({ asked: 4096, trained: 8192, inForce: 4096 }, 3900); // 180 tokens for the prompt
    expect(budget.refusal(180)).toBeNull();
    const refusal = budget.refusal(181);
    expect(refusal).toBeInstanceOf(ModelUnavailableError);
    expect(refusal!.message).toBe(
      "--llm-max-tokens 3900 leaves the prompt 180 tokens of the language model's 4096-token context, and the prompt needs 181 tokens before any question or context: " +
        'lower --llm-max-tokens or raise --llm-context-size (the model takes up to 8192)',
    );
  });

  it('warns when the prompt keeps less than half of the window', () => {
    expect(new PromptBudget({ asked: 2048, trained: 2048, inForce: 2048 }, 1000).warning()).toBeNull(); // 1032 left
    expect(new PromptBudget({ asked: 2048, trained: 2048, inForce: 2048 }, 1010).warning()).toBe(
      "--llm-max-tokens 1010 leaves the prompt 1022 tokens of the language model's 2048-token context, less than half of it, " +
        'so questions may answer 503 for want of room; lower --llm-max-tokens (the model takes no larger --llm-context-size)',
    );
  });

  it("blames the settings for a prompt that would fit half of the window, the question for a longer one", () => {
    const cramped = new PromptBudget({ asked: 2048, trained: 2048, inForce: 2048 }, 1500); // 532 tokens for the prompt
    expect(cramped.tooLong(1024)).toBeInstanceOf(ModelUnavailableError);
    expect(cramped.tooLong(1024).message).toMatch(/^the server's settings leave too little room for the question: --llm-max-tokens 1500 /);
    expect(cramped.tooLong(1025)).toBeInstanceOf(PromptTooLongError);
    // Under settings that leave the prompt its share, a prompt that does not fit is always the question's fault.
    const normal = new PromptBudget({ asked: 2048, trained: 2048, inForce: 2048 }, 512);
    expect(normal.tooLong(normal.tokens + 1)).toBeInstanceOf(PromptTooLongError);
    expect(normal.tooLong(normal.tokens + 1).message).toBe(
      'the question is too long for the language model: its prompt needs 1521 tokens, more than the 1520 left of its 2048-token context (512 kept for the answer)',
    );
  });

  it('names the asked context when the model lowered it, and shows the one in force', () => {
    const lowered = new PromptBudget({ asked: 4096, trained: 2048, inForce: 2048 }, 512);
    expect(lowered.describeWindow()).toBe("2048-token context (the model's training context; --llm-context-size asked 4096)");
    expect(lowered.settingsInForce).toEqual({ llmContextSize: 2048 });
    expect(new PromptBudget({ asked: 1024, trained: 2048, inForce: 1024 }, 512).describeWindow()).toBe('1024-token context');
  });
});
