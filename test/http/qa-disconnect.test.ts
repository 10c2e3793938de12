/**
 * A client that closes a QA request early is not an error: generation stops
 * and one line at info level says so (issue 12 item 2).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { fixtureApp, type Fixture } from './app-fixture.js';
import { capturingLogger } from './captured-log.js';
import type { Contexts, GenerateOptions, GenerationResult, Generator } from '../../src/llm/types.js';
import type { Reranker } from '../../src/rerank/types.js';
import { until } from '../until.js';

/** Streams one token, then waits until aborted; records the abort. */
class StallingGenerator implements Generator {
  readonly kind = 'llama' as const;
  readonly description = 'stalls until aborted';
  aborted = false;
  started = false;
  generate(_question: string, _contexts: Contexts, options: GenerateOptions = {}): Promise<GenerationResult> {
    this.started = true;
    options.onToken?.('Partial ');
    return new Promise((_resolve, reject) => {
      options.signal?.addEventListener('abort', () => {
        this.aborted = true;
        reject(options.signal!.reason);
      });
    });
  }
  async close() {}
}

/** Scores nothing until its signal aborts; records the abort. */
class StallingReranker implements Reranker {
  readonly kind = 'cross-encoder' as const;
  readonly description = 'stalls until aborted';
  aborted = false;
  started = false;
  score(_query: string, _passages: string[], signal?: AbortSignal): Promise<number[]> {
    this.started = true;
    return new Promise((_resolve, reject) => {
      signal?.addEventListener('abort', () => {
        this.aborted = true;
        reject(signal.reason);
      });
    });
  }
  async close() {}
}

let fixture: Fixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const QUESTION = 'Which cells fire in CA1?';

/** Asks `path` over a real socket (POST with the question; GET with it in `path`), hangs up once `busy()` holds, and waits until `stopped()` does. */
async function askAndHangUp(path: string, busy: () => boolean, stopped: () => boolean) {
  await fixture!.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = fixture!.app.server.address() as { port: number };
  const asked = path.includes('?');
  const body = asked ? '' : JSON.stringify({ query: QUESTION });
  const headers = asked ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
  const client = request({ host: '127.0.0.1', port, path, method: asked ? 'GET' : 'POST', headers });
  client.on('error', () => undefined); // we hang up ourselves
  client.end(body);
  await until(busy);
  client.destroy();
  await until(stopped);
}

describe('client disconnect during QA', () => {
  it.each(['/qa/generative', '/qa/streamed_generative'])('%s: generation stops, one info line, no error', async (path) => {
    const generator = new StallingGenerator();
    const { lines, logger } = capturingLogger();
    fixture = await fixtureApp(undefined, { generator: () => generator }, { logger });
    await askAndHangUp(path, () => generator.started, () => generator.aborted);
    await until(() => lines.some((l) => /client disconnected/.test(JSON.stringify(l))));
    await new Promise((r) => setTimeout(r, 200)); // any later error line would have arrived
    const disconnectLines = lines.filter((l) => /client disconnected/.test(JSON.stringify(l)));
    expect(disconnectLines).toHaveLength(1);
    expect(disconnectLines[0]!.level).toBeLessThanOrEqual(30);
    expect(lines.filter((l) => l.level >= 40)).toEqual([]);
  });

  it.each(['/qa/generative', '/qa/streamed_generative', `/retrieval/?query=${encodeURIComponent(QUESTION)}`])('%s: reranking stops too, one info line, no error', async (path) => {
    const reranker = new StallingReranker();
    const { lines, logger } = capturingLogger();
    fixture = await fixtureApp(undefined, { reranker }, { logger });
    await askAndHangUp(path, () => reranker.started, () => reranker.aborted);
    await until(() => lines.some((l) => /client disconnected/.test(JSON.stringify(l))));
    expect(lines.filter((l) => /client disconnected/.test(JSON.stringify(l)))).toHaveLength(1);
    expect(lines.filter((l) => l.level >= 40)).toEqual([]);
  });

  it.each([
    ['/qa/generative', 'generator'],
    ['/qa/streamed_generative', 'generator'],
    [`/retrieval/?query=${encodeURIComponent(QUESTION)}`, 'reranker'],
  ] as const)('%s: the request gives back its place under --max-in-flight when its client leaves (%s stopped)', async (path, stopped) => {
    const generator = new StallingGenerator();
    const reranker = new StallingReranker();
    const parts = stopped === 'generator' ? { generator: () => generator } : { reranker };
    fixture = await fixtureApp(undefined, parts, { flags: ['--max-in-flight', '1'] });
    const stage = stopped === 'generator' ? generator : reranker;
    await askAndHangUp(path, () => stage.started, () => stage.aborted);
    // Its place is given back once the server sees the connection close; then the one place serves again.
    let status = 0;
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline && (status = (await fixture.app.inject({ method: 'GET', url: '/retrieval/article_count' })).statusCode) === 503) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(status).toBe(200);
  });
});
