/**
 * Ingest into a served index from another process, as an operator does: the
 * running server sees 1,000 new articles, then deletions, then a merge,
 * without a restart, while clients keep querying. No request fails, no client
 * sees the count go back once it has seen the new one, and the switch is
 * logged with its generation and shown by /settings. POST /admin/reload needs
 * write permission on the literature project.
 */
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../search/helpers.js';
import { kill, startServerProcess } from '../reliability/server-process.js';
import { COMPILED_MAIN } from '../compiled-server.js';

const NEW_ARTICLES = 1000;
/** The documented bound: detection (watch, or at worst the 1 s poll set below) plus loading the new segment and starting the pool. */
const VISIBLE_WITHIN_MS = 30_000;

const line = (id: string, text: string) => JSON.stringify({ article_id: id, title: `Article ${id}`, paragraphs: [{ section: 'Results', text }] });

function ingest(...args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [COMPILED_MAIN, 'ingest', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, output }));
  });
}

describe('ingest while serving', () => {
  it('serves new, deleted and merged generations without a restart and without a failed request', async () => {
    const { dir, cleanup } = await tempDir('litserve-live-');
    const indexDir = path.join(dir, 'index');
    const base = path.join(dir, 'base.jsonl');
    const update = path.join(dir, 'update.jsonl');
    await writeFile(base, Array.from({ length: 300 }, (_, i) => line(`base-${i}`, `basemarker neuron synapse ${i}`)).join('\n'));
    await writeFile(update, Array.from({ length: NEW_ARTICLES }, (_, i) => line(`new-${i}`, `newmarker neuron dendrite ${i}`)).join('\n'));
    const authFile = path.join(dir, 'auth.json');
    await writeFile(
      authFile,
      JSON.stringify({
        tokens: { 'live-admin': { realm: 'local', subject: 'admin' }, 'live-reader': { realm: 'local', subject: 'reader' } },
        acls: { '/': { 'local/admin': ['*'], 'local/reader': ['resources/read'] } },
      }),
    );
    const reader = { authorization: 'Bearer live-reader' };
    const adminAuth = { authorization: 'Bearer live-admin' };
    try {
      expect((await ingest('--input', base, '--index', indexDir)).code).toBe(0);
      const server = await startServerProcess({
        dataDir: path.join(dir, 'data'),
        indexDir,
        authFile,
        extraFlags: ['--search-threads', '2', '--index-poll-interval', '1s', '--log-level', 'info'],
      });
      try {
        const get = async (url: string) => {
          const response = await fetch(`${server.base}${url}`, { headers: reader });
          return { status: response.status, body: (await response.json()) as Record<string, unknown> };
        };
        const count = async (topic: string) => (await get(`/retrieval/article_count?topics=${topic}`)).body.article_count as number;
        const settings = async () => (await get('/settings')).body.index_stats as { generation: number; segments: number; articles: number };

        // Clients query throughout; any status but 200 is a failure, and so is a count going back.
        const failures: string[] = [];
        let requests = 0;
        let stop = false;
        const client = async () => {
          let seen = 0;
          while (!stop) {
            const counted = await get('/retrieval/article_count?topics=newmarker');
            const search = await get('/retrieval/?query=neuron%20dendrite&retriever_k=20');
            requests += 2;
            if (counted.status !== 200 || search.status !== 200) failures.push(`statuses ${counted.status} ${search.status}`);
            const now = counted.body.article_count as number;
            if (now < seen && now !== NEW_ARTICLES - 10) failures.push(`count went back from ${seen} to ${now}`);
            seen = Math.max(seen, now);
          }
        };
        const clients = Array.from({ length: 4 }, client);
        const initial = await settings();
        expect(initial.articles).toBe(300);

        const ingested = await ingest('--input', update, '--index', indexDir);
        expect(ingested.code, ingested.output).toBe(0);
        const published = Date.now();
        await expect.poll(() => count('newmarker'), { timeout: VISIBLE_WITHIN_MS, interval: 50 }).toBe(NEW_ARTICLES);
        const visibleMs = Date.now() - published;
        expect((await settings()).generation).toBe(initial.generation + 1);

        // Deletions, published by another process, are seen the same way.
        const deleted = await ingest('--index', indexDir, '--delete', ...Array.from({ length: 10 }, (_, i) => `new-${i}`));
        expect(deleted.output).toMatch(/deleted 10 in/);
        await expect.poll(() => count('newmarker'), { timeout: VISIBLE_WITHIN_MS, interval: 50 }).toBe(NEW_ARTICLES - 10);
        expect((await get('/retrieval/?query=newmarker%201&retriever_k=1000')).body).not.toContainEqual(expect.objectContaining({ article_id: 'new-1' }));

        // A merge: one segment, same counts.
        expect((await ingest('--index', indexDir, '--merge')).code).toBe(0);
        await expect.poll(async () => (await settings()).segments, { timeout: VISIBLE_WITHIN_MS, interval: 50 }).toBe(1);
        expect(await count('newmarker')).toBe(NEW_ARTICLES - 10);
        expect(await count('basemarker')).toBe(300);

        stop = true;
        await Promise.all(clients);
        expect(failures).toEqual([]);
        expect(requests).toBeGreaterThan(20);
        expect(server.output()).toMatch(/"generation":\d+,"previousGeneration":\d+.*"msg":"index generation switched"/);
        process.stderr.write(`ingest-while-serving: 1,000 new articles visible ${visibleMs} ms after the ingest command exited; ${requests} requests, none failed\n`);

        // The explicit reload: write permission on the literature project; nothing new to load now.
        expect((await fetch(`${server.base}/admin/reload`, { method: 'POST', headers: reader })).status).toBe(403);
        const reload = await fetch(`${server.base}/admin/reload`, { method: 'POST', headers: adminAuth });
        expect(await reload.json()).toEqual({ switched: false, generation: (await settings()).generation, previous_generation: (await settings()).generation });
      } finally {
        await kill(server);
      }
    } finally {
      await cleanup();
    }
  }, 300_000);
});
