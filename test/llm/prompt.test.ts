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
  const additive = (fixed: number) => ({
    prompt: (kept: readonly number[]) => fixed + kept.reduce((a, b) => a + b, 0),
    context: (size: number) => size,
  });

  it('keeps, best-ranked first, every context that still fits, like a linear scan would', async () => {
    await fc.assert(
      // A context always takes at least one token (its "Source:" line).
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 50 }), { maxLength: 40 }), fc.nat(30), fc.nat(600), async (sizes, fixed, budget) => {
        const kept = await fitContexts(sizes, additive(fixed), budget);
        if (fixed > budget) {
          expect(kept).toBeNull();
          return;
        }
        const expected: number[] = [];
        for (const size of sizes) if (fixed + [...expected, size].reduce((a, b) => a + b, 0) <= budget) expected.push(size);
        expect(kept).toEqual(expected);
      }),
    );
  });

  it('does not let one huge best-ranked context push out the ones ranked below it', async () => {
    expect(await fitContexts([5000, 40, 30, 900, 20], additive(10), 990)).toEqual([40, 30, 900]);
    expect(await fitContexts([5000, 6000], additive(10), 1000)).toEqual([]);
  });

  it('keeps the whole prompt within the budget when contexts cost more joined than measured alone', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(50), { maxLength: 40 }), fc.nat(5), fc.nat(600), async (sizes, joinCost, budget) => {
        const measure = { prompt: (kept: readonly number[]) => kept.reduce((a, b) => a + b + joinCost, 0), context: (size: number) => size };
        const kept = (await fitContexts(sizes, measure, budget))!;
        expect(measure.prompt(kept)).toBeLessThanOrEqual(budget);
        const greedy = (await fitContexts(sizes, additive(0), budget))!;
        expect(greedy.slice(0, kept.length)).toEqual(kept);
      }),
    );
  });

  it('measures each context once and the whole prompt a logarithmic number of times', async () => {
    let prompts = 0;
    let contexts = 0;
    const measure = {
      prompt: (kept: readonly number[]) => (prompts++, kept.length * 2),
      context: () => (contexts++, 1),
    };
    const kept = (await fitContexts(Array.from({ length: 1000 }, () => 1), measure, 337))!;
    expect(kept.length).toBeLessThanOrEqual(337);
    expect(measure.prompt(kept)).toBeLessThanOrEqual(337);
    expect(contexts).toBeLessThanOrEqual(1000);
    expect(prompts).toBeLessThanOrEqual(4 + Math.ceil(Math.log2(1000)));
  });

  it('gives the event loop turns while it measures many contexts', async () => {
    let measured = 0;
    const measure = { prompt: () => 0, context: () => (measured++, 1) };
    let measuredAtFirstTurn = -1;
    setImmediate(() => (measuredAtFirstTurn = measured));
    const kept = await fitContexts(Array.from({ length: 500 }, (_, i) => i), measure, 10_000);
    expect(kept).toHaveLength(500);
    expect(measuredAtFirstTurn).toBeGreaterThan(0);
    expect(measuredAtFirstTurn).toBeLessThan(500);
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
