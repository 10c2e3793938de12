/**
 * The question-answering pipeline: BM25 retrieval -> optional reranking ->
 * answer generation -> metadata of the cited contexts. Each stage is timed
 * (for logs and the QA benchmark).
 */
import { performance } from 'node:perf_hooks';
import type { ParagraphHit } from '../search/searcher.js';
import type { FilterSpec } from '../search/query/filter-spec.js';
import type { Library } from '../corpus/library.js';
import type { IndexReader, IndexView } from '../live/live-index.js';
import type { ContextMetadata } from '../corpus/model.js';
import type { Context, Contexts, GenerateOptions, Generator } from '../llm/types.js';
import { RerankerUnavailableError, type Reranker } from '../rerank/types.js';

export interface QaRequest {
  query: string;
  retrieverK: number;
  useReranker: boolean;
  rerankerK: number;
}

interface QaAnswer {
  answer: string;
  raw_answer: string;
  metadata: ContextMetadata[];
}

export interface StageTimings {
  retrieveMs: number;
  rerankMs: number;
  generateMs: number;
  metadataMs: number;
}

/** The one message for a search or question that no document matches (both routes answer 404 with it). */
const NO_DOCUMENTS_MESSAGE = 'No document found. Modify the filters or the query and try again.';

/**
 * Nothing to answer from. `reason` says why when it is not simply that no paragraph matched:
 * a query of stopwords alone, or matches all set aside as too long for a prompt, would
 * otherwise look like an empty corpus.
 */
export class NoDocumentsError extends Error {
  constructor(readonly reason?: string) {
    super(NO_DOCUMENTS_MESSAGE);
  }
}

/** Who asks for a reranking: the signal of its request, and its client's key (none from the CLI or eval). */
interface Asker {
  signal?: AbortSignal;
  caller?: string;
}

/** A retrieved paragraph on its way through the pipeline. */
interface Candidate {
  hit: ParagraphHit;
  /** 0-based BM25 rank: the context id the prompt and the sources list use. */
  contextId: number;
  rerankingScore: number | null;
}

export class QaPipeline {
  constructor(
    /** Each answer pins one index generation from retrieval to metadata. */
    private readonly index: IndexReader,
    /** The generator, or the reason it could not be loaded (answered as 503). */
    private readonly generator: () => Generator,
    private readonly reranker: Reranker | null,
    private readonly limits: { maxParagraphLength: number },
  ) {}

  /**
   * BM25 retrieval of retrieverK paragraphs, then, when asked and a reranker
   * is configured, the rerankerK best by reranker score (else BM25 order, all
   * retrieverK kept). GET /retrieval/'s; the QA endpoints take the same two
   * steps, the second in the generator's queue (see answerFrom). The hits are
   * positions in `view`'s generation, so the caller reads them from it. The asker's client
   * key counts the reranking against its share of the reranker's queue.
   */
  async retrieve(
    view: IndexView,
    request: QaRequest,
    filters: FilterSpec,
    asker: Asker = {},
  ): Promise<{ candidates: Candidate[]; retrieveMs: number; rerankMs: number }> {
    const started = performance.now();
    const retrieved = await this.search(view, request, filters);
    const retrieveMs = performance.now() - started;
    const { candidates, rerankMs } = await this.rerankIfAsked(view.library, request, retrieved, asker);
    return { candidates, retrieveMs, rerankMs };
  }

  async answer(request: QaRequest, filters: FilterSpec, options: GenerateOptions = {}): Promise<QaAnswer & { timings: StageTimings }> {
    const generator = this.generator(); // throws ModelUnavailableError before any work
    // One index generation from retrieval to metadata.
    return this.index.read((view) => this.answerFrom(view, generator, request, filters, options));
  }

  private async search(
    { searcher, library }: IndexView,
    request: QaRequest,
    filters: FilterSpec,
    { dropLongerThan = Infinity }: { dropLongerThan?: number } = {},
  ): Promise<Candidate[]> {
    const hits = await searcher.search(request.query, request.retrieverK, filters);
    if (hits.length === 0 && !searcher.hasSearchableWord(request.query)) {
      throw new NoDocumentsError('the query has no searchable word (only stopwords or punctuation)');
    }
    const candidates = hits
      .map((hit, rank) => ({ hit, contextId: rank, rerankingScore: null }))
      .filter((c) => library.paragraphShorterThan(c.hit, dropLongerThan));
    if (candidates.length === 0 && hits.length > 0) {
      throw new NoDocumentsError(
        `all ${hits.length} paragraphs found are longer than --max-paragraph-length (${dropLongerThan} characters) and were set aside`,
      );
    }
    if (candidates.length === 0) throw new NoDocumentsError();
    return candidates;
  }

  private async rerankIfAsked(
    library: Library,
    request: QaRequest,
    candidates: Candidate[],
    asker: Asker,
  ): Promise<{ candidates: Candidate[]; rerankMs: number }> {
    if (!this.willRerank(request) || candidates.length === 0) return { candidates, rerankMs: 0 };
    const started = performance.now();
    const reranked = await this.rerank(library, request, candidates, asker);
    return { candidates: reranked, rerankMs: performance.now() - started };
  }

  private willRerank(request: QaRequest): boolean {
    return request.useReranker && this.reranker !== null;
  }

  private async answerFrom(
    view: IndexView,
    generator: Generator,
    request: QaRequest,
    filters: FilterSpec,
    options: GenerateOptions,
  ): Promise<QaAnswer & { timings: StageTimings }> {
    const { library } = view;
    let started = performance.now();
    // Oversized paragraphs (data dumps, whole tables) would crowd everything else out of the prompt.
    const retrieved = await this.search(view, request, filters, { dropLongerThan: this.limits.maxParagraphLength });
    const retrieveMs = performance.now() - started;

    // Reranking runs in the generator's queue, not before it: a question the queue refuses costs no
    // reranking, and reranking (seconds of CPU for 500 paragraphs) is bounded like generation, one question
    // at a time, instead of by --max-in-flight alone. On the few cores this server runs on, the reranker and
    // the model compete for the same CPU, so running them side by side would not answer sooner.
    let candidates = retrieved;
    let rerankMs = 0;
    const reranks = this.willRerank(request);
    const asContexts = (kept: Candidate[]): Context[] => kept.map((c) => contextReadOnUse(c.contextId, () => library.paragraphText(c.hit)));
    const contexts: Contexts = reranks
      ? async () => {
          ({ candidates, rerankMs } = await this.rerankIfAsked(library, request, retrieved, options));
          return asContexts(candidates);
        }
      : asContexts(retrieved);
    started = performance.now();
    const result = await generator.generate(request.query, contexts, { ...options, contextsBoundBy: reranks ? 'reranker_k' : 'retriever_k' });
    // Queue wait included: what the question spent on its answer beyond reranking.
    const generateMs = performance.now() - started - rerankMs;

    started = performance.now();
    const byId = new Map(candidates.map((c) => [c.contextId, c]));
    // Generators only cite given contexts; an id outside them is dropped here too, never a 500.
    const metadata = result.sources
      .filter((id) => byId.has(id))
      .map((id) => {
        const c = byId.get(id)!;
        return library.contextMetadata(c.hit, c.contextId, c.rerankingScore);
      });
    const metadataMs = performance.now() - started;
    return { answer: result.answer, raw_answer: result.raw, metadata, timings: { retrieveMs, rerankMs, generateMs, metadataMs } };
  }

  /** Scores every retrieved paragraph and keeps the rerankerK best (ties keep BM25 order). */
  private async rerank(library: Library, request: QaRequest, candidates: Candidate[], { signal, caller }: Asker): Promise<Candidate[]> {
    const scores = await this.reranker!.score(
      request.query,
      candidates.map((c) => library.paragraphText(c.hit)),
      signal,
      caller,
    );
    // A missing score or NaN can be neither ordered nor written as JSON: such a model is broken (503 naming the setting).
    if (scores.length !== candidates.length || !scores.every(Number.isFinite)) {
      throw new RerankerUnavailableError(
        `the reranker gave ${scores.length} scores for ${candidates.length} paragraphs, or a score that is not a finite number; ` +
          'check --reranker-model / RERANKER_MODEL',
      );
    }
    return candidates
      .map((c, i) => ({ ...c, rerankingScore: scores[i]! }))
      .sort((a, b) => b.rerankingScore! - a.rerankingScore! || a.contextId - b.contextId)
      .slice(0, request.rerankerK);
  }
}

/**
 * A context whose text is read on first use, then kept. Unreranked, QA offers retriever_k paragraphs (up to
 * 1,000) while the extractive generator uses its top few and a model those that fit its prompt: reading every
 * text first cost a fragment read and parse each, before the question was even admitted. Unlike Contexts'
 * deferred form, the list is ready, so the extractive generator still answers at once, outside its queue.
 */
function contextReadOnUse(id: number, readText: () => string): Context {
  let text: string | undefined;
  return {
    id,
    get text() {
      return (text ??= readText());
    },
  };
}
