/**
 * A generator backed by a local GGUF model through node-llama-cpp.
 *
 * One model and one context sequence serve every request, one at a time,
 * behind a bounded queue. Output is constrained by a JSON-schema grammar, so
 * it parses; the answer string is streamed as it is generated. Models with a
 * chat template are prompted through it, others with a plain completion
 * prompt.
 */
import { stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import type {
  ChatWrapper,
  Llama,
  LlamaCompletion,
  LlamaContext,
  LlamaContextSequence,
  LlamaGrammar,
  LlamaModel,
} from 'node-llama-cpp';
import { codePointCount } from '../text/unicode.js';
import { importNodeLlamaCpp } from '../runtime/carried.js';
import { makeResult } from './answer.js';
import { AnswerStreamExtractor } from './answer-stream.js';
import { answerLengthBound, answerSchema, readModelOutput } from './grammar.js';
import { completionPrompt, contextBlock, fitContexts, SYSTEM_PROMPT, userMessage } from './prompt.js';
import { PromptBudget } from './prompt-budget.js';
import { sharedPrefixLength, sliceCuts } from './prompt-slices.js';
import { BoundedQueue, type Slot } from './queue.js';
import {
  contextsOf,
  IncompleteAnswerError,
  ModelUnavailableError,
  type Context,
  type Contexts,
  type GenerateOptions,
  type GenerationResult,
  type Generator,
  type Logger,
} from './types.js';

interface LlamaGeneratorOptions {
  modelPath: string;
  gpu?: boolean;
  /** Requested context window; capped at the model's training context. */
  contextSize: number;
  maxTokens: number;
  /** 0 = greedy. */
  temperature: number;
  /** Questions allowed to wait while one is generated. */
  queueSize: number;
  /** Places of the queue (generated or waiting) one caller may hold (--llm-queue-per-client); absent or 0 = no per-caller bound. */
  queuePerClient?: number;
  /** CPU threads; default half the cores, leaving the rest to HTTP and search. */
  threads?: number;
  /**
   * Longest answer the grammar allows, in characters. The default is about
   * half the token budget in the prompt's language (`answerLengthBound`), so
   * the grammar closes the answer and the sources still fit.
   */
  answerMaxChars?: number;
  /** Sampling seed, for reproducible output when temperature > 0. */
  seed?: number;
  logger?: Logger;
}

/** Cumulative counters, for benchmarks and reporting. */
interface GenerationStats {
  generations: number;
  promptTokens: number;
  /** Time from the request to the first generated token (prompt evaluation). */
  promptMs: number;
  generatedTokens: number;
  /** Time from the first generated token to the last. */
  decodeMs: number;
  /** Answers cut short by the token limit (their JSON did not parse), answered as IncompleteAnswerError. */
  truncated: number;
}

const SETTING = '--llm-model / LLM_MODEL';
/** llama.cpp's line saying why a model file could not be loaded (a cut-short file: "tensor … data is not within the file bounds"). */
const MODEL_LOAD_ERROR = /error loading model: (.+)$/;
/** Characters of the user message without question or contexts: what a question's rate of tokens per character leaves out. */
const EMPTY_MESSAGE_CHARACTERS = codePointCount(userMessage('', []));
/**
 * How long close() waits for the question using the model to end once stopped. It stops between two decodes, so
 * within one decode's time: a prompt batch, less than a second for small models, longer for large ones on a CPU.
 */
const STOPPING_BOUND_MS = 5_000;

// Imported on first use: node-llama-cpp is large, and most servers run without a model.
let nodeLlama: Awaited<ReturnType<typeof importNodeLlamaCpp>>;

type Prompting =
  | { kind: 'chat'; wrapper: ChatWrapper }
  | { kind: 'completion'; completion: LlamaCompletion };

/**
 * Why a model file could not be read, when llama.cpp did not say: node-llama-cpp reads the GGUF header itself, and
 * one cut short inside its metadata fails in JavaScript ("Cannot read properties of undefined (reading
 * 'architecture')", "size out of range"), which names nothing wrong with the file.
 */
function readingFailure(error: unknown): string {
  if (error instanceof TypeError || error instanceof RangeError) return `not a complete GGUF model file: its header is cut short or damaged (reading it failed: ${error.message})`;
  return error instanceof Error ? error.message : String(error);
}

export async function loadLlamaGenerator(options: LlamaGeneratorOptions): Promise<LlamaGenerator> {
  const modelPath = path.resolve(options.modelPath);
  const file = await stat(modelPath).catch(() => null);
  if (!file?.isFile()) {
    const found = file === null ? 'file not found' : file.isDirectory() ? 'is a directory, not a GGUF file' : 'is not a regular file';
    throw new ModelUnavailableError(`language model ${found}: ${modelPath}; set ${SETTING} to a GGUF file, or unset it to use the extractive generator`);
  }

  let llama: Llama | undefined;
  let model: LlamaModel | undefined;
  let generator: LlamaGenerator;
  /**
   * What llama.cpp said of the model it failed to load: its error says only "Failed to load model". (Once a process
   * has disposed of a model's runtime, llama.cpp prints its lines itself and the reason is node-llama-cpp's words:
   * only tests load several models in one process.)
   */
  const loadErrors: string[] = [];
  try {
    nodeLlama ??= await importNodeLlamaCpp();
    const { getLlama, LlamaLogLevel } = nodeLlama;
    // Prebuilt binaries only: nothing is compiled or downloaded at run time. Its error lines go to the log.
    llama = await getLlama({
      gpu: options.gpu ? 'auto' : false,
      build: 'never',
      logLevel: LlamaLogLevel.error,
      logger: (_level, message) => {
        const line = message.trim();
        const reason = MODEL_LOAD_ERROR.exec(line)?.[1];
        if (reason !== undefined) loadErrors.push(reason);
        if (options.logger) options.logger.warn({ source: 'llama.cpp' }, line);
        else process.stderr.write(`[llama.cpp] ${line}\n`);
      },
    });
    if (options.gpu && llama.gpu === false) options.logger?.warn({}, '--llm-gpu / LLM_GPU: no GPU this runtime can use was found; the language model runs on the CPU');
    model = await llama.loadModel({ modelPath, gpuLayers: options.gpu ? 'auto' : 0 });
    const context = await model.createContext({
      contextSize: Math.min(options.contextSize, model.trainContextSize),
      threads: options.threads ?? Math.max(1, Math.floor(availableParallelism() / 2)),
      sequences: 1,
    });
    generator = new LlamaGenerator(llama, model, context, options);
  } catch (error) {
    await model?.dispose().catch(() => undefined);
    await llama?.dispose().catch(() => undefined);
    throw new ModelUnavailableError(`cannot load the language model ${modelPath}: ${loadErrors.at(-1) ?? readingFailure(error)}; check ${SETTING}`, { cause: error });
  }
  // Settings under which no question can be answered are refused here, once, rather than by every question.
  const refusal = generator.budget.refusal(generator.shortestPromptTokens());
  if (refusal) {
    await generator.close();
    throw refusal;
  }
  const warning = generator.budget.warning();
  if (warning) options.logger?.warn({ contextSize: generator.budget.settingsInForce.llmContextSize, maxTokens: options.maxTokens }, warning);
  return generator;
}

export class LlamaGenerator implements Generator {
  readonly kind = 'llama' as const;
  readonly description: string;
  readonly stats: GenerationStats = { generations: 0, promptTokens: 0, promptMs: 0, generatedTokens: 0, decodeMs: 0, truncated: 0 };
  /** How the context window is shared between the prompt and the answer. */
  readonly budget: PromptBudget;
  private readonly sequence: LlamaContextSequence;
  private readonly prompting: Prompting;
  private readonly queue: BoundedQueue;
  /** Tokens of the prompt without question or contexts: counted once, as the instructions never change. */
  private readonly instructionTokens: number;
  /** The question holding the model (the queue's slot), if one ever did: close() stops it and waits for its end. */
  private inSlot: { stop: AbortController; ended: Promise<void> } | undefined;
  /**
   * The prompt text the sequence holds evaluated: the last one read, or as much of it as its slices read. Its shared
   * start with the next prompt is not sliced again (prompt-slices.ts); a hint only, as node-llama-cpp compares tokens.
   */
  private evaluatedPrompt = '';

  constructor(
    private readonly llama: Llama,
    private readonly model: LlamaModel,
    private readonly context: LlamaContext,
    private readonly options: LlamaGeneratorOptions,
  ) {
    this.budget = new PromptBudget(
      { asked: options.contextSize, trained: model.trainContextSize, inForce: context.contextSize },
      options.maxTokens,
    );
    this.sequence = context.getSequence();
    this.queue = new BoundedQueue(options.queueSize, { perCaller: { places: options.queuePerClient ?? 0, setting: '--llm-queue-per-client' } });
    // Only a template shipped in the file counts: resolveChatWrapper would otherwise guess one from the architecture.
    this.prompting = model.fileInfo.metadata.tokenizer?.chat_template
      ? { kind: 'chat', wrapper: nodeLlama.resolveChatWrapper(model) }
      : { kind: 'completion', completion: new nodeLlama.LlamaCompletion({ contextSequence: this.sequence }) };
    this.instructionTokens = this.countPromptTokens('', []);
    const prompting = this.prompting.kind === 'chat' ? `chat template ${this.prompting.wrapper.wrapperName}` : 'completion prompt';
    // The device in use, not the one asked for: --llm-gpu on a machine without one runs on the CPU.
    const device = llama.gpu === false ? 'CPU' : `GPU (${llama.gpu})`;
    this.description =
      `llama.cpp: ${path.basename(options.modelPath)} (${prompting}, ${this.budget.describeWindow()}, ` +
      `${options.maxTokens} max tokens, temperature ${options.temperature}, ${device})`;
  }

  get settingsInForce(): { llmContextSize: number } {
    return this.budget.settingsInForce;
  }

  /** The prompt format in use. */
  get promptFormat(): 'chat' | 'completion' {
    return this.prompting.kind;
  }

  async generate(question: string, contexts: Contexts, options: GenerateOptions = {}): Promise<GenerationResult> {
    // A question too long for any prompt is refused at once: it would wait its turn, then have its contexts
    // produced (QA reranks them in the slot: seconds of CPU for hundreds of paragraphs), only to be refused.
    const withoutContexts = this.countPromptTokens(question, []);
    if (withoutContexts > this.budget.tokens) throw this.budget.tooLong(withoutContexts);
    const { signal, onAdmitted, caller } = options;
    return this.queue.run((slot) => this.answerInSlot(question, contexts, options, slot), { signal, onAdmitted, caller });
  }

  refuseWaiting(reason: Error): void {
    this.queue.clear(reason);
  }

  async close(): Promise<void> {
    const shutDown = new ModelUnavailableError('the language model was shut down');
    this.queue.clear(shutDown);
    // node-llama-cpp disposed of under a running decode fails where nothing can catch it (an unhandled DisposedError,
    // which ended the server with exit 1): the question using the model is stopped, and its end awaited, first.
    this.inSlot?.stop.abort(shutDown);
    if (this.inSlot && !(await settlesWithin(this.inSlot.ended, STOPPING_BOUND_MS))) {
      // Disposing now would be that crash; the process, which is ending, frees the model.
      this.options.logger?.warn({ boundMs: STOPPING_BOUND_MS }, 'the answer being generated did not stop in time: the language model is left undisposed');
      return;
    }
    await this.context.dispose();
    await this.model.dispose();
    await this.llama.dispose();
  }

  /** Answers while holding the slot, stopped by the caller's signal or by close(). */
  private answerInSlot(question: string, contexts: Contexts, options: GenerateOptions, slot: Slot): Promise<GenerationResult> {
    const { controller: stop, unfollow } = following(options.signal);
    const answered = (async () => this.answer(question, await contextsOf(contexts), { ...options, signal: stop.signal }, slot))();
    const ended = answered.then(unfollow, unfollow);
    this.inSlot = { stop, ended };
    return answered;
  }

  private async answer(question: string, contexts: Context[], options: GenerateOptions, slot: Slot): Promise<GenerationResult> {
    const budget = this.budget.tokens;
    const kept = await fitContexts(
      contexts,
      {
        prompt: (subset) => this.countPromptTokens(question, subset),
        // +1 for the line break that joins it to the prompt.
        context: (context) => this.model.tokenize(contextBlock(context)).length + 1,
      },
      budget,
    );
    if (kept === null) throw this.budget.tooLong(this.countPromptTokens(question, []));
    // Routine, not a warning: without reranking, retriever_k's 500 paragraphs never all fit a prompt.
    if (kept.length < contexts.length) {
      this.options.logger?.info(
        { dropped: contexts.length - kept.length, kept: kept.length, contextSize: this.context.contextSize },
        'contexts did not fit the language model context window; dropped them, keeping the best-ranked that fit',
      );
    }
    if (kept.length === 0) {
      // Without a context the model could only answer from its own knowledge, uncited.
      return unanswered(this.noContextFits(question, contexts.length), options);
    }

    const promptTokens = this.countPromptTokens(question, kept);
    const answerMaxChars = this.options.answerMaxChars ?? answerLengthBound(this.options.maxTokens, this.tokensPerCharacter(question, kept, promptTokens));
    // A grammar per question: it lists the ids this prompt may cite (a few ms to build).
    const schema = answerSchema(kept.map((c) => c.id), answerMaxChars);
    const grammar = await this.llama.createGrammarForJsonSchema(schema);
    const extractor = new AnswerStreamExtractor();
    let generatedTokens = 0;
    let firstTokenAt = 0;
    const settings = {
      grammar,
      maxTokens: this.options.maxTokens,
      temperature: this.options.temperature,
      seed: this.options.seed,
      signal: options.signal,
      onToken: (tokens: readonly unknown[]) => {
        if (generatedTokens === 0) firstTokenAt = performance.now();
        generatedTokens += tokens.length;
      },
      onTextChunk: (chunk: string) => {
        const text = extractor.push(chunk);
        if (text) options.onToken?.(text);
      },
    };

    slot.served();
    const started = performance.now();
    const prompt = this.promptText(question, kept);
    await this.evaluateInSlices(prompt, promptTokens, options.signal);
    const output = await this.run(prompt, settings);
    const ended = performance.now();
    this.record({
      promptTokens,
      promptMs: (firstTokenAt || ended) - started,
      generatedTokens,
      decodeMs: firstTokenAt ? ended - firstTokenAt : 0,
    });

    const { answer, complete } = readModelOutput(output);
    if (!complete) {
      this.stats.truncated++;
      // An answer cut mid-sentence, often before its sources, must not pass for a whole one.
      throw new IncompleteAnswerError(answer.answer, output, this.options.maxTokens, {
        given: kept.length,
        offered: contexts.length,
        boundBy: options.contextsBoundBy,
      });
    }
    // A blank answer explains nothing: the raw answer would be a bare "<bbs_error>".
    if (answer.answer.trim() === '') return unanswered('The language model gave no answer from the retrieved contexts.', options);
    return makeResult(answer.has_answer, answer.answer, answer.sources, kept);
  }

  /** What the model is given: the whole prompt for a completion, the user's message for a chat template. */
  private promptText(question: string, contexts: Context[]): string {
    return this.prompting.kind === 'completion' ? completionPrompt(question, contexts) : userMessage(question, contexts);
  }

  /**
   * Evaluates the prompt's prefixes one slice more at a time (prompt-slices.ts), generating one token after each,
   * so that `signal` stops the evaluation between slices; the answer's run then reuses what they evaluated.
   */
  private async evaluateInSlices(prompt: string, promptTokens: number, signal: AbortSignal | undefined): Promise<void> {
    const held = sharedPrefixLength(prompt, this.evaluatedPrompt);
    this.evaluatedPrompt = prompt.slice(0, held);
    for (const cut of sliceCuts(prompt, promptTokens, held)) {
      await this.run(prompt.slice(0, cut), { maxTokens: 1, signal });
      this.evaluatedPrompt = prompt.slice(0, cut);
    }
    // The answer's run reads the rest. Should it stop first, the sequence lacks at most the last slice, which
    // the next question's run reads again, in one go: node-llama-cpp compares tokens, so no answer changes.
    this.evaluatedPrompt = prompt;
  }

  private async run(prompt: string, settings: GenerationSettings | SliceSettings): Promise<string> {
    if (this.prompting.kind === 'completion') return this.prompting.completion.generateCompletion(prompt, settings);
    // A fresh session per question: no chat history carries over, while the
    // sequence still reuses the evaluated prefix (system prompt) across questions.
    const session = new nodeLlama.LlamaChatSession({
      contextSequence: this.sequence,
      chatWrapper: this.prompting.wrapper,
      systemPrompt: SYSTEM_PROMPT,
      autoDisposeSequence: false,
    });
    try {
      return await session.prompt(prompt, settings);
    } finally {
      session.dispose({ disposeSequence: false });
    }
  }

  /**
   * Why no context fits, and what to change. A question near the limit leaves no room for any context:
   * then it is the question to shorten (the settings were blamed, and raising them is often not possible).
   */
  private noContextFits(question: string, offered: number): string {
    const budget = this.budget.tokens;
    const instructions = this.shortestPromptTokens();
    const withQuestion = this.countPromptTokens(question, []);
    const remedy = 'raise --llm-context-size or lower --max-paragraph-length';
    const questionTakesMost = (withQuestion - instructions) * 2 > budget - instructions;
    return (
      `None of the ${offered} retrieved contexts fits the language model's context window: the instructions and the question take ` +
      `${withQuestion} of the ${budget} tokens the prompt may have; ${questionTakesMost ? `ask a shorter question, or ${remedy}` : remedy}.`
    );
  }

  /** The prompt without question or contexts: every prompt is at least this long. */
  shortestPromptTokens(): number {
    return this.instructionTokens;
  }

  /**
   * Tokens per character of what the question and contexts add to the shortest prompt: the rate the
   * answer, written in their language, will cost. (The instructions are English whatever the question.)
   */
  private tokensPerCharacter(question: string, contexts: readonly Context[], promptTokens: number): number {
    const characters = codePointCount(userMessage(question, contexts)) - EMPTY_MESSAGE_CHARACTERS;
    return characters > 0 ? (promptTokens - this.shortestPromptTokens()) / characters : 0;
  }

  private countPromptTokens(question: string, contexts: readonly Context[]): number {
    if (this.prompting.kind === 'completion') {
      // +1 for the beginning-of-sequence token llama.cpp adds.
      return this.model.tokenize(completionPrompt(question, contexts)).length + 1;
    }
    const { contextText } = this.prompting.wrapper.generateContextState({
      chatHistory: [
        { type: 'system', text: SYSTEM_PROMPT },
        { type: 'user', text: userMessage(question, contexts) },
        { type: 'model', response: [] },
      ],
    });
    return contextText.tokenize(this.model.tokenizer).length;
  }

  private record(run: Omit<GenerationStats, 'generations' | 'truncated'>): void {
    this.stats.generations++;
    this.stats.promptTokens += run.promptTokens;
    this.stats.promptMs += run.promptMs;
    this.stats.generatedTokens += run.generatedTokens;
    this.stats.decodeMs += run.decodeMs;
    // The first token's time belongs to prompt evaluation, so the decode rate counts the others.
    const tokensPerSecond = run.decodeMs > 0 ? Math.round(((run.generatedTokens - 1) * 1000) / run.decodeMs) : null;
    // Per question, so debug: at info the request's own log line is the one line per request.
    this.options.logger?.debug(
      { ...run, promptMs: Math.round(run.promptMs), decodeMs: Math.round(run.decodeMs), tokensPerSecond },
      'generated an answer',
    );
  }
}

/**
 * A controller aborted when `signal` is (with its reason), and by its holder; `unfollow` stops following `signal`.
 * Not AbortSignal.any with close()'s signal: Node 20 keeps every signal made so from a long-lived one.
 */
function following(signal: AbortSignal | undefined): { controller: AbortController; unfollow: () => void } {
  const controller = new AbortController();
  const abort = () => controller.abort(signal?.reason);
  if (signal?.aborted) abort();
  else signal?.addEventListener('abort', abort, { once: true });
  return { controller, unfollow: () => signal?.removeEventListener('abort', abort) };
}

/** Whether `promise`, which never rejects, settles within `ms`. */
async function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** An explanation in place of the model's answer, streamed too, so the streamed text is the answer. */
function unanswered(explanation: string, options: GenerateOptions): GenerationResult {
  options.onToken?.(explanation);
  return makeResult(false, explanation, [], []);
}

/** A slice of the prompt is evaluated for the one token that ends it: no grammar, no callbacks. */
interface SliceSettings {
  maxTokens: 1;
  signal: AbortSignal | undefined;
}

interface GenerationSettings {
  grammar: LlamaGrammar;
  maxTokens: number;
  temperature: number;
  seed: number | undefined;
  signal: AbortSignal | undefined;
  onToken: (tokens: readonly unknown[]) => void;
  onTextChunk: (chunk: string) => void;
}
