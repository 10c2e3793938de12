import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { fixtureApp } from './app-fixture.js';
import { contextsOf, ModelUnavailableError, QueueFullError, type Generator, type GenerateOptions, type Context } from '../../src/llm/types.js';
import type { Reranker } from '../../src/rerank/types.js';
import { formatRawAnswer } from '../../src/llm/answer.js';

let app: FastifyInstance;
let close: () => Promise<void>;
beforeAll(async () => ({ app, close } = await fixtureApp()));
afterAll(() => close());

const ask = (body: unknown, query = '') => app.inject({ method: 'POST', url: `/qa/generative${query}`, payload: body as object });

/** A generator whose answer is fixed by the test, citing what it is told to. */
function scriptedGenerator(cite: (contexts: Context[]) => number[]): Generator {
  return {
    kind: 'llama',
    description: 'scripted',
    async generate(_question, contexts, options?: GenerateOptions) {
      options?.onToken?.('Scripted ');
      options?.onToken?.('answer.');
      const sources = cite(await contextsOf(contexts));
      const result = { hasAnswer: true, answer: 'Scripted answer.', sources };
      return { ...result, raw: formatRawAnswer(result) };
    },
    async close() {},
  };
}

describe('POST /qa/generative with the extractive generator', () => {
  it('answers from the contexts and returns the metadata of each cited context', async () => {
    const response = await ask({ query: 'Which cells fire at specific locations in CA1?' });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.answer.length).toBeGreaterThan(0);
    expect(body.raw_answer.startsWith(body.answer)).toBe(true);
    const cited = body.raw_answer.split('<bbs_sources>:')[1].split(',').map((s: string) => Number(s.trim()));
    expect(body.metadata.map((m: { context_id: number }) => m.context_id)).toEqual(cited);
    expect(body.metadata[0]).toMatchObject({ article_id: 'hippo-1', reranking_score: null });
    expect(Object.keys(body.metadata[0])).toHaveLength(17);
  });

  it('answers with the error separator and no metadata when nothing in the contexts answers', async () => {
    const response = await ask({ query: 'cells quantum chromodynamics lattice gauge' });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.raw_answer.startsWith('<bbs_error>')).toBe(true);
    expect(body.metadata).toEqual([]);
  });

  it('applies the filters given as query parameters', async () => {
    const body = (await ask({ query: 'cells' }, '?journals=0896-6273')).json();
    for (const m of body.metadata) expect(m.journal_issn).toBe('0896-6273');
  });

  it('answers 404 code 1 when no paragraph is retrieved', async () => {
    const response = await ask({ query: 'zebrafish' });
    expect(response.statusCode).toBe(404);
    expect(response.json().detail.code).toBe(1);
  });

  it('says why in the 404 when the question is only stopwords', async () => {
    const response = await ask({ query: 'is it the' });
    expect(response.statusCode).toBe(404);
    expect(response.json().detail).toMatchObject({ code: 1, reason: expect.stringContaining('no searchable word') });
  });

  it.each([
    [{}, 'query'],
    [{ query: '' }, 'query'],
    [{ query: '   ' }, 'query'],
    [{ query: 'x', retriever_k: 0 }, 'retriever_k'],
    [{ query: 'x', retriever_k: 1001 }, 'retriever_k'],
    [{ query: 'x', reranker_k: 101 }, 'reranker_k'],
    [{ query: 'x', use_reranker: 'yes' }, 'use_reranker'],
    [{ query: 'x', temperature: 1 }, 'temperature'],
  ])('rejects %j with 422 naming %s', async (body, parameter) => {
    const response = await ask(body);
    expect(response.statusCode).toBe(422);
    expect(response.json().detail.parameter).toBe(parameter);
  });

  it('answers 413 code 4 for a question over 10,000 characters', async () => {
    const response = await ask({ query: 'cells '.repeat(2000) });
    expect(response.statusCode).toBe(413);
    expect(response.json().detail.code).toBe(4);
  });

  it('accepts a 10,000-character question of 4-byte characters, and answers 413 code 4 to a body past the cap', async () => {
    const longest = await ask({ query: '🧠'.repeat(5000) });
    expect(longest.statusCode).not.toBe(413);
    // The cap: 12 bytes (a surrogate pair as two \u escapes) per character of the longest question, plus 4 KiB.
    const huge = await ask({ query: 'cells', padding: 'x'.repeat(12 * 10_000 + 4096) });
    expect(huge.statusCode).toBe(413);
    expect(huge.json().detail.code).toBe(4);
  });

  it('accepts a 10,000-character question written with \\u escapes, as ASCII-only JSON encoders write it', async () => {
    // Every UTF-16 unit escaped: the longest way to write the longest accepted question.
    const escaped = (text: string) => Array.from({ length: text.length }, (_, i) => `\\u${text.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');
    for (const query of ['神経'.repeat(5000), '🧠'.repeat(5000), 'place cells '.repeat(833) + 'CA1?']) {
      expect(query).toHaveLength(10_000);
      const payload = `{"query": "${escaped(query)}"}`;
      const response = await app.inject({ method: 'POST', url: '/qa/generative', headers: { 'content-type': 'application/json' }, payload });
      expect([200, 404], `${query.slice(0, 4)}: ${response.body.slice(0, 200)}`).toContain(response.statusCode);
    }
  });

  it('rejects a body that is not JSON', async () => {
    const response = await app.inject({ method: 'POST', url: '/qa/generative', headers: { 'content-type': 'application/json' }, payload: '{"query":' });
    expect(response.statusCode).toBe(400);
    expect(response.json().detail.code).toBe(8);
  });
});

describe('QA with other generators and a reranker', () => {
  it('drops context ids the model invents', async () => {
    const fixture = await fixtureApp(undefined, { generator: () => scriptedGenerator((contexts) => [999, contexts[0]!.id, -3]) });
    try {
      const body = (await fixture.app.inject({ method: 'POST', url: '/qa/generative', payload: { query: 'cells' } })).json();
      expect(body.metadata).toHaveLength(1);
    } finally {
      await fixture.close();
    }
  });

  it('answers 503 code 3 naming the setting when the model is unavailable, 429 with Retry-After when busy', async () => {
    const failing = await fixtureApp(undefined, {
      generator: () => {
        throw new ModelUnavailableError('cannot load /models/x.gguf; check --llm-model / LLM_MODEL');
      },
    });
    const busy = await fixtureApp(undefined, {
      generator: () => ({ ...scriptedGenerator(() => []), generate: async () => Promise.reject(new QueueFullError(7, 8, 'questions are waiting for an answer')) }),
    });
    try {
      const unavailable = await failing.app.inject({ method: 'POST', url: '/qa/generative', payload: { query: 'cells' } });
      expect(unavailable.statusCode).toBe(503);
      expect(unavailable.json().detail).toMatchObject({ code: 3, detail: expect.stringContaining('--llm-model') });
      const queued = await busy.app.inject({ method: 'POST', url: '/qa/generative', payload: { query: 'cells' } });
      expect(queued.statusCode).toBe(429);
      expect(queued.headers['retry-after']).toBe('7');
    } finally {
      await failing.close();
      await busy.close();
    }
  });

  it('reranks, keeps reranker_k contexts and reports their scores; BM25 order without the reranker', async () => {
    const seen: number[][] = [];
    const recording = scriptedGenerator((contexts) => {
      seen.push(contexts.map((c) => c.id));
      return contexts.map((c) => c.id);
    });
    // Scores favour the paragraph BM25 ranked last.
    const reverse: Reranker = { kind: 'cross-encoder', description: 'reverse', score: async (_q, passages) => passages.map((_, i) => i), close: async () => {} };
    const fixture = await fixtureApp(undefined, { generator: () => recording, reranker: reverse });
    try {
      const reranked = (await fixture.app.inject({ method: 'POST', url: '/qa/generative', payload: { query: 'cells', reranker_k: 2 } })).json();
      const bm25 = (await fixture.app.inject({ method: 'POST', url: '/qa/generative', payload: { query: 'cells', use_reranker: false } })).json();
      const retrieved = bm25.metadata.length;
      expect(retrieved).toBeGreaterThan(2);
      expect(seen[0]).toEqual([retrieved - 1, retrieved - 2]);
      expect(reranked.metadata.map((m: { reranking_score: number }) => m.reranking_score)).toEqual([retrieved - 1, retrieved - 2]);
      expect(seen[1]).toEqual(Array.from({ length: retrieved }, (_, i) => i));
      expect(bm25.metadata.every((m: { reranking_score: null }) => m.reranking_score === null)).toBe(true);
    } finally {
      await fixture.close();
    }
  });
});

describe('a reranker that gives unusable scores', () => {
  it('answers 503 code 3 naming the setting, on QA and on retrieval, never 500', async () => {
    for (const bad of [NaN, Infinity, undefined]) {
      const broken: Reranker = {
        kind: 'cross-encoder',
        description: 'broken',
        score: async (_q, passages) => passages.map((_, i) => (i === 0 ? (bad as number) : i)).filter((s) => s !== undefined),
        close: async () => {},
      };
      const fixture = await fixtureApp(undefined, { reranker: broken });
      try {
        const responses = [
          await fixture.app.inject({ method: 'POST', url: '/qa/generative', payload: { query: 'cells' } }),
          await fixture.app.inject({ method: 'POST', url: '/qa/streamed_generative', payload: { query: 'cells' } }),
          await fixture.app.inject({ method: 'GET', url: '/retrieval/?query=cells' }),
        ];
        for (const response of responses) {
          expect(response.statusCode, `${bad}: ${response.body}`).toBe(503);
          expect(response.json().detail).toMatchObject({ code: 3, detail: expect.stringContaining('--reranker-model') });
        }
      } finally {
        await fixture.close();
      }
    }
  });
});

describe('POST /qa/streamed_generative', () => {
  it('streams token events then a result equal to the non-streamed answer', async () => {
    const payload = { query: 'Which cells fire at specific locations in CA1?' };
    const response = await app.inject({ method: 'POST', url: '/qa/streamed_generative', payload });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/event-stream');
    // The stream carries the headers every response carries, though it bypasses the reply's hooks.
    expect(response.headers).toMatchObject({ 'x-content-type-options': 'nosniff', 'content-security-policy': "default-src 'none'; sandbox" });
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f]{32}$/);
    const events = response.body
      .trim()
      .split('\n\n')
      .map((block) => {
        const [eventLine, dataLine] = block.split('\n');
        return { event: eventLine!.slice('event: '.length), data: JSON.parse(dataLine!.slice('data: '.length)) };
      });
    const tokens = events.filter((e) => e.event === 'token');
    const result = events.at(-1)!;
    expect(tokens.length).toBeGreaterThan(1);
    expect(result.event).toBe('result');
    expect(tokens.map((t) => t.data.text).join('')).toBe(result.data.answer);
    expect(result.data).toEqual((await ask(payload)).json());
  });

  it('answers errors before the stream starts as ordinary JSON errors', async () => {
    const response = await app.inject({ method: 'POST', url: '/qa/streamed_generative', payload: { query: 'zebrafish' } });
    expect(response.statusCode).toBe(404);
    expect(response.json().detail.code).toBe(1);
  });

  it('stops generation when the client disconnects', async () => {
    let aborted = false;
    const slow: Generator = {
      kind: 'llama',
      description: 'waits',
      generate: (_q, _c, options) =>
        new Promise((_resolve, reject) => {
          options?.onToken?.('first ');
          options?.signal?.addEventListener('abort', () => {
            aborted = true;
            reject(options.signal!.reason);
          });
        }),
      close: async () => {},
    };
    const fixture = await fixtureApp(undefined, { generator: () => slow });
    try {
      const address = await fixture.app.listen({ port: 0, host: '127.0.0.1' });
      const controller = new AbortController();
      const response = await fetch(`${address}/qa/streamed_generative`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'cells' }),
        signal: controller.signal,
      });
      const reader = response.body!.getReader();
      const first = new TextDecoder().decode((await reader.read()).value);
      expect(first).toContain('event: token');
      controller.abort();
      const deadline = Date.now() + 5000;
      while (!aborted && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(aborted).toBe(true);
    } finally {
      await fixture.close();
    }
  });

  it("keeps an HTTP/1.1 client's connection open after the stream, and says it closes an HTTP/1.0 client's, as it does", async () => {
    const fixture = await fixtureApp();
    try {
      await fixture.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = fixture.app.server.address() as AddressInfo;
      const body = JSON.stringify({ query: 'cells' });
      /** The head of the streamed answer to one request, and whether the server closed the connection after it. */
      const streamed = async (version: string) => {
        const socket = connect(port, '127.0.0.1');
        socket.write(`POST /qa/streamed_generative HTTP/${version}\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
        let text = '';
        const closed = new Promise<boolean>((resolve) => socket.once('close', () => resolve(true)));
        socket.on('data', (chunk) => (text += String(chunk)));
        // The stream has ended once its result event has come (and, for chunked framing, the final chunk).
        while (!text.includes('event: result') || (version === '1.1' && !text.endsWith('0\r\n\r\n'))) {
          if (await Promise.race([closed, new Promise((resolve) => setTimeout(() => resolve(false), 20))])) break;
        }
        const closedByServer = await Promise.race([closed, new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 500))]);
        socket.destroy();
        return { head: text.slice(0, text.indexOf('\r\n\r\n')).toLowerCase(), closedByServer };
      };
      const current = await streamed('1.1');
      expect(current.head).toContain('content-type: text/event-stream');
      expect(current.head).toContain('connection: keep-alive');
      expect(current.closedByServer).toBe(false);
      const old = await streamed('1.0');
      expect(old.head).toContain('content-type: text/event-stream');
      expect(old.head).toContain('connection: close');
      expect(old.head).not.toContain('keep-alive');
      expect(old.closedByServer).toBe(true);
    } finally {
      await fixture.close();
    }
  });
});
