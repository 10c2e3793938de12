/**
 * The single executable (npm run build:binary): built from this checkout,
 * copied alone to an empty directory and run there with Node unreachable
 * (test/packaging/isolated.ts): --help and --version; serve of the demo
 * corpus it carries; ingest of a BEIR file then serve of that index with the
 * search pool's worker threads; eval on SciFact train; /qa/generative through
 * a GGUF model with an ONNX reranker; a damaged cache repaired by hash; a
 * read-only cache refused with the setting to change; other builds' trees
 * named on a first start.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as sea from 'node:sea';
import { writeTinyGguf } from '../../scripts/make-tiny-gguf.js';
import { writeTinyOnnxModel } from '../../scripts/make-tiny-onnx.js';
import { tempDir } from '../search/helpers.js';
import { namespaceAvailable, runIsolated } from './isolated.js';
import { startIsolatedServer } from './server.js';

const buildable = process.platform === 'linux' && process.arch === 'x64' && typeof sea.getRawAsset === 'function';
if (!buildable) console.warn(`skipping the single-executable test: it is built for Linux x64 with Node >= 20.12 (this is ${process.platform}-${process.arch}, Node ${process.version})`);
if (buildable && !namespaceAvailable) console.warn('single-executable test: no private mount namespace (needs root); Node is hidden by an empty PATH and a foreign working directory only');

const SCIFACT = path.resolve('..', 'shared', 'data', 'scifact');
const STORIES = path.resolve('..', 'shared', 'models', 'stories260K', 'stories260K.gguf');
const scifactPresent = existsSync(path.join(SCIFACT, 'corpus.jsonl'));
if (buildable && !scifactPresent) console.warn(`skipping the single executable's SciFact eval: ${SCIFACT} not found`);
const DEMO_ARTICLES = readFileSync('data/demo/articles.jsonl', 'utf8').split('\n').filter((line) => line.trim()).length;
const PAGE_PARAGRAPHS = 100_000; // two shares of the pool's 50,000-paragraph minimum: both worker threads search

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe.skipIf(!buildable)('the single executable', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let binary: string;
  let cacheHome: string;
  const run = (args: string[], env: Record<string, string> = {}, readOnly?: string[]) =>
    runIsolated(binary, args, { cwd: path.join(dir, 'run'), env: { XDG_CACHE_HOME: cacheHome, ...env }, readOnly });
  /** The cache tree of this build (the only one under the cache directory). */
  const cacheRoot = () => {
    const found = readdirSync(path.join(cacheHome, 'litserve'));
    expect(found).toHaveLength(1);
    return path.join(cacheHome, 'litserve', found[0]!);
  };

  beforeAll(async () => {
    ({ dir, cleanup } = await tempDir());
    const build = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build-binary.ts'], { encoding: 'utf8', timeout: 540_000 });
    if (build.status !== 0) throw new Error(`npm run build:binary failed:\n${build.stderr}`);
    mkdirSync(path.join(dir, 'run'));
    binary = path.join(dir, 'run', 'litserve');
    copyFileSync('dist/litserve', binary);
    chmodSync(binary, 0o755);
    cacheHome = path.join(dir, 'cache');
  }, 600_000);
  afterAll(() => cleanup?.());

  it('runs without Node: --help, --version, and a first start that fills the cache once', async () => {
    if (namespaceAvailable) {
      const node = await runIsolated('/bin/sh', ['-c', `${process.execPath} --version`], { cwd: dir, env: {} });
      expect(node.code).not.toBe(0);
    }
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('usage: litserve [serve]');
    expect(help.stdout).toContain('--cache-dir / LITSERVE_CACHE_DIR');
    expect(help.stderr).toMatch(/wrote \d+ carried file\(s\)/);
    // Each command's usage names the executable, not the npm scripts of a checkout it does not have.
    for (const command of ['ingest', 'eval']) {
      const usage = await run([command, '--help']);
      expect(usage.code).toBe(0);
      expect(usage.stdout).toMatch(new RegExp(`^usage: litserve ${command} `));
      expect(usage.stdout).not.toContain('npm');
    }
    const version = await run(['--version']);
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^litserve \d+\.\d+\.\d+ \(Node 20\./);
    expect(version.stderr).not.toContain('wrote');
    const missing = await run(['serve', '--index', path.join(dir, 'no-index'), '--port', '0']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`build one with: litserve ingest --input PATH --index ${path.join(dir, 'no-index')}`);
  }, 120_000);

  it('serves the demo corpus and the web page it carries, building its index under --data on first start', async () => {
    const server = await startIsolatedServer(binary, ['serve', '--data', path.join(dir, 'demo-data'), '--search-threads', '1'], {
      cwd: path.join(dir, 'run'),
      env: { XDG_CACHE_HOME: cacheHome },
    });
    try {
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      const count = (await (await fetch(`${server.url}/retrieval/article_count`)).json()) as { article_count: number };
      expect(count.article_count).toBe(DEMO_ARTICLES);
      expect(server.output()).toContain('building it from the demo corpus');
      expect(existsSync(path.join(dir, 'demo-data', 'index'))).toBe(true);
      // The web page and the API reference travel inside the executable too.
      for (const page of ['/ui/', '/ui/js/main.js', '/docs']) {
        const response = await fetch(`${server.url}${page}`);
        expect(response.status, page).toBe(200);
        expect((await response.text()).length, page).toBeGreaterThan(100);
      }
    } finally {
      await server.stop();
    }
  }, 120_000);

  it('ingests a BEIR file, then serves that index with the search pool on two worker threads', async () => {
    const input = path.join(dir, 'beir.jsonl');
    const lines = Array.from({ length: PAGE_PARAGRAPHS }, (_, i) =>
      JSON.stringify({ _id: `d${i}`, title: `document ${i}`, text: `filler words ${i % 97}${i === 4242 ? ' needle' : ''}${i === 77_777 ? ' needle needle' : ''}` }),
    );
    writeFileSync(input, `${lines.join('\n')}\n`);
    const index = path.join(dir, 'beir-index');
    const ingest = await run(['ingest', '--input', input, '--index', index]);
    expect(ingest.code).toBe(0);
    expect(ingest.stderr).toContain(`indexed ${PAGE_PARAGRAPHS}`);
    const server = await startIsolatedServer(binary, ['serve', '--data', path.join(dir, 'beir-data'), '--index', index, '--search-threads', '2'], {
      cwd: path.join(dir, 'run'),
      env: { XDG_CACHE_HOME: cacheHome },
    });
    try {
      const hits = (await (await fetch(`${server.url}/retrieval/?query=needle&retriever_k=5`)).json()) as { article_id: string }[];
      expect(hits.map((hit) => hit.article_id)).toEqual(['d77777', 'd4242']);
      // 300 hits: the response's fragments are copied by the pool's threads (the bundled worker's second task).
      const many = await fetch(`${server.url}/retrieval/?query=${encodeURIComponent('words 13')}&retriever_k=300`);
      expect(many.status).toBe(200);
      const contexts = (await many.json()) as { article_id: string; paragraph: string; context_id: number }[];
      expect(contexts).toHaveLength(300);
      for (const [rank, context] of contexts.entries()) {
        const n = Number(context.article_id.slice(1));
        expect(context.context_id).toBe(rank);
        expect(context.paragraph).toBe(`filler words ${n % 97}${n === 4242 ? ' needle' : ''}${n === 77_777 ? ' needle needle' : ''}`);
      }
      expect(contexts.slice(0, 10).every((context) => context.paragraph === 'filler words 13')).toBe(true);
    } finally {
      await server.stop();
    }
  }, 180_000);

  it.skipIf(!scifactPresent)('evaluates SciFact train and prints nDCG@10', async () => {
    const result = await run(['eval', '--corpus', path.join(SCIFACT, 'corpus.jsonl'), '--queries', path.join(SCIFACT, 'queries.jsonl'), '--qrels', path.join(SCIFACT, 'qrels', 'train.tsv')]);
    expect(result.code).toBe(0);
    const ndcg = Number(/nDCG@10 (\d\.\d+)/.exec(result.stdout)?.[1]);
    expect(ndcg).toBeGreaterThanOrEqual(0.665); // the published BM25 figure, as test/eval/scifact.test.ts
  }, 180_000);

  it('answers /qa/generative through a GGUF model (--llm-model) after an ONNX reranker (--reranker-model)', async () => {
    const model = existsSync(STORIES) ? STORIES : path.join(dir, 'tiny.gguf');
    if (!existsSync(STORIES)) {
      console.warn(`single-executable test: ${STORIES} not found; using a tiny generated GGUF`);
      await writeTinyGguf(model, { seed: 3, chatTemplate: true });
    }
    const reranker = path.join(dir, 'reranker');
    await writeTinyOnnxModel(reranker, { kind: 'cross-encoder' });
    const server = await startIsolatedServer(
      binary,
      ['serve', '--data', path.join(dir, 'demo-data'), '--search-threads', '1', '--llm-model', model, '--llm-max-tokens', '200', '--llm-threads', '1', '--reranker-model', reranker],
      { cwd: path.join(dir, 'run'), env: { XDG_CACHE_HOME: cacheHome } },
    );
    try {
      const response = await fetch(`${server.url}/qa/generative`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'Which cells fire in CA1?', retriever_k: 5 }),
      });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { raw_answer: string }).raw_answer).toContain('<bbs_sources>:');
      // The timings are logged once the answer is sent.
      for (let waited = 0; !server.output().includes('"msg":"request completed"') && waited < 5000; waited += 100) await new Promise((r) => setTimeout(r, 100));
      expect(server.output()).toContain('"msg":"language model loaded"');
      expect(server.output()).toContain('"msg":"reranker loaded"');
      expect(server.output()).toMatch(/"rerankMs":\d/);
    } finally {
      await server.stop();
    }
  }, 180_000);

  it('detects a truncated, altered or missing file of its cache by hash and rewrites it', async () => {
    const root = cacheRoot();
    const manifest = JSON.parse(readFileSync('dist/.binary/carried-manifest.json', 'utf8')) as { files: { path: string; sha256: string }[] };
    const lmdb = manifest.files.find((f) => f.path.includes('lmdb-linux-x64'))!;
    const onnx = manifest.files.find((f) => f.path.endsWith('libonnxruntime.so.1'))!;
    const worker = manifest.files.find((f) => f.path === 'search-worker.cjs')!;
    truncateSync(path.join(root, onnx.path), 1000);
    const altered = readFileSync(path.join(root, lmdb.path));
    altered[altered.length >> 1]! ^= 0xff;
    writeFileSync(path.join(root, lmdb.path), altered);
    unlinkSync(path.join(root, worker.path));
    const repaired = await run(['--version']);
    expect(repaired.code).toBe(0);
    expect(repaired.stderr).toContain('wrote 3 carried file(s)');
    for (const file of [lmdb, onnx, worker]) expect(sha256(path.join(root, file.path))).toBe(file.sha256);
  }, 120_000);

  it('refuses a read-only cache directory with an error naming the setting to change', async () => {
    const readOnly = path.join(dir, 'read-only-cache');
    mkdirSync(readOnly);
    if (!namespaceAvailable) chmodSync(readOnly, 0o555);
    const refused = await run(['--version'], { LITSERVE_CACHE_DIR: readOnly }, [readOnly]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/cannot write the native libraries .*\(E(ROFS|ACCES)/);
    expect(refused.stderr).toContain('--cache-dir / LITSERVE_CACHE_DIR');
    // A directory named by white space is refused before anything is written (the settings refuse it too, but after extraction).
    const blanks: { args: string[]; env: Record<string, string> }[] = [
      { args: ['--version', '--cache-dir', '  '], env: {} },
      { args: ['--version'], env: { LITSERVE_CACHE_DIR: ' ' } },
    ];
    for (const blank of blanks) {
      const refusedBlank = await run(blank.args, blank.env);
      expect(refusedBlank.code).toBe(2);
      expect(refusedBlank.stderr).toContain('--cache-dir / LITSERVE_CACHE_DIR must not be only white space');
    }
    // The cache it is moved to holds the tree of an older build: a first start names it for deletion.
    const otherCache = path.join(dir, 'other-cache');
    mkdirSync(path.join(otherCache, '0123456789abcdef'), { recursive: true });
    writeFileSync(path.join(otherCache, '0123456789abcdef', 'libold.so'), Buffer.alloc(3 << 20));
    // Given twice, the last --cache-dir wins (and neither reaches the command's own flags).
    const moved = await run(['--version', '--cache-dir', path.join(dir, 'overridden-cache'), `--cache-dir=${otherCache}`]);
    expect(moved.code).toBe(0);
    expect(existsSync(path.join(dir, 'overridden-cache'))).toBe(false);
    expect(readdirSync(otherCache)).toHaveLength(2);
    expect(moved.stderr).toContain(`${otherCache} also holds 1 other build(s) (0123456789abcdef; 3 MiB): delete them once no litserve of those builds runs`);
  }, 120_000);
});
