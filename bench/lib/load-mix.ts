/**
 * The load benchmark's request mix and one measured step of it, shared by
 * bench/load.ts (one server, rising concurrency) and bench/replicas-load.ts
 * (one server against replicas behind a balancer): autocannon against a base
 * URL, latencies by kind of request, statuses, and the resident memory of the
 * server processes behind that URL.
 */
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { random } from '../../scripts/lib/random.js';
import { createProgress } from '../../src/progress.js';
import { IndexWriter } from '../../src/search/index-writer.js';
import { ADMIN_TOKEN, writeAdminAuthFile } from '../../test/reliability/server-process.js';
import { sentenceSource, syntheticArticles } from './synthetic-corpus.js';
import { percentile } from './stats.js';

export const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

export type Kind = 'count' | 'listing' | 'search' | 'suggestions' | 'archive' | 'write';

export interface Spec {
  kind: Kind;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** What a step measures: a base URL and the processes that answer it. */
export interface LoadTarget {
  base: string;
  pids: () => number[];
  /** Throws when a process behind the URL died. */
  assertAlive: () => void;
}

export interface StepResult {
  connections: number;
  seconds: number;
  loadAverage: number;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  statuses: Record<string, number>;
  errors: number;
  timeouts: number;
  byKind: Record<string, { n: number; p50: number; p99: number }>;
  /** Resident memory of all the target's processes together, sampled every second. */
  rss: { min: number; max: number; end: number; series: number[] };
}

/** The generated index the mix searches, built once into `dir` and kept. */
export async function buildLoadIndex(dir: string, paragraphs: number): Promise<void> {
  if (existsSync(path.join(dir, 'manifest.json'))) return;
  const progress = createProgress('index', 'items');
  const writer = await IndexWriter.open(dir);
  let written = 0;
  for (const article of syntheticArticles(paragraphs, sentenceSource())) {
    await writer.add(article);
    written += article.paragraphs.length;
    if (written % 5000 < article.paragraphs.length) progress.update(written, paragraphs);
  }
  await writer.commit();
  progress.stop();
}

/** An auth file where the admin token may do anything and anonymous callers may read (the literature routes need it). */
export async function writeLoadAuthFile(dir: string): Promise<string> {
  const authFile = await writeAdminAuthFile(dir);
  await writeFile(authFile, JSON.stringify({ tokens: { [ADMIN_TOKEN]: { realm: 'local', subject: 'admin' } }, acls: { '/': { anonymous: ['resources/read'], 'local/admin': ['*'] } } }));
  return authFile;
}

/** An organisation, a project, 20 files of 64 KiB and an archive of them plus 5 articles. */
export async function prepareArchive(base: string): Promise<void> {
  const json = { ...admin, 'content-type': 'application/json' };
  for (const url of ['/v1/orgs/bench', '/v1/projects/bench/files']) await fetch(`${base}${url}`, { method: 'PUT', headers: json, body: '{}' });
  const rand = random(3);
  for (let i = 0; i < 20; i++) {
    const form = new FormData();
    const text = Array.from({ length: 4096 }, () => Math.floor(rand() * 1e6).toString(36)).join(',').slice(0, 65536);
    form.append('file', new Blob([text], { type: 'text/csv' }), `trace-${i}.csv`);
    const response = await fetch(`${base}/v1/files/bench/files/trace-${i}`, { method: 'PUT', headers: admin, body: form });
    if (response.status !== 201) throw new Error(`file upload: ${response.status} ${await response.text()}`);
  }
  const articles = ['syn-0', 'syn-1', 'syn-2', 'syn-3', 'syn-4'].map((id) => ({ '@type': 'Resource', project: 'literature/articles', resourceId: id }));
  const files = Array.from({ length: 20 }, (_, i) => ({ '@type': 'File', resourceId: `trace-${i}` }));
  const created = await fetch(`${base}/v1/archives/bench/files/bundle`, {
    method: 'PUT',
    headers: { ...json, accept: 'application/json' },
    body: JSON.stringify({ resources: [...articles, ...files] }),
  });
  if (created.status !== 201) throw new Error(`archive: ${created.status} ${await created.text()}`);
}

/**
 * The request mix, in proportion: 4 count, 4 listing, 6 search, 3 suggestions,
 * 1 archive download per 18 requests; with `writes`, that many resource
 * creations (POST, a new id each) are added to those 18.
 */
export function workload(writes = 0): Spec[] {
  const rand = random(11);
  // Words of the corpus's own sentences, so searches find paragraphs (a search that finds none is a 404 by the spec).
  const source = sentenceSource();
  const pick = () => {
    const words = source.sentence(rand).toLowerCase().match(/[a-z]{5,}/g) ?? ['cells'];
    return words[Math.floor(rand() * words.length)]!;
  };
  const get = (kind: Kind, url: string, headers: Record<string, string> = {}): Spec => ({ kind, method: 'GET', path: url, headers });
  const specs: Spec[] = [];
  for (let i = 0; i < 4; i++) {
    specs.push(get('count', `/retrieval/article_count?topics=${pick()}${i % 2 ? '&date_from=2010-01-01' : ''}`));
    specs.push(get('listing', `/retrieval/article_listing?topics=${pick()}&size=20${i % 2 ? '&article_types=research-article' : ''}`));
  }
  for (let i = 0; i < 6; i++) specs.push(get('search', `/retrieval/?query=${pick()}%20${pick()}&retriever_k=${i % 2 ? 100 : 10}${i % 3 === 0 ? '&date_from=2005-01-01' : ''}`));
  specs.push(get('suggestions', '/suggestions/article_types'), get('suggestions', `/suggestions/author?name=${'abcdefgh'[Math.floor(rand() * 8)]}`), get('suggestions', '/suggestions/journal?keywords=journal'));
  specs.push(get('archive', '/v1/archives/bench/files/bundle', { ...admin, accept: 'application/zip' }));
  for (let i = 0; i < writes; i++) {
    const body = JSON.stringify({ '@type': 'Dataset', name: `measurement ${i}`, values: Array.from({ length: 20 }, () => Math.round(rand() * 1000)) });
    specs.push({ kind: 'write', method: 'POST', path: '/v1/resources/bench/files/_', headers: { ...admin, 'content-type': 'application/json' }, body });
  }
  // Interleave so every connection sees the mix, not long runs of one kind.
  return specs.sort(() => rand() - 0.5);
}

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

const totalRss = (target: LoadTarget) => Math.round(target.pids().reduce((sum, pid) => sum + rssMiB(pid), 0));

/** `connections` clients send the mix for `seconds` (each client walks the list in order, so kinds are counted exactly). */
export async function step(target: LoadTarget, specs: Spec[], connections: number, seconds: number): Promise<StepResult> {
  const loadAverage = os.loadavg()[0]!;
  const series: number[] = [];
  const sampler = setInterval(() => {
    try {
      target.assertAlive();
      series.push(totalRss(target));
    } catch {
      // reported after the step
    }
  }, 1000);
  const byKind = new Map<Kind, number[]>();
  const position = new Map<object, number>();
  let finished!: (result: autocannon.Result) => void;
  let failed!: (error: Error) => void;
  const done = new Promise<autocannon.Result>((resolve, reject) => ((finished = resolve), (failed = reject)));
  const instance = autocannon(
    {
      url: target.base,
      connections,
      duration: seconds,
      timeout: 30,
      requests: specs.map(({ method, path: url, headers, body }) => ({ method, path: url, headers, ...(body !== undefined && { body }) })),
    },
    (error, result) => (error ? failed(error) : finished(result)),
  );
  instance.on('response', (client: object, _status: number, _bytes: number, responseTime: number) => {
    const index = position.get(client) ?? 0;
    position.set(client, index + 1);
    const kind = specs[index % specs.length]!.kind;
    const times = byKind.get(kind) ?? [];
    times.push(responseTime);
    byKind.set(kind, times);
  });
  const result = await done;
  clearInterval(sampler);
  target.assertAlive();
  series.push(totalRss(target));
  const statuses: Record<string, number> = {};
  // autocannon files the requests its timeout gave up on under the status "undefined".
  for (const [code, { count }] of Object.entries(result.statusCodeStats ?? {}) as [string, { count: number }][]) statuses[code === 'undefined' ? 'none' : code] = Number(count);
  return {
    connections,
    seconds,
    loadAverage: Math.round(loadAverage * 100) / 100,
    requestsPerSecond: Math.round(result.requests.average * 10) / 10,
    p50: result.latency.p50,
    p99: result.latency.p99,
    statuses,
    errors: result.errors,
    timeouts: result.timeouts,
    byKind: Object.fromEntries(
      [...byKind.entries()].map(([kind, times]) => {
        const sorted = times.sort((a, b) => a - b);
        return [kind, { n: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99) }];
      }),
    ),
    rss: { min: Math.min(...series), max: Math.max(...series), end: series.at(-1)!, series },
  };
}

/** Answers with a 5xx status other than the 503 of load shedding. */
export function serverErrorsOf(s: StepResult): number {
  return Object.entries(s.statuses)
    .filter(([code]) => /^5\d\d$/.test(code) && code !== '503')
    .reduce((n, [, count]) => n + count, 0);
}

export function describeStep(s: StepResult): string {
  const statuses = Object.entries(s.statuses).map(([code, count]) => `${code}×${count}`).join(' ');
  return `${s.connections} connections: ${s.requestsPerSecond} req/s, p50 ${s.p50} ms, p99 ${s.p99} ms, ${statuses}, errors ${s.errors}, RSS ${s.rss.min}-${s.rss.max} MiB (load ${s.loadAverage})`;
}
