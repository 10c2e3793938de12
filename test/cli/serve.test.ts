/**
 * `npm start` on a fresh data directory: builds the demo index with progress,
 * serves it on a real socket (without loading onnxruntime when no reranker is
 * configured), and drains and exits cleanly on SIGTERM.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { availableParallelism } from 'node:os';
import { article, tempDir, writeIndex } from '../search/helpers.js';
import { freePort, killChild } from '../reliability/server-process.js';
import { listening, runCommand, spawnServe, type ServeRun } from '../compiled-server.js';
import { writeTinyGguf } from '../../scripts/make-tiny-gguf.js';

const STORIES = path.resolve('..', 'shared', 'models', 'stories260K', 'stories260K.gguf');
if (!existsSync(STORIES)) console.warn(`skipping the SIGTERM-while-generating test: ${STORIES} not found`);

/** `serve` on `dir` and a free port, once it listens (or has ended, or a minute has passed). */
async function serve(dir: string, port: number, ...flags: string[]): Promise<ServeRun> {
  const run = spawnServe(['--data', dir, '--port', String(port), ...flags]);
  await listening(run);
  return run;
}

describe('npm start', () => {
  it('builds the demo index on first start, serves it, and stops on SIGTERM', async () => {
    const { dir, cleanup } = await tempDir();
    const port = await freePort();
    const server = await serve(dir, port, '--search-threads', '1');
    try {
      expect(server.output()).toContain('building it from the demo corpus');
      expect(server.output()).toMatch(/indexed 4\d /);
      const count = await fetch(`http://127.0.0.1:${port}/retrieval/article_count?topics=place%20cells&regions=CA1`);
      expect(count.status).toBe(200);
      expect(((await count.json()) as { article_count: number }).article_count).toBeGreaterThan(0);
      const settings = (await (await fetch(`http://127.0.0.1:${port}/settings`)).json()) as {
        index_stats: { articles: number };
        blobDir: string;
        maxConnections: number;
        demoCorpus: string;
      };
      expect(settings.index_stats.articles).toBeGreaterThanOrEqual(40);
      // Defaults are shown as in force: they had been null, and the demo corpus a path relative to where the server started.
      const openFiles = Number(/^Max open files\s+(\d+)/m.exec(readFileSync(`/proc/${server.child.pid}/limits`, 'utf8'))![1]);
      expect(settings).toMatchObject({
        blobDir: path.join(dir, 'platform', 'files'),
        maxConnections: Math.floor(openFiles * 0.8),
        demoCorpus: path.resolve('data/demo/articles.jsonl'),
      });
      // No reranker is configured, so onnxruntime's native library is never loaded.
      expect(readFileSync(`/proc/${server.child.pid}/maps`, 'utf8')).not.toMatch(/onnxruntime/);
      server.child.kill('SIGTERM');
      expect((await server.exited).code).toBe(0);
      expect(server.output()).toContain('shutting down');
      // The whole log's end on failure: a line after "stopped" says what ended late.
      expect(server.output().trim().split('\n').at(-1), server.output().slice(-1500)).toContain('"msg":"stopped"');
    } finally {
      server.child.kill('SIGKILL');
      await cleanup();
    }
  }, 90_000);
});

describe('SIGTERM while the language model answers', () => {
  it.skipIf(!existsSync(STORIES))('cuts the streamed answer at the drain\'s end and exits 0 (the model was disposed under the running generation: exit 1)', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      // A paragraph that fits the prompt and one that does not: the line saying it was dropped is written as the prompt
      // goes to the model. The prompt left (under 512 tokens) is evaluated in one batch that outlasts the 100 ms drain.
      await writeIndex(`${dir}/index`, [article('a1', ['Grid cells fire on a lattice.', 'Grid cells tile the arena. '.repeat(40)])]);
      const port = await freePort();
      const server = await serve(dir, port, '--search-threads', '0', '--shutdown-timeout', '100ms', '--llm-model', STORIES, '--llm-max-tokens', '1500', '--log-level', 'info');
      try {
        const answer = fetch(`http://127.0.0.1:${port}/qa/streamed_generative`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: 'grid cells' }),
        }).then((response) => response.text());
        await expect.poll(() => server.output()).toContain('keeping the best-ranked that fit');
        server.child.kill('SIGTERM');
        await expect(answer, 'the stream is cut, not answered').rejects.toThrow();
        expect((await server.exited).code, server.output()).toBe(0);
        expect(server.output()).toContain('connection cut before the response was sent');
        // The drain cut it, no client left: it had also been logged "client disconnected; generation stopped".
        expect(server.output()).not.toContain('client disconnected');
        expect(server.output().trim().split('\n').at(-1)).toContain('"msg":"stopped"');
      } finally {
        await killChild(server.child);
      }
    } finally {
      await cleanup();
    }
  }, 90_000);
});

describe('SIGTERM while questions wait for the language model', () => {
  it.skipIf(!existsSync(STORIES))('refuses the waiting question at once, 503 code 13 with Retry-After (it had waited for the drain to cut it)', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      await writeIndex(`${dir}/index`, [article('a1', ['Grid cells fire on a lattice.', 'Grid cells tile the arena. '.repeat(40)])]);
      const port = await freePort();
      // One place to wait in, however many the client holds: of two questions behind the running one, one waits and one is 429.
      const flags = ['--search-threads', '0', '--shutdown-timeout', '2s', '--llm-model', STORIES, '--llm-max-tokens', '1500', '--llm-queue-size', '1', '--llm-queue-per-client', '0'];
      const server = await serve(dir, port, ...flags, '--log-level', 'info');
      const ask = (path: string) =>
        fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'grid cells' }) }).then(
          async (response) => ({ status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.text() }),
          (error: Error) => ({ status: 0, retryAfter: null, body: error.message }),
        );
      try {
        const running = ask('/qa/streamed_generative');
        await expect.poll(() => server.output()).toContain('keeping the best-ranked that fit');
        const behind = [ask('/qa/generative'), ask('/qa/generative')];
        const refusedFirst = await Promise.race(behind);
        expect(refusedFirst.status, refusedFirst.body).toBe(429);
        server.child.kill('SIGTERM');
        const [first, second] = await Promise.all(behind);
        const waiting = first!.status === 429 ? second! : first!;
        expect([waiting.status, waiting.retryAfter, JSON.parse(waiting.body).detail.code]).toEqual([503, '5', 13]);
        expect(JSON.parse(waiting.body).detail.detail).toContain('server shutting down: the question had not started');
        await running;
        expect((await server.exited).code, server.output()).toBe(0);
      } finally {
        await killChild(server.child);
      }
    } finally {
      await cleanup();
    }
  }, 90_000);
});

describe('--search-threads far above the cores', () => {
  it('is warned of at start', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      await writeIndex(`${dir}/index`, [article('a1', ['place cells fire in one place'])]);
      const threads = 2 * availableParallelism() + 1;
      const server = await serve(dir, await freePort(), '--search-threads', String(threads));
      try {
        expect(server.output()).toContain(`--search-threads ${threads} on ${availableParallelism()} cores: each search thread holds about 9 MiB, and threads beyond the cores only wait their turn`);
      } finally {
        server.child.kill('SIGKILL');
      }
    } finally {
      await cleanup();
    }
  }, 90_000);
});

describe('a demo corpus that yields nothing', () => {
  it('stops the first start naming the corpus and why, where it had said only that no index was there', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const corpus = path.join(dir, 'garbage.xml');
      writeFileSync(corpus, '<not><a corpus');
      const result = runCommand(['serve', '--data', path.join(dir, 'data'), '--demo-corpus', corpus, '--port', '0', '--search-threads', '0']);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`error: the demo corpus ${corpus} (--demo-corpus / DEMO_CORPUS) yielded no articles (`);
      expect(result.stderr).toContain('nothing to serve');
      expect(result.stderr).not.toContain('no index in');
    } finally {
      await cleanup();
    }
  });
});

describe('a default index folder holding other files', () => {
  it('is refused naming the default index, without the --input/--index swap guess (neither was given)', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const index = path.join(dir, 'index');
      await mkdir(index);
      writeFileSync(path.join(index, 'notes.txt'), 'mine');
      const result = runCommand(['serve', '--data', dir, '--port', '0', '--search-threads', '0']);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`error: the default index (under --data) ${index} holds no index (no manifest.json) but other files: notes.txt; give a new or empty folder for a new index\n`);
      expect(result.stderr).not.toContain('swapped');
    } finally {
      await cleanup();
    }
  });
});

describe('a start that cannot listen', () => {
  it('exits 1 naming the settings to change when the port is taken', async () => {
    const { dir, cleanup } = await tempDir();
    const holder = createServer();
    const port = await new Promise<number>((resolve) => holder.listen(0, '127.0.0.1', () => resolve((holder.address() as { port: number }).port)));
    try {
      await writeIndex(`${dir}/index`, [article('a1', ['place cells fire in one place'])]);
      const result = runCommand(['serve', '--data', dir, '--port', String(port), '--search-threads', '0']);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`error: cannot listen on 127.0.0.1 port ${port} (--host / HOST, --port / PORT): listen EADDRINUSE`);
    } finally {
      holder.close();
      await cleanup();
    }
  }, 90_000);
});

describe('a start with a broken auth file', () => {
  it('exits 1 naming the file and the setting that points at it', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      await writeIndex(`${dir}/index`, [article('a1', ['place cells fire in one place'])]);
      const authFile = `${dir}/auth.json`;
      writeFileSync(authFile, '{"tokens": ');
      const result = runCommand(['serve', '--data', dir, '--port', '0', '--search-threads', '0', '--auth-file', authFile]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`error: auth file ${authFile} (--auth-file / AUTH_FILE) is not valid JSON: `);
    } finally {
      await cleanup();
    }
  }, 90_000);

  it('is refused before the demo index is built, its control characters written as escapes', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const authFile = `${dir}/auth.json`;
      writeFileSync(authFile, Buffer.alloc(4));
      // No index under --data: the first start would build the demo index first, and only then read the auth file.
      const result = runCommand(['serve', '--data', `${dir}/data`, '--port', '0', '--auth-file', authFile]);
      expect(result.code).toBe(1);
      expect(result.stderr).not.toContain('building it from the demo corpus');
      expect(result.stderr).toMatch(/is not valid JSON: .*\\u0000/);
      expect(result.stderr).not.toContain('\u0000');
    } finally {
      await cleanup();
    }
  }, 90_000);
});

describe('a language model file cut short', () => {
  it("is named with llama.cpp's reason (its error said only \"Failed to load model\"), in the log, and the server serves without QA", async () => {
    const { dir, cleanup } = await tempDir();
    try {
      await writeIndex(`${dir}/index`, [article('a1', ['place cells fire in one place'])]);
      const model = path.join(dir, 'model.gguf');
      await writeTinyGguf(model);
      const whole = readFileSync(model);
      writeFileSync(model, whole.subarray(0, Math.floor(whole.length * 0.6)));
      const port = await freePort();
      const server = await serve(dir, port, '--search-threads', '0', '--llm-model', model);
      try {
        await expect.poll(() => server.output(), { timeout: 30_000 }).toContain('cannot load the language model');
        expect((await fetch(`http://127.0.0.1:${port}/retrieval/article_count`)).status).toBe(200);
        const failure = server.output().split('\n').find((line) => line.includes('cannot load the language model'))!;
        expect(JSON.parse(failure)).toMatchObject({
          level: 50,
          msg: 'language model not available: QA endpoints will answer 503',
          reason: expect.stringMatching(/^cannot load the language model \S+model\.gguf: tensor '[^']+' data is not within the file bounds, model is corrupted or incomplete; check --llm-model \/ LLM_MODEL$/),
        });
        // Said once: no stack, no cause's message appended to it.
        expect(JSON.parse(failure)).not.toHaveProperty('err');
        // llama.cpp's own line is a log line of the server, not raw text on its standard error.
        const llamaLines = server.output().split('\n').filter((line) => line.includes('not within the file bounds') && !line.includes('cannot load the language model'));
        expect(llamaLines.length).toBeGreaterThan(0);
        for (const line of llamaLines) expect(JSON.parse(line)).toMatchObject({ level: 40, source: 'llama.cpp' });
      } finally {
        await killChild(server.child);
      }
    } finally {
      await cleanup();
    }
  }, 90_000);
});

describe('a first start given an auth file that is not there', () => {
  it('is refused before the demo index is built, naming the flag (it was said only after the build)', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const data = path.join(dir, 'data');
      const missing = path.join(dir, 'nope.json');
      const result = runCommand(['serve', '--data', data, '--auth-file', missing, '--port', '0', '--search-threads', '0']);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`--auth-file ${missing}: no such file`);
      expect(existsSync(data)).toBe(false);
      expect(result.stderr).not.toContain('building it from the demo corpus');
    } finally {
      await cleanup();
    }
  }, 60_000);
});
