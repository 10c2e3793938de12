/** Re-scores retrieved passages against the question with a local ONNX model. */
export interface Reranker {
  /** cross-encoder: one relevance logit per (query, passage) pair; bi-encoder: cosine of embeddings. */
  readonly kind: 'cross-encoder' | 'bi-encoder';
  readonly description: string;
  /**
   * One score per passage, in the passages' order; higher is more relevant. An aborted `signal`
   * (the client went away) stops the scoring between batches; the promise rejects with its reason.
   * `caller`, the asking client's key (clientKey), counts against its share of a queued reranker's
   * places; none (the CLI, eval): no per-caller bound.
   */
  score(query: string, passages: string[], signal?: AbortSignal, caller?: string): Promise<number[]>;
  /** Refuses the scorings waiting for the model with `reason`, not the one running (as Generator.refuseWaiting). */
  refuseWaiting?(reason: Error): void;
  close(): Promise<void>;
}

/** The configured reranker model cannot be used; the message names the setting to fix. */
export class RerankerUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RerankerUnavailableError';
  }
}
