/**
 * The reranker taken one scoring at a time, with at most `maxWaiting` waiting and
 * the rest refused at once (QueueFullError: 429 with Retry-After). A reranking is
 * up to seconds of CPU (GET /retrieval/ reranks 500 paragraphs by default), so
 * side by side each would slow down with every newcomer, up to --max-in-flight of
 * them, and none would finish sooner on the few cores this server runs on. A scoring
 * that names its caller counts against that caller's share of the places
 * (--reranker-queue-per-client), so one client cannot hold them all.
 */
import { BoundedQueue } from '../llm/queue.js';
import { type Reranker, RerankerUnavailableError } from './types.js';

export class QueuedReranker implements Reranker {
  private readonly queue: BoundedQueue;

  /** `perClient`: places (scoring or waiting) one caller may hold; 0 = no per-caller bound. */
  constructor(
    private readonly reranker: Reranker,
    maxWaiting: number,
    perClient = 0,
  ) {
    this.queue = new BoundedQueue(maxWaiting, {
      waitingFor: 'rerankings are waiting for the reranker',
      perCaller: { places: perClient, setting: '--reranker-queue-per-client' },
    });
  }

  get kind(): Reranker['kind'] {
    return this.reranker.kind;
  }

  get description(): string {
    return this.reranker.description;
  }

  async score(query: string, passages: string[], signal?: AbortSignal, caller?: string): Promise<number[]> {
    if (passages.length === 0) return [];
    return this.queue.run(
      async (slot) => {
        const scores = await this.reranker.score(query, passages, signal);
        slot.served();
        return scores;
      },
      { signal, caller },
    );
  }

  refuseWaiting(reason: Error): void {
    this.queue.clear(reason);
  }

  async close(): Promise<void> {
    this.queue.clear(new RerankerUnavailableError('the server is shutting down'));
    await this.reranker.close();
  }
}
