import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { completionPrompt, fitContexts, SYSTEM_PROMPT, userMessage } from '../../src/llm/prompt.js';
import { answerSchema, readModelOutput } from '../../src/llm/grammar.js';

describe('prompt', () => {
  it('numbers the contexts by id between rules, as the reference template does', () => {
    const text = userMessage('Why?', [
      { id: 7, text: 'Because.', title: 'On causes' },
      { id: 2, text: 'No reason.' },
    ]);
    expect(text).toBe(
      ['QUESTION: Why?', '=========', 'Title: On causes', 'Content: Because.', 'Source: 7', 'Content: No reason.', 'Source: 2', '=========', 'FINAL ANSWER:'].join('\n'),
    );
    expect(completionPrompt('Why?', [])).toBe(`${SYSTEM_PROMPT}\n\n${userMessage('Why?', [])}\n`);
  });
});

describe('fitContexts', () => {
  it('keeps the longest best-first prefix that fits, like a linear scan would', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(50), { maxLength: 40 }), fc.nat(30), fc.nat(600), (sizes, fixed, budget) => {
        const count = (kept: readonly number[]) => fixed + kept.reduce((a, b) => a + b, 0);
        const kept = fitContexts(sizes, count, budget);
        if (fixed > budget) {
          expect(kept).toBeNull();
          return;
        }
        let expected = 0;
        while (expected < sizes.length && count(sizes.slice(0, expected + 1)) <= budget) expected++;
        expect(kept).toEqual(sizes.slice(0, expected));
      }),
    );
  });

  it('tokenises a logarithmic number of candidate prompts', () => {
    let calls = 0;
    const kept = fitContexts(Array.from({ length: 1000 }, () => 1), (k) => (calls++, k.length), 337);
    expect(kept).toHaveLength(337);
    expect(calls).toBeLessThanOrEqual(2 + Math.ceil(Math.log2(1000)));
  });
});

describe('readModelOutput', () => {
  it('reads a complete answer', () => {
    expect(readModelOutput('{"has_answer": true, "answer": "A \\"b\\"", "sources": [3, 1]}')).toEqual({
      complete: true,
      answer: { has_answer: true, answer: 'A "b"', sources: [3, 1] },
    });
  });

  it('salvages what a truncated answer finished', () => {
    expect(readModelOutput('{"has_answer": true, "answer": "The hippocampus consol')).toEqual({
      complete: false,
      answer: { has_answer: true, answer: 'The hippocampus consol', sources: [] },
    });
    expect(readModelOutput('{"has_answer": true, "answer": "x", "sources": [4, 5], "extra').answer.sources).toEqual([4, 5]);
    expect(readModelOutput('').answer).toEqual({ has_answer: false, answer: '', sources: [] });
  });
});

describe('answerSchema', () => {
  it('lets an answer cite only the given ids and an unanswered question cite nothing', () => {
    const [answered, unanswered] = answerSchema([4, 9], 100).oneOf;
    expect(answered.properties.has_answer).toEqual({ const: true });
    expect(answered.properties.sources).toEqual({ type: 'array', items: { enum: [4, 9] }, minItems: 1, maxItems: 2 });
    expect(answered.properties.answer).toEqual({ type: 'string', maxLength: 100 });
    expect(unanswered.properties.sources).toEqual({ type: 'array', maxItems: 0 });
    expect(Object.keys(answered.properties)).toEqual(['has_answer', 'answer', 'sources']);
  });

  it('allows no sources when there are no contexts', () => {
    expect(answerSchema([], 10).oneOf[0].properties.sources).toEqual({ type: 'array', maxItems: 0 });
  });
});
