import { describe, expect, it } from 'vitest';
import { ERROR_SEPARATOR, SOURCES_SEPARATOR } from '../../src/llm/answer.js';
import { ExtractiveGenerator } from '../../src/llm/extractive.js';
import { createGenerator } from '../../src/llm/index.js';
import { QueueFullError, type Context } from '../../src/llm/types.js';
import { quoteOf, scoreSentences, splitSentences, terms } from '../../src/llm/sentences.js';

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

describe('quoteOf', () => {
  it('keeps a sentence within the limit whole', () => {
    expect(quoteOf('Place cells fire.', 17)).toBe('Place cells fire.');
  });

  it('cuts a longer one at the last word boundary before the limit, ending in an ellipsis', () => {
    expect(quoteOf('Place cells fire at specific locations', 20)).toBe('Place cells fire at\u2026');
    expect(quoteOf('Place cells fire at specific locations', 18)).toBe('Place cells fire\u2026');
  });

  it('cuts inside a word only when one word fills most of the limit, never between surrogate halves', () => {
    expect(quoteOf(`ab ${'x'.repeat(50)}`, 10)).toBe(`ab ${'x'.repeat(6)}\u2026`);
    const emoji = '\u{1F9EC}'; // two UTF-16 units
    const quote = quoteOf(emoji.repeat(10), 6);
    expect(quote).toBe(`${emoji.repeat(2)}\u2026`);
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

  it('quotes at most maxQuoteChars of a sentence without end punctuation, still citing its context', async () => {
    // A table dumped as text: 30 KB that no sentence boundary splits.
    const row = (i: number) => `hippocampus CA1 place cell recording ${i} firing rate ${i % 7} Hz`;
    const dump = Array.from({ length: 600 }, (_, i) => row(i)).join(' ');
    expect(dump.length).toBeGreaterThan(30_000);
    const tokens: string[] = [];
    const result = await new ExtractiveGenerator().generate('hippocampus place cell firing rate', [{ id: 7, text: dump }], { onToken: (t) => tokens.push(t) });
    expect(result.hasAnswer).toBe(true);
    expect(result.sources).toEqual([7]);
    expect(result.answer.length).toBeLessThanOrEqual(600);
    expect(result.answer.endsWith('\u2026')).toBe(true);
    const quoted = result.answer.slice(0, -1);
    expect(dump.startsWith(quoted)).toBe(true);
    expect(dump[quoted.length]).toBe(' ');
    expect(result.raw).toBe(`${result.answer}\n${SOURCES_SEPARATOR}: 7`);
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

  it('takes its queue size from --llm-queue-size, and waits its turn to work out its contexts (reranking), but not to answer from given ones', async () => {
    const generator = await createGenerator({ llmModel: null, llmQueueSize: 1 } as Parameters<typeof createGenerator>[0]);
    let finishFirst!: (contexts: Context[]) => void;
    let secondStarted = false;
    const first = generator.generate('hippocampus slow-wave sleep', () => new Promise((resolve) => (finishFirst = resolve)));
    const second = generator.generate('hippocampus slow-wave sleep', async () => ((secondStarted = true), contexts));
    await expect(generator.generate('memory', async () => contexts)).rejects.toBeInstanceOf(QueueFullError);
    // A question without reranking has nothing to wait for: it is answered at once, queue full or not.
    expect((await generator.generate('hippocampus slow-wave sleep', contexts)).hasAnswer).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(secondStarted).toBe(false);
    finishFirst(contexts);
    expect((await first).hasAnswer).toBe(true);
    expect((await second).hasAnswer).toBe(true);
    expect(secondStarted).toBe(true);
  });
});
