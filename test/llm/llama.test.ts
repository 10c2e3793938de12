/**
 * The GGUF generator end to end through node-llama-cpp, on tiny random-weight
 * models written by scripts/make-tiny-gguf.ts into a temporary directory.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getLlama, LlamaCompletion, LlamaLogLevel } from 'node-llama-cpp';
import { writeTinyGguf } from '../../scripts/make-tiny-gguf.js';
import { ERROR_SEPARATOR, SOURCES_SEPARATOR } from '../../src/llm/answer.js';
import { answerSchema } from '../../src/llm/grammar.js';
import { completionPrompt } from '../../src/llm/prompt.js';
import { createGenerator, ExtractiveGenerator, IncompleteAnswerError, LlamaGenerator, loadLlamaGenerator, ModelUnavailableError, PromptTooLongError, QueueFullError } from '../../src/llm/index.js';

let dir: string;
let plainModel: string;
let chatModel: string;
/** Trained for a 2048-token context, so a larger --llm-context-size is lowered to it. */
let shortContextModel: string;

const contexts = Array.from({ length: 6 }, (_, i) => ({
  id: 10 + i * 3,
  text: `Paragraph ${i}: the hippocampus supports memory consolidation in experiment ${i}.`,
}));

function options(modelPath: string) {
  return { modelPath, contextSize: 2048, maxTokens: 400, temperature: 0, queueSize: 4, threads: 1 };
}

function config(modelPath: string, overrides: Record<string, unknown> = {}) {
  return {
    llmModel: modelPath,
    llmGpu: false,
    llmContextSize: 2048,
    llmMaxTokens: 400,
    llmTemperature: 0,
    llmQueueSize: 4,
    llmQueuePerClient: null,
    llmThreads: 1,
    ...overrides,
  };
}

function recordingLogger() {
  const entries: { level: string; details: Record<string, unknown>; message: string }[] = [];
  return {
    entries,
    debug: (details: object, message: string) => entries.push({ level: 'debug', details: details as Record<string, unknown>, message }),
    info: (details: object, message: string) => entries.push({ level: 'info', details: details as Record<string, unknown>, message }),
    warn: (details: object, message: string) => entries.push({ level: 'warn', details: details as Record<string, unknown>, message }),
  };
}

async function load(modelPath: string, overrides: Record<string, unknown> = {}, logger = recordingLogger()) {
  const generator = await createGenerator(config(modelPath, overrides), logger);
  expect(generator).toBeInstanceOf(LlamaGenerator);
  return generator as LlamaGenerator;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'tiny-gguf-'));
  plainModel = path.join(dir, 'tiny.gguf');
  chatModel = path.join(dir, 'tiny-chat.gguf');
  await writeTinyGguf(plainModel);
  await writeTinyGguf(chatModel, { chatTemplate: true });
  shortContextModel = path.join(dir, 'tiny-2048.gguf');
  await writeTinyGguf(shortContextModel, { contextLength: 2048 });
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('answer grammar through llama.cpp', () => {
  it('always yields JSON of the answer shape, citing only given ids', async () => {
    const llama = await getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.error });
    const model = await llama.loadModel({ modelPath: plainModel });
    const context = await model.createContext({ contextSize: 2048, threads: 1 });
    const completion = new LlamaCompletion({ contextSequence: context.getSequence() });
    const ids = contexts.map((c) => c.id);
    const grammar = await llama.createGrammarForJsonSchema(answerSchema(ids, 60));
    const seen = new Set<boolean>();
    try {
      // Sampled (not greedy) so several seeds walk through both branches of the schema.
      for (let seed = 1; seed <= 8; seed++) {
        const { response, metadata } = await completion.generateCompletionWithMeta(completionPrompt('Which region?', contexts), {
          grammar,
          maxTokens: 400,
          temperature: 1,
          seed,
        });
        expect(metadata.stopReason).not.toBe('maxTokens');
        const parsed = JSON.parse(response);
        expect(Object.keys(parsed)).toEqual(['has_answer', 'answer', 'sources']);
        expect(typeof parsed.answer).toBe('string');
        // Random weights emit invalid UTF-8, which decodes to runs of U+FFFD for one grammar character.
        expect([...parsed.answer.replace(/\uFFFD+/g, '?')].length).toBeLessThanOrEqual(60);
        if (parsed.has_answer) {
          expect(parsed.sources.length).toBeGreaterThan(0);
          for (const id of parsed.sources) expect(ids).toContain(id);
        } else {
          expect(parsed.sources).toEqual([]);
        }
        seen.add(parsed.has_answer);
      }
      expect(seen.size).toBe(2);
    } finally {
      await context.dispose();
      await model.dispose();
      await llama.dispose();
    }
  });
});

describe('LlamaGenerator (completion prompt, no chat template)', () => {
  let generator: LlamaGenerator;
  const logger = recordingLogger();

  beforeAll(async () => {
    // A short answer bound keeps random weights within the token limit (they never close a string on their own).
    generator = await loadLlamaGenerator({ ...options(plainModel), maxTokens: 600, answerMaxChars: 100, logger });
  });
  afterAll(() => generator.close());

  it('describes itself', () => {
    expect(generator.kind).toBe('llama');
    expect(generator.promptFormat).toBe('completion');
    expect(generator.description).toContain('tiny.gguf');
    expect(generator.description).toContain('completion prompt');
  });

  it('answers with parsed output, streamed answer text and known sources only', async () => {
    const tokens: string[] = [];
    const result = await generator.generate('Which region supports memory?', contexts, { onToken: (t) => tokens.push(t) });
    expect(generator.stats.generations).toBe(1);
    expect(generator.stats.truncated).toBe(0);
    expect(generator.stats.generatedTokens).toBeGreaterThan(0);
    expect(tokens.length).toBeGreaterThan(0);
    expect(tokens.join('').trim()).toBe(result.answer);
    for (const id of result.sources) expect(contexts.map((c) => c.id)).toContain(id);
    if (result.hasAnswer) expect(result.raw).toBe(`${result.answer}\n${SOURCES_SEPARATOR}: ${result.sources.join(', ')}`);
    else expect(result.raw).toBe(`${ERROR_SEPARATOR}${result.answer}\n${SOURCES_SEPARATOR}:`);
    expect(logger.entries.some((e) => e.level === 'debug' && e.message === 'generated an answer' && e.details.generatedTokens === generator.stats.generatedTokens)).toBe(true);
  });

  it('is deterministic at temperature 0', async () => {
    const first = await generator.generate('Is it deterministic?', contexts);
    const second = await generator.generate('Is it deterministic?', contexts);
    expect(second).toEqual(first);
  });

  it('stops when the signal aborts and serves the next question', async () => {
    const controller = new AbortController();
    const tokens: string[] = [];
    const generatedBefore = generator.stats.generatedTokens;
    const run = generator.generate('Abort me', contexts, {
      signal: controller.signal,
      onToken: (t) => {
        tokens.push(t);
        controller.abort(new Error('client went away'));
      },
    });
    await expect(run).rejects.toThrow('client went away');
    expect(tokens.length).toBeLessThanOrEqual(2);
    // Aborted runs record nothing.
    expect(generator.stats.generatedTokens).toBe(generatedBefore);
    const next = await generator.generate('Still there?', contexts);
    expect(typeof next.answer).toBe('string');
  });

  it('refuses with QueueFullError beyond the waiting limit', async () => {
    const busy = await loadLlamaGenerator({ ...options(plainModel), queueSize: 1, maxTokens: 200, answerMaxChars: 40 });
    try {
      const first = busy.generate('one', contexts);
      const second = busy.generate('two', contexts);
      const third = busy.generate('three', contexts);
      const refusal = await third.catch((e: unknown) => e);
      expect(refusal).toBeInstanceOf(QueueFullError);
      expect((refusal as QueueFullError).retryAfterSeconds).toBeGreaterThanOrEqual(1);
      await expect(Promise.all([first, second])).resolves.toHaveLength(2);
    } finally {
      await busy.close();
    }
  });
});

describe('LlamaGenerator (chat template)', () => {
  it('prompts through the ChatML template the file declares', async () => {
    const generator = await load(chatModel);
    try {
      expect(generator.promptFormat).toBe('chat');
      expect(generator.description).toContain('chat template ChatML');
      const tokens: string[] = [];
      const first = await generator.generate('Which region?', contexts, { onToken: (t) => tokens.push(t) });
      expect(generator.stats.truncated).toBe(0);
      expect(tokens.join('').trim()).toBe(first.answer);
      // A second question starts a fresh chat on the same sequence and gives the same greedy answer.
      expect(await generator.generate('Which region?', contexts)).toEqual(first);
    } finally {
      await generator.close();
    }
  });
});

describe('context window', () => {
  it('drops the lowest-ranked contexts that do not fit and says how many', async () => {
    const logger = recordingLogger();
    // A short answer cap, so the tiny model's byte-sized tokens finish the JSON within the token limit.
    const generator = await loadLlamaGenerator({ ...options(plainModel), contextSize: 1024, maxTokens: 200, answerMaxChars: 40, logger });
    try {
      const many = Array.from({ length: 30 }, (_, i) => ({ id: i, text: `Context number ${i} talks about memory.` }));
      const result = await generator.generate('memory?', many);
      // Said at info: without reranking, retriever_k's paragraphs seldom all fit, so it is no warning.
      const said = logger.entries.find((e) => e.level === 'info' && /dropped/.test(e.message));
      expect(said).toBeDefined();
      const { kept, dropped } = said!.details as { kept: number; dropped: number };
      expect(kept).toBeGreaterThan(0);
      expect(dropped).toBeGreaterThan(0);
      expect(kept + dropped).toBe(30);
      // The prompt that was generated from fits the window.
      expect(generator.stats.promptTokens + 200).toBeLessThanOrEqual(1024);
      // Only kept (best-ranked) contexts can be cited.
      for (const id of result.sources) expect(id).toBeLessThan(kept);
    } finally {
      await generator.close();
    }
  });

  it('skips a best-ranked context too large for the window instead of dropping everything ranked below it', async () => {
    const logger = recordingLogger();
    const generator = await loadLlamaGenerator({ ...options(plainModel), contextSize: 2048, maxTokens: 200, answerMaxChars: 40, logger });
    try {
      const huge = { id: 0, text: 'memory '.repeat(2000) };
      const result = await generator.generate('memory?', [huge, ...contexts]);
      const said = logger.entries.find((e) => e.level === 'info' && /dropped/.test(e.message));
      expect(said?.details).toMatchObject({ kept: contexts.length, dropped: 1 });
      expect(result.sources).not.toContain(0);
      expect(generator.stats.promptTokens + 200).toBeLessThanOrEqual(2048);
    } finally {
      await generator.close();
    }
  });

  it('answers with the error separator, without running the model, when no context fits', async () => {
    const generator = await loadLlamaGenerator({ ...options(plainModel), contextSize: 1024, maxTokens: 200, answerMaxChars: 40 });
    try {
      const huge = [0, 1].map((id) => ({ id, text: 'memory '.repeat(2000) }));
      const streamed: string[] = [];
      const result = await generator.generate('memory?', huge, { onToken: (text) => streamed.push(text) });
      expect(streamed.join('')).toBe(result.answer);
      // A model given no context could only answer from its own knowledge, with nothing to cite.
      expect(generator.stats.generations).toBe(0);
      expect(result).toMatchObject({ hasAnswer: false, sources: [] });
      expect(result.raw.startsWith('<bbs_error>')).toBe(true);
      expect(result.answer).toMatch(/None of the 2 retrieved contexts fits .* --llm-context-size/);
    } finally {
      await generator.close();
    }
  });

  it('rejects a question that cannot fit at all', async () => {
    const generator = await load(plainModel, { llmContextSize: 1024, llmMaxTokens: 100 });
    try {
      await expect(generator.generate('why '.repeat(400), contexts)).rejects.toBeInstanceOf(PromptTooLongError);
    } finally {
      await generator.close();
    }
  });
});

describe('settings that leave the prompt too little of the context window', () => {
  it('refuses the model at load, naming both settings and the context in force, when not even the shortest prompt fits', async () => {
    const logger = recordingLogger();
    const error = await createGenerator(config(shortContextModel, { llmContextSize: 4096, llmMaxTokens: 2000 }), logger).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelUnavailableError);
    const message = (error as ModelUnavailableError).message;
    expect(message).toContain('--llm-max-tokens 2000 leaves the prompt 32 tokens');
    expect(message).toContain("2048-token context (the model's training context; --llm-context-size asked 4096)");
    expect(message).toMatch(/the prompt needs \d+ tokens before any question or context: lower --llm-max-tokens/);
    // /settings shows the context in force even though the model is not served.
    expect((error as ModelUnavailableError).settingsInForce).toEqual({ llmContextSize: 2048 });
  });

  it('says which context is in force when the model lowered the one asked, and does not warn when the prompt keeps its share', async () => {
    const logger = recordingLogger();
    const generator = await load(shortContextModel, { llmContextSize: 4096, llmMaxTokens: 200 }, logger);
    try {
      expect(generator.description).toContain("2048-token context (the model's training context; --llm-context-size asked 4096)");
      expect(generator.settingsInForce).toEqual({ llmContextSize: 2048 });
      expect(logger.entries.filter((e) => e.level === 'warn')).toEqual([]);
    } finally {
      await generator.close();
    }
  });

  it('warns at load; a question the settings leave no room for is ModelUnavailableError naming them, a long one PromptTooLongError', async () => {
    const logger = recordingLogger();
    // 2048 - 1400 - 16 = 632 tokens for the prompt: more than its shortest (the tiny vocabulary's ~560), less than half the window.
    const generator = await load(shortContextModel, { llmContextSize: 2048, llmMaxTokens: 1400 }, logger);
    try {
      const warning = logger.entries.find((e) => e.level === 'warn');
      expect(warning?.message).toMatch(/^--llm-max-tokens 1400 leaves the prompt 632 tokens of the language model's 2048-token context, less than half of it/);
      expect(warning?.message).toContain('lower --llm-max-tokens (the model takes no larger --llm-context-size)');

      const cramped = await generator.generate('memory? '.repeat(20), contexts).catch((e: unknown) => e);
      expect(cramped).toBeInstanceOf(ModelUnavailableError);
      expect((cramped as Error).message).toMatch(/^the server's settings leave too little room for the question: --llm-max-tokens 1400 leaves the prompt 632 tokens/);

      const long = await generator.generate('why '.repeat(400), contexts).catch((e: unknown) => e);
      expect(long).toBeInstanceOf(PromptTooLongError);
      expect((long as Error).message).toMatch(/^the question is too long for the language model: its prompt needs \d+ tokens, more than the 632 left/);
    } finally {
      await generator.close();
    }
  });
});

describe('blank answers', () => {
  it('explains a blank answer instead of returning an empty one', async () => {
    // An answer capped at 0 characters forces the model to write "".
    const generator = await loadLlamaGenerator({ ...options(plainModel), maxTokens: 200, answerMaxChars: 0 });
    try {
      const streamed: string[] = [];
      const result = await generator.generate('Which region?', contexts, { onToken: (text) => streamed.push(text) });
      expect(streamed.join('').trim()).toBe(result.answer);
      expect(generator.stats.generations).toBe(1);
      expect(result).toMatchObject({ hasAnswer: false, sources: [], answer: 'The language model gave no answer from the retrieved contexts.' });
      expect(result.raw).toBe(`<bbs_error>${result.answer}\n<bbs_sources>:`);
    } finally {
      await generator.close();
    }
  });
});

describe('token limit', () => {
  it('throws IncompleteAnswerError with the partial output when generation stops at maxTokens', async () => {
    const generator = await loadLlamaGenerator({ ...options(plainModel), maxTokens: 40 });
    try {
      const error = await generator.generate('Which region?', contexts).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(IncompleteAnswerError);
      const incomplete = error as IncompleteAnswerError;
      expect(incomplete.rawOutput).toMatch(/^\{/);
      expect(() => JSON.parse(incomplete.rawOutput)).toThrow();
      expect(incomplete.message).toContain('--llm-max-tokens');
      expect(generator.stats.truncated).toBe(1);
    } finally {
      await generator.close();
    }
  });

  it('advises lowering the parameter that bounds the contexts only when that would give the model fewer', async () => {
    const generator = await loadLlamaGenerator({ ...options(plainModel), maxTokens: 40 });
    const adviceFor = async (given: { id: number; text: string }[], contextsBoundBy?: 'reranker_k' | 'retriever_k') => {
      const error = await generator.generate('Which region?', given, { contextsBoundBy }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(IncompleteAnswerError);
      return (error as Error).message.split('; ')[1];
    };
    try {
      expect(await adviceFor(contexts, 'retriever_k')).toBe('raise --llm-max-tokens (LLM_MAX_TOKENS), or lower retriever_k below 6 so there is less to answer from');
      expect(await adviceFor(contexts, 'reranker_k')).toBe('raise --llm-max-tokens (LLM_MAX_TOKENS), or lower reranker_k below 6 so there is less to answer from');
      // From the CLI or eval: no request parameter to name.
      expect(await adviceFor(contexts)).toBe('raise --llm-max-tokens (LLM_MAX_TOKENS)');
      // One context: none can be taken away.
      expect(await adviceFor(contexts.slice(0, 1), 'retriever_k')).toBe('raise --llm-max-tokens (LLM_MAX_TOKENS)');
      // The context window left some out: the parameter did not choose what the model was given.
      const many = Array.from({ length: 100 }, (_, i) => ({ id: i, text: `Context number ${i} talks about memory.` }));
      expect(await adviceFor(many, 'retriever_k')).toBe('raise --llm-max-tokens (LLM_MAX_TOKENS)');
    } finally {
      await generator.close();
    }
  });
});

describe('createGenerator', () => {
  it('uses the extractive generator when no model is configured', async () => {
    const generator = await createGenerator(config(plainModel, { llmModel: null }));
    expect(generator).toBeInstanceOf(ExtractiveGenerator);
    expect(generator.kind).toBe('extractive');
  });

  it('names the setting to fix when the file is missing', async () => {
    const missing = path.join(dir, 'absent.gguf');
    const error = await createGenerator(config(missing)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelUnavailableError);
    expect((error as Error).message).toContain(missing);
    expect((error as Error).message).toContain('--llm-model / LLM_MODEL');
  });

  it('says a directory given as the model is one (it was "file not found")', async () => {
    const error = await createGenerator(config(dir)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelUnavailableError);
    expect((error as Error).message).toContain(`language model is a directory, not a GGUF file: ${dir}; set --llm-model / LLM_MODEL to a GGUF file`);
  });

  it('names the setting to fix when the file is not a usable GGUF', async () => {
    const broken = path.join(dir, 'broken.gguf');
    await writeFile(broken, 'this is not a model');
    const error = await createGenerator(config(broken)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelUnavailableError);
    expect((error as Error).message).toMatch(/cannot load the language model .*broken\.gguf.*--llm-model \/ LLM_MODEL/s);
  });

  it('says a model file cut short inside its header is one (it was "Cannot read properties of undefined")', async () => {
    const whole = await readFile(plainModel);
    // Its fixed part (magic, version, counts) and nothing of the metadata it announces.
    const cut = path.join(dir, 'header-only.gguf');
    await writeFile(cut, whole.subarray(0, 24));
    const error = await createGenerator(config(cut)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelUnavailableError);
    expect((error as Error).message).toMatch(new RegExp(`^cannot load the language model ${cut}: not a complete GGUF model file: its header is cut short or damaged \\(reading it failed: .+\\); check --llm-model / LLM_MODEL$`));
  });

  it('names the device in use, not the one asked for: --llm-gpu without a GPU runs on the CPU and says so', async () => {
    const logger = recordingLogger();
    const generator = await createGenerator(config(plainModel, { llmGpu: true }), logger);
    try {
      // No GPU here (a CI machine): a machine with one would load onto it, and this test names what it found.
      const llama = (generator as unknown as { llama: { gpu: string | false } }).llama;
      if (llama.gpu === false) {
        expect(generator.description).toMatch(/, CPU\)$/);
        expect(logger.entries.some((e) => e.level === 'warn' && e.message.startsWith('--llm-gpu / LLM_GPU: no GPU this runtime can use was found'))).toBe(true);
      } else {
        expect(generator.description).toMatch(new RegExp(`, GPU \\(${llama.gpu}\\)\\)$`));
      }
    } finally {
      await generator.close();
    }
  });
});
