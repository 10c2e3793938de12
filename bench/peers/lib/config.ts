/**
 * Settings of the peer comparison, all from the environment so that quick runs
 * need no code change:
 *   PEERS_PARAGRAPHS   size of the generated corpus (default 1,000,000, as issue 5 asks)
 *   PEERS              comma-separated subset of the peers (default: all)
 *   PEERS_QUERIES      queries per query set (default 200)
 *   PEERS_REPEATS      measured repetitions of every figure; medians are reported (default 3)
 *   PEERS_SECONDS      time budget of one repetition of one cell: slow peers answer a
 *                      prefix of the query list instead of the whole of it (default 5); a
 *                      throughput repetition cycles its list for at least MIN_THROUGHPUT_SECONDS
 *   PEERS_THREADS      threads (or processes) of the throughput runs (default: the cores)
 *   PEERS_CORPORA      scifact,generated (default both)
 *   PEERS_REPORT       base name of the results in bench/results (default peers: peers.md,
 *                      peers.json, peers-*.svg), e.g. peers-200k to keep a smaller run beside the full one
 */
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { BenchSettingError, positiveFromEnv } from '../../lib/settings.js';

export const PEER_NAMES = ['engine', 'engine-http', 'lucene', 'xapian', 'sqlite-fts5', 'minisearch', 'orama'] as const;
export type PeerName = (typeof PEER_NAMES)[number];
export type CorpusName = 'scifact' | 'generated';

type Env = Record<string, string | undefined>;

function listFromEnv<T extends string>(env: Env, name: string, allowed: readonly T[]): T[] {
  const raw = env[name];
  if (!raw) return [...allowed];
  const values = raw.split(',').map((v) => v.trim()).filter(Boolean);
  if (values.length === 0) throw new BenchSettingError(`${name} names nothing, got "${raw}" (known: ${allowed.join(', ')})`);
  for (const value of values) {
    if (!allowed.includes(value as T)) throw new BenchSettingError(`${name}: unknown "${value}" (known: ${allowed.join(', ')})`);
  }
  // The same peer twice would be measured twice under one name, and its ratios taken against either copy.
  const repeated = values.find((value, i) => values.indexOf(value) !== i);
  if (repeated) throw new BenchSettingError(`${name}: "${repeated}" is named twice`);
  return values as T[];
}

/** PEERS_REPORT: base name of the result files (also what render.ts re-renders). */
export function reportNameFromEnv(env: Env = process.env): string {
  const name = env.PEERS_REPORT || 'peers';
  if (!/^[a-z0-9][a-z0-9-]*$/.test(name)) throw new BenchSettingError(`PEERS_REPORT must be a file base name (a-z, 0-9, -), got "${name}"`);
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

export function loadBenchConfig(env: Env = process.env): BenchConfig {
  const peers = listFromEnv(env, 'PEERS', PEER_NAMES);
  // engine-http serves the index the engine peer builds in the same run; alone it would serve whatever an earlier run left.
  if (peers.includes('engine-http') && !peers.includes('engine')) {
    throw new BenchSettingError('PEERS: engine-http serves the index the engine peer builds in this run: add engine');
  }
  return {
    paragraphs: positiveFromEnv(env, 'PEERS_PARAGRAPHS', 1_000_000, true),
    peers,
    corpora: listFromEnv<CorpusName>(env, 'PEERS_CORPORA', ['scifact', 'generated']),
    queriesPerSet: positiveFromEnv(env, 'PEERS_QUERIES', 200, true),
    repeats: positiveFromEnv(env, 'PEERS_REPEATS', 3, true),
    secondsPerCell: positiveFromEnv(env, 'PEERS_SECONDS', 5, false),
    threads: positiveFromEnv(env, 'PEERS_THREADS', availableParallelism(), true),
    reportName: reportNameFromEnv(env),
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

/** The shortest repetition of a throughput cell, seconds (the budget when smaller): the mixed list is cycled until then. */
export const MIN_THROUGHPUT_SECONDS = 1;

export const throughputWindow = (config: Pick<BenchConfig, 'secondsPerCell'>) => Math.min(MIN_THROUGHPUT_SECONDS, config.secondsPerCell);
