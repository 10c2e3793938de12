/**
 * Settings of the peer comparison, all from the environment so that quick runs
 * need no code change:
 *   PEERS_PARAGRAPHS   size of the generated corpus (default 1,000,000, as issue 5 asks)
 *   PEERS              comma-separated subset of the peers (default: all)
 *   PEERS_QUERIES      queries per query set (default 200)
 *   PEERS_REPEATS      measured repetitions of every figure; medians are reported (default 3)
 *   PEERS_SECONDS      time budget of one repetition of one cell: slow peers answer a
 *                      prefix of the query list instead of the whole of it (default 5)
 *   PEERS_THREADS      threads (or processes) of the throughput runs (default: the cores)
 *   PEERS_CORPORA      scifact,generated (default both)
 *   PEERS_REPORT       base name of the results in bench/results (default peers: peers.md,
 *                      peers.json, peers-*.svg), e.g. peers-200k to keep a smaller run beside the full one
 */
import { availableParallelism } from 'node:os';
import path from 'node:path';

export const PEER_NAMES = ['engine', 'engine-http', 'lucene', 'xapian', 'sqlite-fts5', 'minisearch', 'orama'] as const;
export type PeerName = (typeof PEER_NAMES)[number];
export type CorpusName = 'scifact' | 'generated';

function numberFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return value;
}

function listFromEnv<T extends string>(name: string, allowed: readonly T[]): T[] {
  const raw = process.env[name];
  if (!raw) return [...allowed];
  const values = raw.split(',').map((v) => v.trim()).filter(Boolean);
  for (const value of values) {
    if (!allowed.includes(value as T)) throw new Error(`${name}: unknown "${value}" (known: ${allowed.join(', ')})`);
  }
  return values as T[];
}

function reportNameFromEnv(): string {
  const name = process.env.PEERS_REPORT || 'peers';
  if (!/^[a-z0-9][a-z0-9-]*$/.test(name)) throw new Error(`PEERS_REPORT must be a file base name (a-z, 0-9, -), got "${name}"`);
  return name;
}

export interface BenchConfig {
  paragraphs: number;
  peers: PeerName[];
  corpora: CorpusName[];
  queriesPerSet: number;
  repeats: number;
  secondsPerCell: number;
  threads: number;
  /** Base name of the result files in bench/results. */
  reportName: string;
  /** Scratch space for corpora and indexes (git-ignored). */
  workDir: string;
}

export function loadBenchConfig(): BenchConfig {
  return {
    paragraphs: Math.floor(numberFromEnv('PEERS_PARAGRAPHS', 1_000_000)),
    peers: listFromEnv('PEERS', PEER_NAMES),
    corpora: listFromEnv<CorpusName>('PEERS_CORPORA', ['scifact', 'generated']),
    queriesPerSet: Math.floor(numberFromEnv('PEERS_QUERIES', 200)),
    repeats: Math.floor(numberFromEnv('PEERS_REPEATS', 3)),
    secondsPerCell: numberFromEnv('PEERS_SECONDS', 5),
    threads: Math.floor(numberFromEnv('PEERS_THREADS', availableParallelism())),
    reportName: reportNameFromEnv(),
    workDir: path.resolve('bench', '.work', 'peers'),
  };
}

/** BM25 settings of the engine (its defaults); peers get the closest each offers. */
export const BM25 = { k1: 0.6, b: 0.75, titleWeight: 0.25 } as const;

/** The filter of the "with filter" figures, as in bench/scale.ts. */
export const FILTER = { dateFrom: '2010-01-01', dateTo: '2020-12-31', type: 'research-article' } as const;

/** How title and text are indexed. `split`: two fields, title weighted BM25.titleWeight
 * (the engine's own layout). `merged`: title and text as one field (BEIR / Pyserini). */
export type FieldMode = 'split' | 'merged';

export const K_VALUES = [10, 100, 1000] as const;
