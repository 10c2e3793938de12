/**
 * How a language model's context window is shared between the prompt (system
 * instruction, question, contexts) and the answer (--llm-max-tokens), and who
 * is to blame when a prompt does not fit: the question (413) or the server's
 * settings (503, naming them).
 */
import { ModelUnavailableError, PromptTooLongError } from './types.js';

/** The context window: as the operator asked for it, as the model was trained, and in force (never beyond training). */
interface ContextWindow {
  asked: number;
  trained: number;
  inForce: number;
}

// The prompt as evaluated runs a few tokens longer than its measured template (end-of-turn markers).
const PROMPT_MARGIN = 16;

// node-llama-cpp cuts the start off a prompt longer than the window less a tenth of it (the room its completions
// keep to shift the context): such a prompt lost the start of its instructions, and one read in slices
// (prompt-slices.ts) was read again in full, since its tokens no longer began as the slices' did.
const SHIFT_SHARE = 0.1;

// An answer budget leaving the prompt less than this share of the window is the settings' fault, not the
// question's: contexts are most of a prompt, and a question that fits half the window is not too long.
const PROMPT_SHARE = 0.5;

export class PromptBudget {
  /** Tokens the prompt may take. */
  readonly tokens: number;
  /** Tokens a prompt may take under settings that leave the prompt its share of the window. */
  private readonly fairShare: number;
  /** Tokens kept free of the prompt: the answer's, or node-llama-cpp's shift room when that is larger. */
  private readonly kept: number;

  constructor(
    private readonly window: ContextWindow,
    private readonly maxTokens: number,
  ) {
    this.kept = Math.max(maxTokens, 1, Math.floor(window.inForce * SHIFT_SHARE));
    this.tokens = window.inForce - this.kept - PROMPT_MARGIN;
    this.fairShare = Math.floor(window.inForce * PROMPT_SHARE);
  }

  /**
   * Why the model cannot be served with these settings (no prompt fits, however short the question),
   * or null. `shortestPrompt` is the prompt's size without question or contexts.
   */
  refusal(shortestPrompt: number): ModelUnavailableError | null {
    if (shortestPrompt <= this.tokens) return null;
    return new ModelUnavailableError(
      `${this.sharing()}, and the prompt needs ${shortestPrompt} tokens before any question or context: ${this.advice()}`,
      { settingsInForce: this.settingsInForce },
    );
  }

  /** A start-up warning when the settings leave the prompt less than its share of the window, else null. */
  warning(): string | null {
    if (this.tokens >= this.fairShare) return null;
    return `${this.sharing()}, less than half of it, so questions may answer 503 for want of room; ${this.advice()}`;
  }

  /** The error for a prompt of `promptTokens` without contexts that does not fit: the settings' when it would fit its share. */
  tooLong(promptTokens: number): Error {
    if (promptTokens <= this.fairShare) {
      return new ModelUnavailableError(`the server's settings leave too little room for the question: ${this.sharing()}; ${this.advice()}`);
    }
    return new PromptTooLongError(
      `the question is too long for the language model: its prompt needs ${promptTokens} tokens, ` +
        `more than the ${this.tokens} left of its ${this.window.inForce}-token context ` +
        (this.kept > this.maxTokens ? `(${this.kept}, a tenth, kept free for the answer and the model's context shift)` : `(${this.maxTokens} kept for the answer)`),
    );
  }

  /** The context size in force, which /settings shows in place of the one asked. */
  get settingsInForce(): { llmContextSize: number } {
    return { llmContextSize: this.window.inForce };
  }

  /** The context size in force, and the asked one when the model lowered it. */
  describeWindow(): string {
    const lowered = this.window.asked > this.window.inForce ? ` (the model's training context; --llm-context-size asked ${this.window.asked})` : '';
    return `${this.window.inForce}-token context${lowered}`;
  }

  private sharing(): string {
    return `--llm-max-tokens ${this.maxTokens} leaves the prompt ${Math.max(0, this.tokens)} tokens of the language model's ${this.describeWindow()}`;
  }

  private advice(): string {
    const { inForce, trained } = this.window;
    return inForce < trained
      ? `lower --llm-max-tokens or raise --llm-context-size (the model takes up to ${trained})`
      : 'lower --llm-max-tokens (the model takes no larger --llm-context-size)';
  }
}
