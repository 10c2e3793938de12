import { describe, expect, it } from 'vitest';
import { ERROR_SEPARATOR, SOURCES_SEPARATOR } from '../../src/llm/answer.js';
import { ExtractiveGenerator } from '../../src/llm/extractive.js';
import { scoreSentences, splitSentences, terms } from '../../src/llm/sentences.js';

const contexts = [
  {
    id: 12,
    text: 'Sleep deprivation impairs memory. The hippocampus consolidates declarative memories during slow-wave sleep. Mice were housed in groups.',
  },
  { id: 3, text: 'Dopamine neurons in the VTA signal reward prediction errors (Schultz et al. 1997). This is unrelated to memory.' },
  { id: 40, text: 'Weather records from 1900 show warming. Glaciers retreat.' },
];

describe('sentence scorer', () => {
  it('splits sentences but not after abbreviations', () => {
    expect(splitSentences('Results differ, e.g. Fig. 2 shows it. Another point! Last one')).toEqual([
      'Results differ, e.g. Fig. 2 shows it.',
      'Another point!',
      'Last one',
    ]);
  });

  it('drops stopwords and folds inflections', () => {
    expect(terms('What are the neurons of the studies?')).toEqual(['neuron', 'study']);
    expect(new Set(terms('treated treatment treats treating'))).toEqual(new Set(['treat']));
    expect(new Set(terms('disease diseases'))).toEqual(new Set(['diseas']));
    expect(terms("the patient's analysis status in 2001")).toEqual(['patient', 'analysis', 'status', '2001']);
  });

  it('ranks the sentence sharing the rarest question terms first', () => {
    const [best] = scoreSentences('Which brain region consolidates declarative memories?', contexts.map((c) => c.text));
    expect(best!.text).toBe('The hippocampus consolidates declarative memories during slow-wave sleep.');
    expect(best!.contextIndex).toBe(0);
    // 3 of the 5 content words match (brain and region do not).
    expect(best!.coverage).toBeGreaterThan(0.34);
    expect(best!.coverage).toBeLessThan(1);
  });
});

describe('ExtractiveGenerator', () => {
  it('answers with the best sentences and cites their contexts in answer order', async () => {
    const generator = new ExtractiveGenerator();
    const result = await generator.generate('What signals reward prediction errors?', contexts);
    expect(result.hasAnswer).toBe(true);
    expect(result.answer.startsWith('Dopamine neurons in the VTA signal reward prediction errors')).toBe(true);
    expect(result.sources[0]).toBe(3);
    expect(result.sources).not.toContain(40);
    expect(result.raw).toBe(`${result.answer}\n${SOURCES_SEPARATOR}: ${result.sources.join(', ')}`);
  });

  it('cites several contexts when their sentences score alike', async () => {
    const result = await new ExtractiveGenerator().generate('memory', [
      { id: 1, text: 'Memory fades.' },
      { id: 2, text: 'Memory improves.' },
    ]);
    expect(result.sources).toEqual([1, 2]);
    expect(result.answer).toBe('Memory fades. Memory improves.');
  });

  it('says so with the error separator when nothing matches well enough', async () => {
    const result = await new ExtractiveGenerator().generate('How do volcanoes form magma chambers?', contexts);
    expect(result.hasAnswer).toBe(false);
    expect(result.sources).toEqual([]);
    expect(result.raw.startsWith(ERROR_SEPARATOR)).toBe(true);
    expect(result.answer).toMatch(/3 retrieved contexts/);
  });

  it('explains an empty context list and a question without content words', async () => {
    const generator = new ExtractiveGenerator();
    expect((await generator.generate('memory?', [])).answer).toMatch(/No context/);
    expect((await generator.generate('what is it?', contexts)).answer).toMatch(/no content words/);
  });

  it('says a sentence repeated in several contexts once, citing the first', async () => {
    const result = await new ExtractiveGenerator().generate('memory consolidation', [
      { id: 5, text: 'Sleep supports memory consolidation.' },
      { id: 6, text: 'Sleep supports memory consolidation.' },
    ]);
    expect(result.answer).toBe('Sleep supports memory consolidation.');
    expect(result.sources).toEqual([5]);
  });

  it('reads only the top contexts', async () => {
    const result = await new ExtractiveGenerator({ maxContexts: 2 }).generate('glaciers retreat', contexts);
    expect(result.hasAnswer).toBe(false);
  });

  it('streams the answer word by word', async () => {
    const tokens: string[] = [];
    const result = await new ExtractiveGenerator().generate('hippocampus slow-wave sleep', contexts, {
      onToken: (t) => tokens.push(t),
    });
    expect(tokens.length).toBeGreaterThan(3);
    expect(tokens.every((t) => /^\S+\s*$/.test(t))).toBe(true);
    expect(tokens.join('')).toBe(result.answer);
  });

  it('stops when aborted', async () => {
    const controller = new AbortController();
    const tokens: string[] = [];
    const run = new ExtractiveGenerator().generate('hippocampus slow-wave sleep', contexts, {
      signal: controller.signal,
      onToken: (t) => {
        tokens.push(t);
        if (tokens.length === 2) controller.abort(new Error('client left'));
      },
    });
    await expect(run).rejects.toThrow('client left');
    expect(tokens).toHaveLength(2);
  });
});
