/**
 * --reranker-queue-per-client: the configured reranker holds one client to its share of the queue's
 * places (half of them by default), while other clients are still admitted; calls without a client
 * (the CLI, eval, benchmarks) are bounded by the queue alone.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTinyOnnxModel } from '../../scripts/make-tiny-onnx.js';
import { createReranker, type Reranker } from '../../src/rerank/index.js';
import { QueueFullError } from '../../src/llm/types.js';
import { helpText, loadConfig } from '../../src/config.js';

let root: string;
let dir: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'tiny-onnx-share-'));
  dir = path.join(root, 'cross');
  await writeTinyOnnxModel(dir, { kind: 'cross-encoder' });
});
afterAll(() => rm(root, { recursive: true, force: true }));

const query = 'What does the hippocampus do during sleep?';
// Enough batches that a scoring is still running when the next request comes.
const passages = Array.from({ length: 20 }, (_, i) => `The hippocampus consolidates memory during sleep ${i}.`);

async function configured(rerankerQueuePerClient: number | null): Promise<Reranker> {
  return (await createReranker({ rerankerModel: dir, rerankerThreads: 1, rerankerBatchSize: 2, rerankerQueueSize: 1, rerankerQueuePerClient }))!;
}

describe('the configured reranker', () => {
  it("holds one client to half the queue's places by default, while another client is admitted", async () => {
    const reranker = await configured(null);
    try {
      // One scoring and one waiting: one place each.
      const first = reranker.score(query, passages, undefined, '192.0.2.1');
      const refused = await reranker.score(query, passages, undefined, '192.0.2.1').catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(QueueFullError);
      expect((refused as Error).message).toMatch(
        /^too many rerankings are waiting for the reranker from this client: it holds its share of the queue \(1 place, --reranker-queue-per-client\); retry in about \d+ s$/,
      );
      const other = reranker.score(query, passages, undefined, '192.0.2.2');
      const [a, b] = await Promise.all([first, other]);
      expect(b).toEqual(a);
    } finally {
      await reranker.close();
    }
  });

  it('bounds no client with 0, nor calls without a client', async () => {
    for (const [perClient, caller] of [
      [0, '192.0.2.1'],
      [null, undefined],
    ] as const) {
      const reranker = await configured(perClient);
      try {
        const admitted = [reranker.score(query, passages, undefined, caller), reranker.score(query, passages, undefined, caller)];
        const refused = await reranker.score(query, passages, undefined, caller).catch((e: unknown) => e);
        expect((refused as Error).message).toMatch(/^too many rerankings are waiting for the reranker \(1\)/);
        await Promise.all(admitted);
      } finally {
        await reranker.close();
      }
    }
  });
});

describe('--reranker-queue-per-client', () => {
  it('is unset by default (half the places), 0 for no limit, and bounded like its neighbours', () => {
    expect(loadConfig([], {}).rerankerQueuePerClient).toBeNull();
    expect(loadConfig([], { RERANKER_QUEUE_PER_CLIENT: '0' }).rerankerQueuePerClient).toBe(0);
    expect(loadConfig(['--reranker-queue-per-client', '4'], {}).rerankerQueuePerClient).toBe(4);
    for (const raw of ['-1', 'half', '', '1.5']) {
      expect(() => loadConfig(['--reranker-queue-per-client', raw], {})).toThrow(
        `--reranker-queue-per-client / RERANKER_QUEUE_PER_CLIENT must be an integer between 0 and 10000, got "${raw}"`,
      );
    }
    expect(helpText()).toContain('--reranker-queue-per-client / RERANKER_QUEUE_PER_CLIENT  (default: half of the queue, rounded up; 0 to 10000)');
  });
});
