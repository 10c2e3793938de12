/**
 * The OpenAPI document of the literature API tells the truth (issue 12 item 6):
 * for every route, the statuses a battery of requests draws from it (good,
 * malformed, oversized, unauthorised, rate-limited, overloaded, every
 * failure of the QA pipeline, and, over a socket, the framings refused before
 * any route and the requests the HTTP parser refuses) are exactly the statuses
 * it declares. A declared status no probe reaches, or a reached one not declared, fails.
 */
import net from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { fixtureApp, type Fixture } from './app-fixture.js';
import { rawExchange } from './raw-exchange.js';
import { ExtractiveGenerator } from '../../src/llm/extractive.js';
import { IncompleteAnswerError, ModelUnavailableError, QueueFullError, type Context, type GenerateOptions, type Generator } from '../../src/llm/types.js';

const READER = 'Bearer reader-token';
const AUTH = {
  tokens: { 'reader-token': { realm: 'local', subject: 'reader' }, 'stranger-token': { realm: 'local', subject: 'stranger' } },
  acls: { '/literature/articles': { 'local/reader': ['resources/read'] } },
};

/** The extractive generator, failing on demand as a real model can, and stalling until released. */
class ScriptedGenerator implements Generator {
  readonly kind = 'llama' as const;
  readonly description = 'scripted';
  private readonly extractive = new ExtractiveGenerator();
  release: () => void = () => undefined;
  async generate(question: string, contexts: Context[], options?: GenerateOptions) {
    if (question.includes('INCOMPLETE')) throw new IncompleteAnswerError('Partial', '{"has_answer": true, "answer": "Partial', 16);
    if (question.includes('UNAVAILABLE')) throw new ModelUnavailableError('the language model was shut down');
    if (question.includes('BUSY')) throw new QueueFullError(3, 8, 'questions are waiting for an answer');
    if (question.includes('STALL')) await new Promise<void>((resolve) => (this.release = resolve));
    return this.extractive.generate(question, contexts, options);
  }
  async close() {}
}

interface Route {
  method: 'GET' | 'POST';
  url: string;
  /** A request the route answers 200. */
  good: string | object;
}

const ROUTES: Route[] = [
  { method: 'GET', url: '/', good: '' },
  { method: 'GET', url: '/healthz', good: '' },
  { method: 'GET', url: '/settings', good: '' },
  { method: 'GET', url: '/retrieval/', good: '?query=cells' },
  { method: 'GET', url: '/retrieval/article_count', good: '?topics=cells' },
  { method: 'GET', url: '/retrieval/article_listing', good: '?topics=cells' },
  { method: 'GET', url: '/suggestions/article_types', good: '' },
  { method: 'GET', url: '/suggestions/author', good: '?name=ada' },
  { method: 'GET', url: '/suggestions/journal', good: '?keywords=neuron' },
  { method: 'POST', url: '/qa/generative', good: { query: 'Which cells fire in CA1?' } },
  { method: 'POST', url: '/qa/streamed_generative', good: { query: 'Which cells fire in CA1?' } },
];

/** Requests that vary the good one: every kind of bad input, and every pipeline failure. */
function probes(route: Route): InjectOptions[] {
  const auth = { authorization: READER };
  if (route.method === 'GET') {
    const query = route.good as string;
    const join = (extra: string) => `${route.url}${query ? `${query}&` : '?'}${extra}`;
    return [
      { method: 'GET', url: route.url + query, headers: auth },
      { method: 'GET', url: join('bogus=1'), headers: auth },
      { method: 'GET', url: join('date_from=2020-01-01&date_to=2019-01-01'), headers: auth },
      { method: 'GET', url: route.url === '/retrieval/' ? `${route.url}?query=zzzunknownword` : route.url + query, headers: auth },
      { method: 'GET', url: route.url === '/retrieval/' ? `${route.url}?query=${'x'.repeat(20_000)}` : route.url + query, headers: auth },
      { method: 'GET', url: route.url + query, headers: { authorization: 'Bearer nobody' } },
      { method: 'GET', url: route.url + query, headers: { authorization: 'Bearer stranger-token' } },
      { method: 'GET', url: `${route.url}?%E0%A4%A=1`, headers: auth },
      { method: 'GET', url: route.url + query, headers: { ...auth, accept: 'text/html' } },
    ];
  }
  const body = (query: string, extra: object = {}) => ({ method: 'POST' as const, url: route.url, headers: auth, payload: { query, ...extra } });
  return [
    body('Which cells fire in CA1?'),
    body('Which cells fire in CA1?', { bogus: 1 }),
    body('zzzunknownword'),
    body('x'.repeat(20_000)),
    body('cells INCOMPLETE'),
    body('cells UNAVAILABLE'),
    body('cells BUSY'),
    { method: 'POST', url: route.url, headers: { ...auth, 'content-type': 'application/json' }, payload: '{"query": ' },
    { method: 'POST', url: route.url, headers: { ...auth, 'content-type': 'application/xml' }, payload: '<query>cells</query>' },
    { method: 'POST', url: `${route.url}?date_from=2020-01-01&date_to=2019-01-01`, headers: auth, payload: { query: 'cells' } },
    { method: 'POST', url: `${route.url}?%E0%A4%A=1`, headers: auth, payload: { query: 'cells' } },
    { method: 'POST', url: route.url, headers: { authorization: 'Bearer nobody' }, payload: { query: 'cells' } },
    { method: 'POST', url: route.url, headers: { authorization: 'Bearer stranger-token' }, payload: { query: 'cells' } },
  ];
}

/** The route's good request as raw HTTP/1.1 with `headers` added, then `body`; null: the headers never end. */
function rawRequest(route: Route, headers: string, body: string | null): string {
  const target = route.method === 'GET' ? route.url + (route.good as string) : route.url;
  const head = `${route.method} ${target} HTTP/1.1\r\nHost: x\r\nAuthorization: ${READER}\r\nContent-Type: application/json\r\n${headers}`;
  return body === null ? head : `${head}\r\n${body}`;
}

/** Requests refused before any route: an Expect, a transfer coding, headers too large, headers that never end. */
function framingProbes(route: Route): string[] {
  const body = route.method === 'POST' ? JSON.stringify(route.good) : '';
  return [
    rawRequest(route, `Content-Length: ${body.length}\r\nExpect: 200-ok\r\n`, body),
    rawRequest(route, 'Transfer-Encoding: gzip, chunked\r\n', '0\r\n\r\n'),
    rawRequest(route, `X-Filler: ${'x'.repeat(20_000)}\r\n`, ''),
    rawRequest(route, '', null),
  ];
}

/** The status of the answer `request` draws on a connection of its own (the server closes each after these refusals). */
async function rawStatus(port: number, request: string): Promise<number> {
  return (await rawExchange(port, request)).status;
}

const seen = new Map<string, Set<number>>(ROUTES.map((r) => [`${r.method} ${r.url}`, new Set<number>()]));
let declared: Record<string, Record<string, { responses: Record<string, unknown> }>>;

async function record(fixture: Fixture, route: Route, request: InjectOptions) {
  const response = await fixture.app.inject(request);
  seen.get(`${route.method} ${route.url}`)!.add(response.statusCode);
  return response;
}

beforeAll(async () => {
  const generator = new ScriptedGenerator();
  // Guarded by ACLs, with a tight rate limit on a second app and a one-request capacity on a third.
  const open = await fixtureApp(undefined, { generator: () => generator }, { auth: AUTH, flags: ['--max-query-length', '10000'] });
  try {
    declared = (await open.app.inject({ method: 'GET', url: '/openapi.json' })).json().paths;
    for (const route of ROUTES) for (const request of probes(route)) await record(open, route, request);
  } finally {
    await open.close();
  }
  const limited = await fixtureApp(undefined, { generator: () => generator }, { auth: AUTH, flags: ['--rate-limit', '1'] });
  try {
    for (const route of ROUTES) {
      const [request] = probes(route);
      await record(limited, route, request!);
      await record(limited, route, request!);
    }
  } finally {
    await limited.close();
  }
  const busy = await fixtureApp(undefined, { generator: () => generator }, { auth: AUTH, flags: ['--max-in-flight', '1'] });
  try {
    const stalled = busy.app.inject({ method: 'POST', url: '/qa/generative', headers: { authorization: READER }, payload: { query: 'cells STALL' } });
    await new Promise((r) => setTimeout(r, 200));
    for (const route of ROUTES) await record(busy, route, probes(route)[0]!);
    generator.release();
    await stalled;
  } finally {
    await busy.close();
  }
  // Over a socket, with a short --request-timeout for the headers that never end.
  const framing = await fixtureApp(undefined, { generator: () => generator }, { auth: AUTH, flags: ['--request-timeout', '1s'] });
  try {
    await framing.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = framing.app.server.address() as net.AddressInfo;
    const answers = ROUTES.flatMap((route) => framingProbes(route).map(async (request) => seen.get(`${route.method} ${route.url}`)!.add(await rawStatus(port, request))));
    await Promise.all(answers);
  } finally {
    await framing.close();
  }
}, 60_000);

describe('OpenAPI statuses of the literature API', () => {
  it.each(ROUTES.map((r) => [`${r.method} ${r.url}`, r] as const))('%s declares exactly the statuses it answers', (_name, route) => {
    const operation = declared[route.url]?.[route.method.toLowerCase()];
    expect(operation, `${route.url} is documented`).toBeDefined();
    const documented = Object.keys(operation!.responses).map(Number).sort();
    const answered = [...seen.get(`${route.method} ${route.url}`)!].sort();
    expect(documented).toEqual(answered);
  });

  it('documents the event stream of /qa/streamed_generative', () => {
    const ok = declared['/qa/streamed_generative']!.post!.responses['200'] as { content: Record<string, { schema: { description?: string } }> };
    expect(Object.keys(ok.content)).toEqual(['text/event-stream']);
    for (const event of ['token', 'result', 'error']) expect(ok.content['text/event-stream']!.schema.description).toContain(`event: ${event}`);
  });
});
