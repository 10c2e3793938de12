/**
 * The model download code against an HTTP server started here: good file,
 * wrong digest, 404, connection refused, stalled server, resume, redirects
 * with a server-advertised digest.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DownloadError, downloadFile, RECOMMENDED } from '../../scripts/fetch-models.js';

const body = randomBytes(300_000);
const digest = createHash('sha256').update(body).digest('hex');
const requests: { url: string; headers: IncomingHttpHeaders }[] = [];
let server: http.Server;
let base: string;
let dir: string;

/** Serves /file (with Range), /no-range (ignores Range), /redirect (HF-style, with X-Linked-Etag), /stall, 404 otherwise. */
function handle(req: http.IncomingMessage, res: http.ServerResponse): void {
  requests.push({ url: req.url!, headers: req.headers });
  const url = new URL(req.url!, base);
  if (url.pathname === '/redirect') {
    res.writeHead(302, { location: '/file', 'x-linked-etag': `"${url.searchParams.get('etag') ?? digest}"` }).end();
  } else if (url.pathname === '/file' || url.pathname === '/no-range') {
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    if (range && url.pathname === '/file') {
      const start = Number(range[1]);
      res.writeHead(206, { 'content-length': body.length - start, 'content-range': `bytes ${start}-${body.length - 1}/${body.length}` });
      res.end(body.subarray(start));
    } else {
      res.writeHead(200, { 'content-length': body.length }).end(body);
    }
  } else if (url.pathname === '/stall') {
    res.writeHead(200, { 'content-length': body.length });
    res.write(body.subarray(0, 1000)); // then nothing
  } else {
    res.writeHead(404).end('not found');
  }
}

beforeAll(async () => {
  server = http.createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dir = await mkdtemp(path.join(tmpdir(), 'fetch-models-'));
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  requests.length = 0;
});

const dest = (name: string) => path.join(dir, name, 'model.bin');

describe('downloadFile', () => {
  it('downloads, verifies the pinned digest, reports progress and renames the part', async () => {
    const target = dest('good');
    const progress: [number, number | null][] = [];
    const result = await downloadFile({ url: `${base}/file`, dest: target, sha256: digest, onProgress: (r, t) => progress.push([r, t]) });
    expect(result).toMatchObject({ sha256: digest, bytes: body.length, verified: 'pinned', resumedFrom: 0, skipped: false });
    expect((await readFile(target)).equals(body)).toBe(true);
    expect(existsSync(`${target}.part`)).toBe(false);
    expect(progress.at(-1)).toEqual([body.length, body.length]);
    expect(progress.length).toBeGreaterThan(1);

    // A second run finds the verified file and makes no request.
    requests.length = 0;
    expect((await downloadFile({ url: `${base}/file`, dest: target, sha256: digest })).skipped).toBe(true);
    expect(requests).toHaveLength(0);
  });

  it('keeps a present file without a pin, and replaces one that contradicts its pin', async () => {
    const target = dest('present');
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, 'an older download');
    expect(await downloadFile({ url: `${base}/file`, dest: target })).toMatchObject({ skipped: true, verified: 'none' });
    expect(requests).toHaveLength(0);
    const result = await downloadFile({ url: `${base}/file`, dest: target, sha256: digest });
    expect(result).toMatchObject({ skipped: false, verified: 'pinned' });
    expect((await readFile(target)).equals(body)).toBe(true);
  });

  it('rejects a wrong digest and leaves nothing behind', async () => {
    const target = dest('wrong');
    const error = await downloadFile({ url: `${base}/file`, dest: target, sha256: 'ab'.repeat(32) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DownloadError);
    expect((error as Error).message).toContain(`expected ${'ab'.repeat(32)} (pinned), got ${digest}`);
    expect(existsSync(target)).toBe(false);
    expect(existsSync(`${target}.part`)).toBe(false);
  });

  it('reports HTTP errors such as 404', async () => {
    const target = dest('missing');
    await expect(downloadFile({ url: `${base}/nothing-here`, dest: target })).rejects.toThrow(/HTTP 404/);
    expect(existsSync(target)).toBe(false);
  });

  it('fails fast and clearly when nothing listens', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const started = Date.now();
    const error = await downloadFile({ url: `http://127.0.0.1:${port}/file`, dest: dest('refused') }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DownloadError);
    expect((error as Error).message).toMatch(/cannot reach 127\.0\.0\.1:\d+: .*ECONNREFUSED.*are you offline\?/);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('gives up on a stalled transfer and keeps the part for a later resume', async () => {
    const target = dest('stall');
    const error = await downloadFile({ url: `${base}/stall`, dest: target, idleTimeoutMs: 300 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DownloadError);
    expect((error as Error).message).toMatch(/interrupted after 1000 bytes.*run again to resume/);
    expect((await readFile(`${target}.part`)).length).toBe(1000);
  });

  it('resumes from a partial file with a Range request', async () => {
    const target = dest('resume');
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(`${target}.part`, body.subarray(0, 123_456));
    const result = await downloadFile({ url: `${base}/file`, dest: target, sha256: digest });
    expect(requests.at(-1)!.headers.range).toBe('bytes=123456-');
    expect(result).toMatchObject({ resumedFrom: 123_456, bytes: body.length, verified: 'pinned' });
    expect((await readFile(target)).equals(body)).toBe(true);
  });

  it('starts over when the server ignores the range', async () => {
    const target = dest('no-range');
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(`${target}.part`, body.subarray(0, 5000));
    const result = await downloadFile({ url: `${base}/no-range`, dest: target, sha256: digest });
    expect(result.resumedFrom).toBe(0);
    expect((await readFile(target)).equals(body)).toBe(true);
  });

  it('follows redirects and checks the digest the first hop advertises when none is pinned', async () => {
    const good = await downloadFile({ url: `${base}/redirect`, dest: dest('advertised') });
    expect(good.verified).toBe('server');
    expect(requests.map((r) => new URL(r.url, base).pathname)).toEqual(['/redirect', '/file']);

    const bad = await downloadFile({ url: `${base}/redirect?etag=${'cd'.repeat(32)}`, dest: dest('advertised-bad') }).catch((e: unknown) => e);
    expect((bad as Error).message).toContain(`expected ${'cd'.repeat(32)} (advertised by the server)`);
  });

  it('accepts an unverifiable file but says so', async () => {
    expect((await downloadFile({ url: `${base}/file`, dest: dest('unverified') })).verified).toBe('none');
  });
});

describe('recommended models', () => {
  it('names public Hugging Face URLs, well-formed digests and distinct destinations', () => {
    const files = RECOMMENDED.flatMap((b) => b.files);
    for (const file of files) {
      expect(file.url).toMatch(/^https:\/\/huggingface\.co\/[^/]+\/[^/]+\/resolve\/main\//);
      if (file.sha256 !== null) expect(file.sha256).toMatch(/^[0-9a-f]{64}$/);
    }
    expect(new Set(files.map((f) => f.path)).size).toBe(files.length);
    expect(files.map((f) => path.basename(f.path))).toEqual(['qwen2.5-0.5b-instruct-q4_k_m.gguf', 'model.onnx', 'tokenizer.json']);
  });
});
