/**
 * Real trained weights end to end: stories260K (a tiny TinyStories llama,
 * no chat template) from the shared models directory, when it is present.
 * Its text is nonsense for QA; what matters is that a real GGUF loads,
 * generates, streams, stops on abort, and that its output parses.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGenerator, LlamaGenerator, ModelUnavailableError } from '../../src/llm/index.js';

const MODEL = fileURLToPath(new URL('../../../shared/models/stories260K/stories260K.gguf', import.meta.url));
const present = existsSync(MODEL);
if (!present) console.warn(`skipping stories260K tests: ${MODEL} is absent`);

const contexts = [
  { id: 0, text: 'Lily went to the park with her mom. She saw a big red ball.' },
  { id: 1, text: 'Tom had a little dog. The dog liked to run in the garden.' },
  { id: 2, text: 'One day, the sun was hot and the children went to the sea.' },
];

/** The generator both suites load: CPU only, one thread, a deterministic answer. */
const SETTINGS = {
  llmModel: MODEL,
  llmGpu: false,
  llmContextSize: 2048,
  llmMaxTokens: 256,
  llmTemperature: 0,
  llmQueueSize: 2,
  llmQueuePerClient: null,
  llmThreads: 1,
};

describe.skipIf(!present)('stories260K.gguf (real trained weights)', () => {
  let generator: LlamaGenerator;

  beforeAll(async () => {
    const created = await createGenerator(SETTINGS);
    generator = created as LlamaGenerator;
  });
  afterAll(() => generator?.close());

  it('loads with a completion prompt, as the file has no chat template', () => {
    expect(generator).toBeInstanceOf(LlamaGenerator);
    expect(generator.promptFormat).toBe('completion');
  });

  it('generates grammar-constrained output that parses, streaming the answer', async () => {
    const tokens: string[] = [];
    const result = await generator.generate('Where did Lily go?', contexts, { onToken: (t) => tokens.push(t) });
    expect(generator.stats.truncated).toBe(0);
    expect(generator.stats.generatedTokens).toBeGreaterThan(5);
    expect(result.answer.length).toBeGreaterThan(0);
    expect(tokens.length).toBeGreaterThan(1);
    expect(tokens.join('').trim()).toBe(result.answer);
    for (const id of result.sources) expect([0, 1, 2]).toContain(id);
  });

  it('stops generating when aborted', async () => {
    const controller = new AbortController();
    const tokens: string[] = [];
    const before = generator.stats.generations;
    const run = generator.generate('Where did Lily go?', contexts, {
      signal: controller.signal,
      onToken: (t) => {
        tokens.push(t);
        controller.abort(new Error('stop'));
      },
    });
    await expect(run).rejects.toThrow('stop');
    expect(tokens).toHaveLength(1);
    expect(generator.stats.generations).toBe(before);
  });

  it('stops while it evaluates a long prompt, before the first token', async () => {
    // About 1,800 tokens: the prompt's evaluation, from the question on, is most of an answer's time.
    const long = Array.from({ length: 60 }, (_, id) => ({ id, text: `Day ${id}: Lily and Tom went to the park, the sea and the garden with the dog and a big red ball.` }));
    let firstToken = 0;
    const measured = performance.now();
    await generator.generate('What did Lily see at the sea?', long, { onToken: () => (firstToken ||= performance.now()) });
    const evaluation = firstToken - measured;
    // Another question: its prompt differs from the question on, so it is evaluated again.
    const controller = new AbortController();
    const started = performance.now();
    const leave = setTimeout(() => controller.abort(new Error('left')), evaluation / 5);
    await expect(generator.generate('Where did Tom go with the dog?', long, { signal: controller.signal })).rejects.toThrow('left');
    clearTimeout(leave);
    // Evaluated in one go, the prompt was stopped only at its first token, after the whole evaluation.
    expect(performance.now() - started).toBeLessThan(evaluation * 0.6);
  });

  it('reads again none of a prompt it has just read: the same question again starts at once', async () => {
    const long = Array.from({ length: 60 }, (_, id) => ({ id, text: `Night ${id}: the cat and the bird sang by the river with a small boat.` }));
    const firstTokenAfter = async () => {
      let firstToken = 0;
      const started = performance.now();
      await generator.generate('What did the cat sing?', long, { onToken: () => (firstToken ||= performance.now()) });
      return firstToken - started;
    };
    const first = await firstTokenAfter();
    const again = await firstTokenAfter();
    // Read afresh, the prompt would take as long again (the first slice had erased the rest of it).
    expect(again).toBeLessThan(first * 0.3);
  });
});

describe.skipIf(!present)('stories260K.gguf closed while it answers', () => {
  it("stops the answer before disposing of the model: it fails as shut down (it failed with node-llama-cpp's DisposedError, or its decode's failure went uncaught)", async () => {
    const generator = await createGenerator(SETTINGS);
    let closed: Promise<void> | undefined;
    const run = generator.generate('Where did Lily go?', contexts, { onToken: () => (closed ??= generator.close()) });
    await expect(run).rejects.toThrow(ModelUnavailableError);
    await expect(run).rejects.toThrow('the language model was shut down');
    await closed;
  });
});
