/**
 * The single executable (npm run build:binary): built from this checkout,
 * copied alone to an empty directory and run there with Node unreachable
 * (test/packaging/isolated.ts): --help and --version; serve of the demo
 * corpus it carries; ingest of a BEIR file then serve of that index with the
 * search pool's worker threads; eval on SciFact train; /qa/generative through
 * a GGUF model with an ONNX reranker; an ingest stopped by a signal as it
 * starts says so; a damaged cache repaired by hash; a
 * read-only cache refused with the setting to change, by commands only (what
 * the arguments alone decide, and a missing file or index, serve's and eval's
 * too, writes nothing);
 * other builds' trees named on a first start. The build leaves no intermediate
 * files behind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as sea from 'node:sea';
import { writeTinyGguf } from '../../scripts/make-tiny-gguf.js';
import { writeTinyOnnxModel } from '../../scripts/make-tiny-onnx.js';
import { MANIFEST_FORMAT } from '../../src/search/manifest.js';
import { makePipe, openWhenRead } from '../cli/ids-pipe.js';
import { tempDir } from '../search/helpers.js';
import { namespaceAvailable, runIsolated, spawnIsolated } from './isolated.js';
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

/** Whether this run may mount a tmpfs (root, with mount(8)): the noexec cache is tried on a real one. */
const tmpfsMountable = (() => {
  if (!buildable || process.getuid?.() !== 0) return false;
  const probe = mkdtempSync(path.join(tmpdir(), 'tmpfs-probe-'));
  try {
    const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe]).status === 0;
    if (mounted) spawnSync('umount', [probe]);
    return mounted;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
})();
if (buildable && !tmpfsMountable) console.warn('skipping the single executable\'s noexec cache case: this run cannot mount a tmpfs (needs root and mount(8))');

describe.skipIf(!buildable)('the single executable', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let binary: string;
  let cacheHome: string;
  let buildOutput: string;
  const run = (args: string[], env: Record<string, string> = {}, readOnly?: string[]) =>
    runIsolated(binary, args, { cwd: path.join(dir, 'run'), env: { XDG_CACHE_HOME: cacheHome, ...env }, readOnly });
  /**
   * A command that needs the carried libraries and ends at once: --merge of an index without segments
   * (exit 0, nothing to merge). Not an --index that is not there: that is answered before extraction.
   */
  const mergeEmptyIndex = () => ['ingest', '--index', path.join(dir, 'empty-index'), '--merge'];
  /** A directory this test's runs cannot write to: read-only in the mount namespace, else by its mode (not for root). */
  const readOnlyDir = (name: string) => {
    const made = path.join(dir, name);
    mkdirSync(made);
    if (!namespaceAvailable) chmodSync(made, 0o555);
    return made;
  };
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
    buildOutput = build.stderr;
    mkdirSync(path.join(dir, 'run'));
    binary = path.join(dir, 'run', 'litserve');
    copyFileSync('dist/litserve', binary);
    chmodSync(binary, 0o755);
    cacheHome = path.join(dir, 'cache');
    mkdirSync(path.join(dir, 'empty-index'));
    writeFileSync(path.join(dir, 'empty-index', 'manifest.json'), JSON.stringify({ formatVersion: MANIFEST_FORMAT, generation: 0, segments: [] }));
  }, 600_000);
  afterAll(() => cleanup?.());

  it('is built without leaving intermediate files or postject\'s harmless ELF note warnings', () => {
    expect(existsSync('dist/.binary')).toBe(false);
    expect(existsSync('dist/.litserve.partial')).toBe(false);
    expect(buildOutput).not.toContain("Can't find string offset for section name");
    expect(buildOutput).toMatch(/built dist\/litserve: \d+ MiB/);
  });

  it('runs without Node: --help, --version and option errors write nothing; the first command fills the cache once', async () => {
    if (namespaceAvailable) {
      const node = await runIsolated('/bin/sh', ['-c', `${process.execPath} --version`], { cwd: dir, env: {} });
      expect(node.code).not.toBe(0);
    }
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('usage: litserve [serve]');
    expect(help.stdout).toContain('--cache-dir / LITSERVE_CACHE_DIR');
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
    const unknown = await run(['--index-dir', '/srv/index']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe('error: unknown option --index-dir for serve (did you mean --index?); see --help\n');
    const badValue = await run(['ingest', '--index', path.join(dir, 'some-index'), '--merge-factor', 'many']);
    expect(badValue.code).toBe(2);
    expect(badValue.stderr).toMatch(/^error: --merge-factor /);
    // A mistyped path is answered before the carried files are written too.
    const noIds = await run(['ingest', '--index', path.join(dir, 'some-index'), '--delete-file', path.join(dir, 'no-ids.txt')]);
    expect(noIds.code).toBe(1);
    expect(noIds.stderr).toBe(`error: --delete-file ${path.join(dir, 'no-ids.txt')}: no such file\n`);
    const noIndex = await run(['ingest', '--index', path.join(dir, 'some-index'), '--merge']);
    expect(noIndex.code).toBe(1);
    expect(noIndex.stderr).toContain(`nothing to delete or merge; build one with: litserve ingest --input PATH --index ${path.join(dir, 'some-index')}`);
    const noQrels = await run(['eval', '--index', path.join(dir, 'some-index'), '--queries', path.join(dir, 'q.jsonl'), '--qrels', path.join(dir, 'r.tsv')]);
    expect(noQrels.code).toBe(1);
    expect(noQrels.stderr).toBe(`error: --queries ${path.join(dir, 'q.jsonl')}: no such file; --qrels ${path.join(dir, 'r.tsv')}: no such file\n`);
    const missing = path.join(dir, 'no-index');
    const noIndexLine = `error: no index in ${missing} (manifest.json not found); build one with: litserve ingest --input PATH --index ${missing}\n`;
    const serveNoIndex = await run(['serve', '--index', missing, '--port', '0']);
    expect([serveNoIndex.code, serveNoIndex.stderr]).toEqual([1, noIndexLine]);
    const evalNoIndex = await run(['eval', '--index', missing, '--queries', binary, '--qrels', binary]);
    expect([evalNoIndex.code, evalNoIndex.stderr]).toEqual([1, noIndexLine]);
    for (const answered of [help, version, unknown, badValue, noIds, noIndex, noQrels, serveNoIndex, evalNoIndex]) expect(answered.stderr).not.toContain('wrote');
    expect(existsSync(cacheHome)).toBe(false);
    expect(existsSync(path.join(dir, 'some-index'))).toBe(false);
    const first = await run(mergeEmptyIndex());
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(/wrote \d+ carried file\(s\)/);
    expect(first.stderr).toContain('merge: nothing to merge');
    expect((await run(mergeEmptyIndex())).stderr).not.toContain('wrote');
  }, 120_000);

  it('answers --version and --help with a home or cache directory it cannot write, and writes nothing', async () => {
    // `runuser -u nobody -- env HOME=/nonexistent litserve --version` (the README's first check over ssh) had failed on writing the libraries.
    const home = readOnlyDir('read-only-home');
    const cache = readOnlyDir('read-only-cache-dir');
    const unwritable: Record<string, string>[] = [{ XDG_CACHE_HOME: '', HOME: home }, { LITSERVE_CACHE_DIR: cache }];
    for (const env of unwritable) {
      for (const args of [['--version'], ['--help'], ['ingest', '--help']]) {
        const answered = await run(args, env, [home, cache]);
        expect(answered.code, `${args.join(' ')} with ${JSON.stringify(env)}`).toBe(0);
        expect(answered.stdout).toMatch(/^(litserve \d|usage: litserve )/);
        expect(answered.stderr).toBe('');
      }
    }
    expect(readdirSync(home)).toEqual([]);
    expect(readdirSync(cache)).toEqual([]);
    // The commands themselves still need the libraries and say where they could not write them.
    const refused = await run(mergeEmptyIndex(), { XDG_CACHE_HOME: '', HOME: home }, [home]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`cannot write the native libraries this executable carries to ${path.join(home, '.cache', 'litserve')}`);
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
      // The settings the start was decided with are the command's: decided with the cache and the carried copy set.
      const settings = (await (await fetch(`${server.url}/settings`)).json()) as { cacheDir: string; demoCorpus: string };
      expect(settings.cacheDir).toBe(path.join(cacheHome, 'litserve'));
      expect(settings.demoCorpus).toBe(path.join(cacheRoot(), 'data', 'demo', 'articles.jsonl'));
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

  it('says an ingest stopped as it starts wrote nothing to the index, a --cache-dir before the command too', async () => {
    const ids = path.join(dir, 'ids-pipe');
    makePipe(ids);
    const corpus = path.join(dir, 'one.jsonl');
    writeFileSync(corpus, `${JSON.stringify({ _id: 'd1', title: 'one', text: 'one document' })}\n`);
    const index = path.join(dir, 'interrupted-index');
    const args = ['--cache-dir', path.join(cacheHome, 'litserve'), 'ingest', '--index', index, '--input', corpus, '--delete-file', ids];
    const child = spawnIsolated(binary, args, { cwd: path.join(dir, 'run'), env: {} });
    let stderr = '';
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, killedBy) => resolve(killedBy ?? code)));
    // Waiting for its ids: the run does not watch for signals yet.
    const writer = await openWhenRead(ids, child);
    try {
      expect(writer).toBeDefined();
      child.kill('SIGTERM');
      expect(await exited).toBe('SIGTERM');
    } finally {
      await writer?.close();
    }
    expect(stderr.trim().split('\n').at(-1)).toBe('ingest: interrupted (SIGTERM) before writing anything to the index');
    expect(existsSync(index)).toBe(false);
  }, 120_000);

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

  it("reads no package.json above its cache directory: a planted one's exports are not loaded, a broken one stops nothing", async () => {
    // Above a cache in a shared folder, anyone may write this: it named itself piscina, which the server requires.
    const planted = path.join(dir, 'planted');
    mkdirSync(planted);
    const marker = path.join(dir, 'planted-code-ran');
    writeFileSync(path.join(planted, 'package.json'), JSON.stringify({ name: 'piscina', exports: './evil.cjs' }));
    writeFileSync(path.join(planted, 'evil.cjs'), `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran'); module.exports = {};`);
    const corpus = path.join(dir, 'planted.jsonl');
    writeFileSync(corpus, `${JSON.stringify({ _id: 'p1', title: 'one', text: 'place cells' })}\n`);
    const index = path.join(dir, 'planted-index');
    expect((await run(['--cache-dir', path.join(planted, 'cache'), 'ingest', '--input', corpus, '--index', index])).code).toBe(0);
    const server = await startIsolatedServer(binary, ['--cache-dir', path.join(planted, 'cache'), 'serve', '--data', path.join(dir, 'planted-data'), '--index', index, '--search-threads', '1'], {
      cwd: path.join(dir, 'run'),
      env: {},
    });
    try {
      expect((await fetch(`${server.url}/retrieval/?query=place`)).status).toBe(200);
    } finally {
      await server.stop();
    }
    expect(existsSync(marker)).toBe(false);
    // A package.json that does not parse, above the cache (a user's own ~/package.json): it had stopped every command.
    const broken = path.join(dir, 'broken-above');
    mkdirSync(broken);
    writeFileSync(path.join(broken, 'package.json'), '{"name": "mine",}');
    const merged = await run(['--cache-dir', path.join(broken, 'cache'), ...mergeEmptyIndex()]);
    expect([merged.code, merged.stderr]).toEqual([0, expect.not.stringContaining('SyntaxError')]);
  }, 180_000);

  it.skipIf(!tmpfsMountable)('refuses a cache on a file system mounted noexec, naming it, before writing anything there', async () => {
    const mounted = path.join(dir, 'noexec-mount');
    mkdirSync(mounted);
    expect(spawnSync('mount', ['-t', 'tmpfs', '-o', 'noexec,size=300m', 'tmpfs', mounted]).status).toBe(0);
    try {
      const refused = await run(['--cache-dir', path.join(mounted, 'cache'), ...mergeEmptyIndex()]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`error: the cache directory ${path.join(mounted, 'cache')} is on a file system mounted noexec (${mounted}), where the carried libraries cannot be loaded: point --cache-dir / LITSERVE_CACHE_DIR at a directory on another file system`);
      expect(refused.stderr).not.toContain('ERR_DLOPEN_FAILED');
      expect(readdirSync(mounted)).toEqual([]);
    } finally {
      spawnSync('umount', [mounted]);
    }
  }, 120_000);

  it('detects a truncated, altered or missing file of its cache by hash and rewrites it', async () => {
    const root = cacheRoot();
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).map((file) => file.split(path.sep).join('/'));
    const lmdb = files.find((file) => file.includes('lmdb-linux-x64') && file.endsWith('.node'))!;
    const onnx = files.find((file) => file.endsWith('libonnxruntime.so.1'))!;
    const worker = 'search-worker.cjs';
    // As written by the first start, which checked each file against the hash the build recorded.
    const written = new Map([lmdb, onnx, worker].map((file) => [file, sha256(path.join(root, file))]));
    truncateSync(path.join(root, onnx), 1000);
    const altered = readFileSync(path.join(root, lmdb));
    altered[altered.length >> 1]! ^= 0xff;
    writeFileSync(path.join(root, lmdb), altered);
    unlinkSync(path.join(root, worker));
    // A module planted where Node's resolution would find it before the carried one is removed, and said.
    mkdirSync(path.join(root, 'node_modules', 'piscina', 'node_modules', 'planted'), { recursive: true });
    writeFileSync(path.join(root, 'node_modules', 'piscina', 'node_modules', 'planted', 'index.js'), 'throw new Error("planted")');
    const repaired = await run(mergeEmptyIndex());
    expect(repaired.code).toBe(0);
    expect(repaired.stderr).toContain('wrote 3 carried file(s)');
    expect(repaired.stderr).toContain(`litserve: removed 1 entry the executable does not carry from ${root} (node_modules/piscina/node_modules)`);
    expect(existsSync(path.join(root, 'node_modules', 'piscina', 'node_modules'))).toBe(false);
    for (const [file, hash] of written) expect(sha256(path.join(root, file))).toBe(hash);
  }, 120_000);

  it('refuses a read-only cache directory with an error naming the setting to change', async () => {
    const readOnly = readOnlyDir('read-only-cache');
    const refused = await run(mergeEmptyIndex(), { LITSERVE_CACHE_DIR: readOnly }, [readOnly]);
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
    const moved = await run([...mergeEmptyIndex(), '--cache-dir', path.join(dir, 'overridden-cache'), `--cache-dir=${otherCache}`]);
    expect(moved.code).toBe(0);
    expect(existsSync(path.join(dir, 'overridden-cache'))).toBe(false);
    expect(readdirSync(otherCache)).toHaveLength(2);
    expect(moved.stderr).toContain(`${otherCache} also holds 1 other build(s) (0123456789abcdef; 3 MiB): delete them once no litserve of those builds runs`);
  }, 120_000);
});
