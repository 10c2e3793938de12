/**
 * The generator used when no language model is configured: it answers with
 * the sentences of the top contexts that best match the question and cites
 * the contexts they come from. It keeps the QA endpoints useful on a fresh
 * machine, with nothing to download.
 */
import { makeResult } from './answer.js';
import { BoundedQueue } from './queue.js';
import { quoteOf, sentenceScoring, terms, type ScoredSentence } from './sentences.js';
import { finishInTurns } from './turns.js';
import { contextsOf, type Context, type Contexts, type GenerateOptions, type GenerationResult, type Generator } from './types.js';

interface ExtractiveOptions {
  /** How many of the best-ranked contexts are read. */
  maxContexts?: number;
  /** Most sentences in an answer. */
  maxSentences?: number;
  /** Share of the question's (idf-weighted) terms the best sentence must contain. */
  minCoverage?: number;
  /** Distinct question terms the best sentence must contain (fewer when the question has fewer). */
  minMatched?: number;
  /** Longest quote of one sentence, in characters; a longer "sentence" (text without end punctuation) is cut. */
  maxQuoteChars?: number;
  /** Questions waiting before QueueFullError (--llm-queue-size). */
  queueSize?: number;
  /** Places of the queue (answered or waiting) one caller may hold (--llm-queue-per-client); 0 = no per-caller bound. */
  queuePerClient?: number;
}

// minCoverage 0.25: on SciFact claims, the best sentence of the gold abstracts reaches it for 62% of the
// claims, the best sentence of five random abstracts for 4%. minMatched 2: one shared word ("France",
// "life") is how off-topic questions got answers; requiring two took the false answers on the labelled
// sets of test/fixtures/answerability from 5 to 0 (demo) and 11 to 5 (SciFact) without losing an answer
// to an answerable question (bench/results/qa.md; 0.4 coverage or half the question's words cost far more recall).
// maxQuoteChars 600: four times a typical abstract sentence (~150 characters), so real sentences are quoted whole;
// a table or sequence dump with no sentence punctuation (30 KB seen) is cut instead of quoted whole.
// queuePerClient 0: the server's share (half the places by default) comes from its configuration (createGenerator).
const DEFAULTS: Required<ExtractiveOptions> = { maxContexts: 5, maxSentences: 3, minCoverage: 0.25, minMatched: 2, maxQuoteChars: 600, queueSize: 8, queuePerClient: 0 };

// A sentence joins the answer only if it scores at least this share of the best one.
const RELATIVE_CUTOFF = 0.5;

export class ExtractiveGenerator implements Generator {
  readonly kind = 'extractive' as const;
  readonly description: string;
  private readonly options: Required<ExtractiveOptions>;
  /**
   * Composing an answer takes milliseconds and needs no queue, but contexts that come from QA's
   * reranking (see Contexts) are produced in a slot: the queue bounds how many questions rerank at
   * once, as with a model.
   */
  private readonly queue: BoundedQueue;

  constructor(options: ExtractiveOptions = {}) {
    this.options = { ...DEFAULTS, ...options };
    this.queue = new BoundedQueue(this.options.queueSize, { perCaller: { places: this.options.queuePerClient, setting: '--llm-queue-per-client' } });
    this.description =
      `extractive: up to ${this.options.maxSentences} best-matching sentences ` +
      `of the top ${this.options.maxContexts} contexts (no language model configured)`;
  }

  async generate(question: string, contexts: Contexts, options: GenerateOptions = {}): Promise<GenerationResult> {
    const { signal, onAdmitted, caller } = options;
    if (Array.isArray(contexts)) {
      onAdmitted?.();
      return this.answer(question, contexts, options);
    }
    return this.queue.run(
      async (slot) => {
        const result = await this.answer(question, await contextsOf(contexts), options);
        // The reranking done here is what a waiting question waits for.
        slot.served();
        return result;
      },
      { signal, onAdmitted, caller },
    );
  }

  private async answer(question: string, contexts: Context[], options: GenerateOptions): Promise<GenerationResult> {
    options.signal?.throwIfAborted();
    const top = contexts.slice(0, this.options.maxContexts);
    const chosen = await this.choose(question, top);

    const result =
      chosen.length === 0
        ? makeResult(false, this.explain(question, top), [], contexts)
        : makeResult(
            true,
            chosen.map((s) => quoteOf(s.text, this.options.maxQuoteChars)).join(' '),
            chosen.map((s) => top[s.contextIndex]!.id),
            contexts,
          );
    stream(result.answer, options);
    return result;
  }

  async close(): Promise<void> {}

  private async choose(question: string, contexts: Context[]): Promise<ScoredSentence[]> {
    // In turns of the event loop: over five paragraphs of 100,000 characters this is 40 to 150 ms of CPU, more for longer ones.
    const scored = await finishInTurns(sentenceScoring(question, textsOf(contexts)));
    const best = scored[0];
    if (!best || best.coverage < this.options.minCoverage || best.matched < Math.min(this.options.minMatched, best.questionTerms)) return [];
    // The same sentence can occur in several paragraphs (abstract repeated in the body): say it once.
    const seen = new Set<string>();
    return scored
      .filter((s) => s.score >= best.score * RELATIVE_CUTOFF && !seen.has(s.text) && seen.add(s.text))
      .slice(0, this.options.maxSentences);
  }

  private explain(question: string, contexts: Context[]): string {
    if (contexts.length === 0) return 'No context was retrieved for this question, so it cannot be answered.';
    if (terms(question).length === 0) return 'The question has no content words to match against the contexts.';
    return `None of the ${contexts.length} retrieved contexts contains a sentence that matches the question well enough to answer it.`;
  }
}

/** The contexts' texts, each read (QA reads it from the index on first use) only when the scorer comes to it. */
function* textsOf(contexts: readonly Context[]): Iterable<string> {
  for (const context of contexts) yield context.text;
}

/** Sends the answer word by word (each word with its following whitespace). */
function stream(answer: string, options: GenerateOptions): void {
  if (!options.onToken) return;
  for (const word of answer.match(/\S+\s*/g) ?? []) {
    options.signal?.throwIfAborted();
    options.onToken(word);
  }
}
