/**
 * The contract between the QA pipeline and whatever composes answers: the
 * extractive generator (no model file) or a local GGUF model.
 */

/** One retrieved paragraph handed to a generator, best-ranked first. */
export interface Context {
  /** The number the answer's sources refer to. */
  id: number;
  /** QA reads it from the index on first use (a getter), so a generator should read it only for the contexts it uses. */
  readonly text: string;
  title?: string;
}

export interface GenerationResult {
  /** False when the contexts do not answer the question; `answer` then explains why. */
  hasAnswer: boolean;
  answer: string;
  /** Ids of the cited contexts, in citation order; only ids of the given contexts. */
  sources: number[];
  /** The answer in the spec's raw form (see `formatRawAnswer`). */
  raw: string;
}

/**
 * The contexts of a question, or the work that yields them (QA's reranking): a generator runs that
 * work only once the question holds its slot, so it waits its turn like generation does.
 */
export type Contexts = Context[] | (() => Promise<Context[]>);

export async function contextsOf(contexts: Contexts): Promise<Context[]> {
  return typeof contexts === 'function' ? contexts() : contexts;
}

export interface GenerateOptions {
  /** Stops generation; the promise then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Receives the answer text as it is produced; the chunks concatenate to `answer` (before trimming). */
  onToken?: (text: string) => void;
  /** Called once the question has a place in the generator's queue (not when it is refused with QueueFullError). */
  onAdmitted?: () => void;
  /**
   * The asking client's key (clientKey): it holds at most its share of the generator's queue, and of
   * the reranker's for the question's reranking. None (the CLI, eval): no per-caller bound.
   */
  caller?: string;
  /**
   * The request parameter that chose how many contexts are offered: reranker_k when they were reranked,
   * retriever_k when not. Named by the advice of an answer cut at the token limit; none from the CLI or eval.
   */
  contextsBoundBy?: ContextsBound;
}

type ContextsBound = 'reranker_k' | 'retriever_k';

interface ContextsGiven {
  given: number;
  offered: number;
  boundBy?: ContextsBound;
}

export interface Generator {
  readonly kind: 'extractive' | 'llama';
  /** Human-readable summary for /settings and logs. */
  readonly description: string;
  /** Settings the generator takes otherwise than given (a context window lowered to the model's), for /settings. */
  readonly settingsInForce?: { llmContextSize: number };
  generate(question: string, contexts: Contexts, options?: GenerateOptions): Promise<GenerationResult>;
  /**
   * Refuses the questions waiting for the model with `reason`, not the one it answers: at a drain's start they would
   * wait only to be cut when it ends. A generator without a queue has none.
   */
  refuseWaiting?(reason: Error): void;
  close(): Promise<void>;
}

/** The pino subset the model code logs through. */
export interface Logger {
  debug(details: object, message: string): void;
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/**
 * Too many questions already wait for the generator, or rerankings for the reranker (HTTP 429 with
 * Retry-After); or, given `callerShareSetting`, this caller already holds its share of the queue's
 * places (`count` of them), set by that setting, while other callers are still admitted.
 */
export class QueueFullError extends Error {
  readonly retryAfterSeconds: number;

  constructor(retryAfterSeconds: number, count: number, waitingFor: string, callerShareSetting?: string) {
    const whose =
      callerShareSetting === undefined
        ? `(${count})`
        : `from this client: it holds its share of the queue (${count} ${count === 1 ? 'place' : 'places'}, ${callerShareSetting})`;
    super(`too many ${waitingFor} ${whose}; retry in about ${retryAfterSeconds} s`);
    this.name = 'QueueFullError';
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * The language model cannot be used as configured (HTTP 503): its file is missing or does not load, or
 * --llm-max-tokens leaves the prompt too little of the context window. The message names the settings to fix.
 */
export class ModelUnavailableError extends Error {
  /** Settings the model was found to take otherwise than given (its context window), for /settings. */
  readonly settingsInForce?: { llmContextSize: number };

  constructor(message: string, options?: { cause?: unknown; settingsInForce?: { llmContextSize: number } }) {
    super(message, options);
    this.name = 'ModelUnavailableError';
    this.settingsInForce = options?.settingsInForce;
  }
}

/** The question alone does not fit the model's context window, under settings that leave the prompt its share (HTTP 413). */
export class PromptTooLongError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PromptTooLongError';
  }
}

/**
 * Generation stopped at the token limit before the answer was complete
 * (HTTP 502, code 6 "incomplete answer"). Carries what was generated.
 */
export class IncompleteAnswerError extends Error {
  constructor(
    /** The answer text generated before the limit. */
    readonly partialAnswer: string,
    /** The model's output as generated (cut-off JSON). */
    readonly rawOutput: string,
    maxTokens: number,
    /** Contexts the prompt carried, of those offered, and the request parameter that bounds them (none: no advice about them). */
    contexts?: ContextsGiven,
  ) {
    super(`the language model reached its limit of ${maxTokens} tokens before finishing the answer; raise --llm-max-tokens (LLM_MAX_TOKENS)${fewerContextsAdvice(contexts)}`);
    this.name = 'IncompleteAnswerError';
  }
}

/**
 * Lowering the parameter only gives the model less to answer from when the prompt carried every context
 * offered (else the context window, not the parameter, chose them) and more than one.
 */
function fewerContextsAdvice(contexts: ContextsGiven | undefined): string {
  if (contexts?.boundBy === undefined) return '';
  const { given, offered, boundBy } = contexts;
  if (given !== offered || given < 2) return '';
  return `, or lower ${boundBy} below ${given} so there is less to answer from`;
}
