/** What a peer driven from Node implements; the protocol loop (peer-main.ts) does the timing. */
import { readFileSync } from 'node:fs';
import type { FieldMode } from '../lib/config.js';

/** Inclusive date bounds as YYYYMMDD integers and one article type. */
export interface Filter {
  from: number;
  to: number;
  type: string;
}

export interface NodePeer {
  build(corpusFile: string, indexDir: string, mode: FieldMode): Promise<void>;
  /** `threads`: the search threads of a peer that starts its pool with the index (engine-http's server); the others ignore it. */
  open(indexDir: string, mode: FieldMode, threads: number): Promise<void>;
  /** Runs one top-k search; returns the number of hits (checked across peers). */
  search(query: string, k: number, filter: Filter | null): Promise<number>;
  /** Article ids of the top-k paragraphs, duplicates removed, best first. */
  rank(query: string, k: number): Promise<string[]>;
  /** Multi-threaded throughput when the peer has threads of its own; else worker copies are used. */
  throughput?(queries: string[], k: number, filter: Filter | null, threads: number, maxSeconds: number, minSeconds: number): Promise<{ seconds: number; queries: number }>;
  /** Process whose memory is the peer's (the HTTP server); default this one. */
  memoryPid?(): number;
  versions(): Record<string, string>;
  close(): Promise<void>;
}

export function parseFilter(text: string): Filter | null {
  if (text === '-') return null;
  const [from, to, type] = text.split(':');
  return { from: Number(from), to: Number(to), type: type! };
}

/** Current and peak resident memory from /proc (the same source for every peer). */
export function memoryOf(pid: number | 'self' = 'self'): { rssMiB: number; peakRssMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMiB: kib('VmRSS') / 1024, peakRssMiB: kib('VmHWM') / 1024 };
}

export function packageVersion(name: string): string {
  const file = new URL(`../node_modules/${name}/package.json`, import.meta.url);
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

/** `YYYY-MM-DD` -> YYYYMMDD, 0 for a missing date (never inside a filter's range). */
export const dateNumber = (date: string) => (date ? Number(date.replaceAll('-', '')) : 0);
