/**
 * Downloads the recommended real models into <data>/models:
 *   - Qwen2.5-0.5B-Instruct, Q4_K_M GGUF (the language model, --llm-model)
 *   - cross-encoder/ms-marco-MiniLM-L-6-v2, ONNX + tokenizer.json (--reranker-model)
 *
 *   npm run models:fetch -- [--data DIR] [--only qwen|ms-marco] [--sha256 RELATIVE_PATH=HEX] [--connect-timeout MS]
 *
 * Each file goes to "<file>.part" and is renamed once complete and verified,
 * so an interrupted run resumes where it stopped (HTTP Range). Verification:
 *   1. a pinned sha256 (below, or --sha256) must match;
 *   2. otherwise the sha256 Hugging Face advertises for LFS files
 *      (X-Linked-Etag) must match, which catches corrupt or partial files
 *      but trusts the server;
 *   3. otherwise (small non-LFS files) the computed digest is printed so it
 *      can be pinned.
 * Offline, it fails within the connect timeout with a clear message.
 */
import { createHash, type Hash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../src/config.js';

export class DownloadError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DownloadError';
  }
}

export interface ModelFile {
  url: string;
  /** Destination, relative to <data>/models. */
  path: string;
  /** Known digest; null when none could be pinned with confidence. */
  sha256: string | null;
}

export interface ModelBundle {
  name: string;
  /** The setting that points the server at this model. */
  use: (modelsDir: string) => string;
  files: ModelFile[];
}

const HF = 'https://huggingface.co';

export const RECOMMENDED: ModelBundle[] = [
  {
    name: 'qwen',
    use: (dir) => `--llm-model ${path.join(dir, 'qwen2.5-0.5b-instruct', 'qwen2.5-0.5b-instruct-q4_k_m.gguf')}`,
    files: [
      {
        url: `${HF}/Qwen/Qwen2.5-0.5B-Instruct-GGUF/resolve/main/qwen2.5-0.5b-instruct-q4_k_m.gguf`,
        path: 'qwen2.5-0.5b-instruct/qwen2.5-0.5b-instruct-q4_k_m.gguf',
        // Not pinned: no digest could be confirmed offline; the LFS sha256 Hugging Face advertises is checked instead.
        sha256: null,
      },
    ],
  },
  {
    name: 'ms-marco',
    use: (dir) => `--reranker-model ${path.join(dir, 'ms-marco-MiniLM-L-6-v2')}`,
    files: [
      {
        url: `${HF}/cross-encoder/ms-marco-MiniLM-L-6-v2/resolve/main/onnx/model.onnx`,
        path: 'ms-marco-MiniLM-L-6-v2/model.onnx',
        // From a third-party pin of this file (91,011,230 bytes); override with --sha256 if upstream changes it.
        sha256: '5d3e70fd0c9ff14b9b5169a51e957b7a9c74897afd0a35ce4bd318150c1d4d4a',
      },
      {
        url: `${HF}/cross-encoder/ms-marco-MiniLM-L-6-v2/resolve/main/tokenizer.json`,
        path: 'ms-marco-MiniLM-L-6-v2/tokenizer.json',
        // Same source as above (711,396 bytes).
        sha256: 'd241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66',
      },
    ],
  },
];

export interface DownloadOptions {
  url: string;
  dest: string;
  sha256?: string | null;
  /** Give up connecting after this long (a sign of being offline). */
  connectTimeoutMs?: number;
  /** Give up when no data arrives for this long. */
  idleTimeoutMs?: number;
  onProgress?: (received: number, total: number | null) => void;
}

export interface DownloadResult {
  sha256: string;
  bytes: number;
  /** Which digest the file was checked against. */
  verified: 'pinned' | 'server' | 'none';
  /** Bytes reused from an earlier interrupted run. */
  resumedFrom: number;
  /** The file was already present (and matched its pinned digest, if any). */
  skipped: boolean;
}

const MAX_REDIRECTS = 5;

export async function downloadFile(options: DownloadOptions): Promise<DownloadResult> {
  const pinned = options.sha256?.toLowerCase() ?? null;
  const existing = await sizeOf(options.dest);
  if (existing !== null) {
    // Files are only renamed into place once verified, so a present file is kept unless it contradicts a pin.
    const digest = await hashFile(options.dest, createHash('sha256'));
    if (!pinned || digest === pinned) {
      return { sha256: digest, bytes: existing, verified: pinned ? 'pinned' : 'none', resumedFrom: 0, skipped: true };
    }
    await rm(options.dest);
  }

  await mkdir(path.dirname(options.dest), { recursive: true });
  const part = `${options.dest}.part`;
  let offset = (await sizeOf(part)) ?? 0;
  const { response, advertised } = await get(options.url, offset, options);
  if (response.statusCode === 416) {
    // The part is already complete (or longer than the file): start over.
    response.resume();
    await rm(part, { force: true });
    return downloadFile(options);
  }
  if (response.statusCode !== 200 && response.statusCode !== 206) {
    response.resume();
    throw new DownloadError(`cannot download ${options.url}: HTTP ${response.statusCode} ${response.statusMessage ?? ''}`.trim());
  }
  if (response.statusCode === 200) offset = 0; // the server ignored the range: restart

  const hash = createHash('sha256');
  if (offset > 0) await hashFile(part, hash);
  const length = Number(response.headers['content-length']);
  const total = Number.isFinite(length) ? offset + length : null;
  let received = offset;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      received += chunk.length;
      options.onProgress?.(received, total);
      done(null, chunk);
    },
  });
  try {
    await pipeline(response, meter, createWriteStream(part, { flags: offset > 0 ? 'a' : 'w' }));
  } catch (error) {
    // Keep the part: the next run resumes from it.
    throw new DownloadError(`download of ${options.url} interrupted after ${received} bytes: ${describe(error)}; run again to resume`, {
      cause: error,
    });
  }
  if (total !== null && received !== total) {
    throw new DownloadError(`download of ${options.url} ended after ${received} of ${total} bytes; run again to resume`);
  }

  const digest = hash.digest('hex');
  const expected = pinned ?? advertised;
  if (expected && digest !== expected) {
    await rm(part, { force: true });
    const source = pinned ? 'pinned' : 'advertised by the server';
    throw new DownloadError(
      `sha256 mismatch for ${options.url}: expected ${expected} (${source}), got ${digest}; the partial file was deleted. ` +
        'If upstream changed the file on purpose, verify it and pass --sha256 PATH=HEX',
    );
  }
  await rename(part, options.dest);
  return { sha256: digest, bytes: received, verified: pinned ? 'pinned' : advertised ? 'server' : 'none', resumedFrom: offset, skipped: false };
}

/** GET with manual redirects, so the first hop's X-Linked-Etag (Hugging Face's LFS sha256) is seen. */
async function get(url: string, offset: number, options: DownloadOptions): Promise<{ response: IncomingMessage; advertised: string | null }> {
  let current = new URL(url);
  let advertised: string | null = null;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const response = await request(current, offset > 0 ? { range: `bytes=${offset}-` } : {}, options);
    advertised ??= sha256Header(response.headers['x-linked-etag']);
    const location = response.headers.location;
    if (response.statusCode && response.statusCode >= 300 && response.statusCode < 400 && location) {
      response.resume();
      current = new URL(location, current);
      continue;
    }
    return { response, advertised };
  }
  throw new DownloadError(`too many redirects for ${url}`);
}

function request(url: URL, headers: Record<string, string>, options: DownloadOptions): Promise<IncomingMessage> {
  const connectTimeoutMs = options.connectTimeoutMs ?? 5000;
  const idleTimeoutMs = options.idleTimeoutMs ?? 30_000;
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : url.protocol === 'http:' ? http : null;
    if (!client) return reject(new DownloadError(`unsupported URL ${url.href}`));
    const req = client.get(url, { headers: { 'user-agent': 'litserve-fetch-models', ...headers } });
    req.on('socket', (socket) => {
      if (!socket.connecting) return;
      const timer = setTimeout(
        () => req.destroy(new DownloadError(`cannot connect to ${url.host} within ${connectTimeoutMs} ms; are you offline?`)),
        connectTimeoutMs,
      );
      socket.once('connect', () => clearTimeout(timer));
      socket.once('close', () => clearTimeout(timer));
    });
    req.setTimeout(idleTimeoutMs, () => req.destroy(new DownloadError(`no data from ${url.host} for ${idleTimeoutMs} ms`)));
    req.on('response', resolve);
    req.on('error', (error) =>
      reject(error instanceof DownloadError ? error : new DownloadError(`cannot reach ${url.host}: ${describe(error)}; are you offline?`, { cause: error })),
    );
  });
}

function sha256Header(value: string | string[] | undefined): string | null {
  const text = (Array.isArray(value) ? value[0] : value)?.replace(/"/g, '').toLowerCase();
  return text && /^[0-9a-f]{64}$/.test(text) ? text : null;
}

function describe(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const message = error instanceof Error ? error.message : String(error);
  return code && !message.includes(code) ? `${code} ${message}` : message;
}

async function sizeOf(file: string): Promise<number | null> {
  const info = await stat(file).catch(() => null);
  return info?.isFile() ? info.size : null;
}

async function hashFile(file: string, hash: Hash): Promise<string> {
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.copy().digest('hex');
}

// --- command line ------------------------------------------------------------

function progressPrinter(label: string): (received: number, total: number | null) => void {
  const started = Date.now();
  let lastShown = 0;
  return (received, total) => {
    const now = Date.now();
    if (now - lastShown < 500 && received !== total) return;
    lastShown = now;
    const mb = (n: number) => (n / 1e6).toFixed(1);
    const rate = received / Math.max(1, (now - started) / 1000);
    const share = total ? ` / ${mb(total)} MB (${Math.floor((100 * received) / total)}%)` : ' MB';
    const line = `${label}: ${mb(received)}${share}, ${mb(rate)} MB/s`;
    if (process.stderr.isTTY) process.stderr.write(`\r${line}\u001b[K${received === total ? '\n' : ''}`);
    else process.stderr.write(`${line}\n`);
  };
}

async function main(argv: string[]): Promise<void> {
  const values = (flag: string) => argv.flatMap((arg, i) => (arg === flag && argv[i + 1] ? [argv[i + 1]!] : []));
  // The same data directory the server uses (its environment variable and default).
  const data = values('--data').at(-1) ?? loadConfig([], process.env).data;
  const only = values('--only');
  const pins = new Map(values('--sha256').map((pair) => pair.split('=', 2) as [string, string]));
  const connectTimeoutMs = Number(values('--connect-timeout').at(-1) ?? 5000);
  const modelsDir = path.resolve(data, 'models');
  const bundles = RECOMMENDED.filter((b) => only.length === 0 || only.includes(b.name));
  if (bundles.length === 0) throw new DownloadError(`unknown model; choose among ${RECOMMENDED.map((b) => b.name).join(', ')}`);

  for (const bundle of bundles) {
    for (const file of bundle.files) {
      const dest = path.join(modelsDir, file.path);
      const result = await downloadFile({
        url: file.url,
        dest,
        sha256: pins.get(file.path) ?? file.sha256,
        connectTimeoutMs,
        onProgress: progressPrinter(file.path),
      });
      const how = result.skipped
        ? `already present${result.verified === 'pinned' ? ', sha256 verified' : ''}`
        : result.verified === 'none'
          ? `sha256 ${result.sha256} (not verified: nothing to check it against; pin it with --sha256 ${file.path}=${result.sha256})`
          : `sha256 verified (${result.verified === 'pinned' ? 'pinned digest' : 'digest advertised by the server'})`;
      console.log(`${dest}: ${how}`);
    }
    console.log(`use it with: npm start -- ${bundle.use(modelsDir)}`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(`models:fetch failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
