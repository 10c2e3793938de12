/**
 * SIGKILL of the real ingestion command (`litserve ingest`, compiled, what
 * `npm run ingest` runs) in the middle of a run, and of `serve` while it
 * builds its index on first start. After every kill the index opens and holds
 * exactly the previous content or exactly the new one (counts of every
 * round's and every version's marker words, not just the article count); a
 * later ingestion takes over the dead process's lock and succeeds; the server
 * opens the result and answers from it.
 *
 * test/search/crash.test.ts kills a child driving the index writer directly at
 * seven moments; this one goes through the command line (reading, parsing,
 * progress, exit code) and the server's first-start build. The seed (printed;
 * `CRASH_SEED=N` replays it) fixes the kill delays.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { random } from '../../scripts/lib/random.js';
import { compileFilterSpec } from '../../src/search/query/filter-spec.js';
import { Searcher } from '../../src/search/searcher.js';
import { tempDir, writerLockTakenBy } from '../search/helpers.js';
import { kill, spawnServerProcess, startServerProcess, waitUntilServing, writeAdminAuthFile } from './server-process.js';
import { COMPILED_MAIN } from '../compiled-server.js';

const SEED = Number(process.env.CRASH_SEED ?? Date.now() % 100_000);
/** New articles per ingestion; one in ten of the base articles is also replaced by each. */
const NEW_ARTICLES = 12_000;
const BASE_ARTICLES = 300;
const REPLACED = 100;
const ROUNDS = ['alpha', 'bravo', 'charlie', 'delta'];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function line(id: string, text: string): string {
  return JSON.stringify({ article_id: id, title: `Article ${id}`, paragraphs: [{ section: 'Results', text }] });
}

/** Round `name`: NEW_ARTICLES articles marked `<name>marker`, and base articles 0..REPLACED-1 rewritten as version `v<name>`. */
async function writeRound(dir: string, name: string): Promise<string> {
  const lines: string[] = [];
  for (let i = 0; i < NEW_ARTICLES; i++) lines.push(line(`${name}-${i}`, `${name}marker neuron synapse cortex ${'dendrite '.repeat(i % 30)}`));
  for (let i = 0; i < REPLACED; i++) lines.push(line(`base-${i}`, `v${name} replaced paragraph of base article ${i}`));
  const file = path.join(dir, `${name}.jsonl`);
  await writeFile(file, lines.join('\n') + '\n');
  return file;
}

type Fingerprint = Record<string, number>;

/** Articles in total and per marker word: tells the previous content from the new one, and from any mixture. */
async function fingerprint(indexDir: string): Promise<Fingerprint> {
  const searcher = await Searcher.open(indexDir, { threads: 0, k1: 0.9, b: 0.4, titleWeight: 0.5, filterCacheSize: 4 });
  try {
    const print: Fingerprint = { articles: searcher.countArticles(compileFilterSpec({})) };
    for (const word of ['vbase', ...ROUNDS.flatMap((name) => [`${name}marker`, `v${name}`])]) {
      print[word] = searcher.countArticles(compileFilterSpec({ topics: [word] }));
    }
    return print;
  } finally {
    await searcher.close();
  }
}

/** The fingerprint after round `name` is published on top of `before`. */
function published(before: Fingerprint, name: string): Fingerprint {
  const after = { ...before, articles: before.articles + NEW_ARTICLES, [`${name}marker`]: NEW_ARTICLES, [`v${name}`]: REPLACED };
  // The replaced articles' previous version is gone, whichever it was.
  for (const key of ['vbase', ...ROUNDS.map((r) => `v${r}`)]) if (key !== `v${name}`) after[key] = key === 'vbase' ? BASE_ARTICLES - REPLACED : 0;
  return after;
}

/** Runs `litserve ingest`; with `killAfterLockMs`, SIGKILLs it that long after it took the index's writer lock. */
function ingestCommand(input: string, indexDir: string, killAfterLockMs: number | null): Promise<{ code: number | null; killed: boolean; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [COMPILED_MAIN, 'ingest', '--input', input, '--index', indexDir, '--max-segment-mb', '1'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    let killed = false;
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, killed, output }));
    if (killAfterLockMs === null) return;
    void (async () => {
      // The run has begun once it holds the lock (a killed run's stale lock may still be there before): the kill lands inside it.
      await writerLockTakenBy(indexDir, child);
      await sleep(killAfterLockMs);
      killed = child.kill('SIGKILL');
    })();
  });
}

describe('SIGKILL during ingestion', () => {
  it(`\`ingest\` killed mid-run leaves the previous index or the whole new one, and the next run and the server open it (seed ${SEED})`, async () => {
    process.stderr.write(`crash-ingest: seed ${SEED} (CRASH_SEED=${SEED} to replay)\n`);
    const next = random(SEED);
    const { dir, cleanup } = await tempDir('litserve-crash-ingest-');
    try {
      const indexDir = path.join(dir, 'index');
      const baseFile = path.join(dir, 'base.jsonl');
      await writeFile(baseFile, Array.from({ length: BASE_ARTICLES }, (_, i) => line(`base-${i}`, `vbase original paragraph of base article ${i}`)).join('\n') + '\n');
      const first = await ingestCommand(baseFile, indexDir, null);
      expect(first.code, first.output).toBe(0);
      let expected = await fingerprint(indexDir);
      expect(expected).toMatchObject({ articles: BASE_ARTICLES, vbase: BASE_ARTICLES });

      let killedMidRun = 0;
      const killed = ROUNDS.slice(0, 3);
      // A run takes a few hundred milliseconds once it holds the lock: one kill early, one in the middle, one late (maybe after the commit), each at a seeded moment.
      for (const [round, name] of killed.entries()) {
        const delay = [0, 100, 250][round]! + Math.floor(next() * [100, 150, 200][round]!);
        const run = await ingestCommand(await writeRound(dir, name), indexDir, delay);
        const now = await fingerprint(indexDir);
        const after = published(expected, name);
        if (now.articles === expected.articles) {
          expect(now, `round ${name} killed ${delay} ms into the run: previous index intact`).toEqual(expected);
          expect(run.killed, `round ${name} exited ${run.code} without publishing: ${run.output}`).toBe(true);
          killedMidRun++;
        } else {
          expect(now, `round ${name} killed ${delay} ms into the run: new index whole`).toEqual(after);
          expected = after;
        }
        process.stderr.write(`crash-ingest seed ${SEED}: round ${name} ${run.killed ? `killed ${delay} ms into the run` : `finished (code ${run.code})`}: ${now.articles === after.articles ? 'new index whole' : 'previous index intact'}\n`);
      }
      expect(killedMidRun, 'no kill landed before a commit: the test proves nothing').toBeGreaterThan(0);

      // The next run takes over the dead process's lock and publishes.
      const last = ROUNDS[3]!;
      const complete = await ingestCommand(await writeRound(dir, last), indexDir, null);
      expect(complete.code, complete.output).toBe(0);
      expected = published(expected, last);
      expect(await fingerprint(indexDir)).toEqual(expected);

      // And the server opens it and answers from it.
      const server = await startServerProcess({ dataDir: path.join(dir, 'data'), indexDir, authFile: await writeAdminAuthFile(dir) });
      try {
        const auth = { authorization: 'Bearer crash-admin' };
        const settings = (await (await fetch(`${server.base}/settings`, { headers: auth })).json()) as { index_stats: { articles: number } };
        expect(settings.index_stats.articles).toBe(expected.articles);
        const count = await fetch(`${server.base}/retrieval/article_count?topics=${last}marker`, { headers: auth });
        expect(((await count.json()) as { article_count: number }).article_count).toBe(NEW_ARTICLES);
      } finally {
        await kill(server);
      }
    } finally {
      await cleanup();
    }
  }, 120_000);

  it(`\`serve\` killed while building its index on first start builds it whole on the next start (seed ${SEED})`, async () => {
    const next = random(SEED + 1);
    const { dir, cleanup } = await tempDir('litserve-crash-first-start-');
    try {
      // Two rounds' worth of articles in one file: a build long enough (about a second or more) for the kill to land inside it.
      const corpus = path.join(dir, 'corpus.jsonl');
      await writeFile(corpus, (await readFile(await writeRound(dir, 'alpha'), 'utf8')) + (await readFile(await writeRound(dir, 'bravo'), 'utf8')));
      const options = { dataDir: path.join(dir, 'data'), authFile: await writeAdminAuthFile(dir), extraFlags: ['--demo-corpus', corpus] };
      const building = await spawnServerProcess(options);
      const indexDir = path.join(options.dataDir, 'index');
      await writerLockTakenBy(indexDir, building.child);
      const delay = Math.floor(next() * 200);
      await sleep(delay);
      expect(building.output(), 'the server should be building its index').toContain('building it from the demo corpus');
      await kill(building);
      expect(existsSync(path.join(indexDir, 'manifest.json')), `the build was over ${delay} ms after it began: the test proves nothing`).toBe(false);
      process.stderr.write(`crash-ingest seed ${SEED}: first-start build killed ${delay} ms in\n`);

      const server = await waitUntilServing(await spawnServerProcess(options));
      try {
        const auth = { authorization: 'Bearer crash-admin' };
        const settings = (await (await fetch(`${server.base}/settings`, { headers: auth })).json()) as { index_stats: { articles: number } };
        expect(settings.index_stats.articles).toBe(2 * NEW_ARTICLES + REPLACED);
        const count = await fetch(`${server.base}/retrieval/article_count?topics=alphamarker`, { headers: auth });
        expect(((await count.json()) as { article_count: number }).article_count).toBe(NEW_ARTICLES);
      } finally {
        await kill(server);
      }
    } finally {
      await cleanup();
    }
  }, 120_000);
});
