/**
 * POST /qa/generative and POST /qa/streamed_generative (Server-Sent Events:
 * `token` events with the answer as it is generated, then one `result` or
 * `error` event). Filters are query parameters, the question is the body.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { LiteratureServices } from './services.js';
import { ApiError, damagedIndexAnswer, ErrorCode, ServiceUnavailableError, literatureErrorBody } from '../errors.js';
import { contextMetadataSchema, errorResponses, filterProperties, filtersOf, GUARDED_ERRORS, READ_PERMISSION } from './schemas.js';
import { NoDocumentsError, type QaPipeline, type QaRequest } from '../../qa/pipeline.js';
import type { FilterSpec } from '../../search/query/filter-spec.js';
import { cutMetadata } from './oversized.js';
import { IncompleteAnswerError, ModelUnavailableError, PromptTooLongError, QueueFullError } from '../../llm/types.js';
import { RerankerUnavailableError } from '../../rerank/types.js';
import { RETRY_AFTER_SECONDS } from '../draining.js';
import { typed, type SchemaType } from '../typed.js';
import { SECURITY_HEADERS } from '../security-headers.js';
import { abortOnDisconnect, workStopped } from '../disconnect.js';
import { clientKey } from '../client-address.js';
import { VISIBLE_CHARACTER_PATTERN } from '../blank-text.js';
import { QUERY_LENGTH_DESCRIPTION, withinQueryLength } from './query-length.js';

export interface QaServices {
  qa: QaPipeline;
}

const bodySchema = {
  type: 'object',
  properties: {
    query: { type: 'string', minLength: 1, pattern: VISIBLE_CHARACTER_PATTERN, description: `The question. ${QUERY_LENGTH_DESCRIPTION}` },
    retriever_k: { type: 'integer', minimum: 1, maximum: 1000, default: 500, description: 'Paragraphs retrieved by BM25.' },
    use_reranker: { type: 'boolean', default: true, description: 'Re-sort the retrieved paragraphs with the reranker, when one is configured.' },
    reranker_k: { type: 'integer', minimum: 1, maximum: 100, default: 8, description: 'Paragraphs kept after reranking.' },
  },
  required: ['query'],
  additionalProperties: false,
} as const;

const filterQuery = { type: 'object', properties: filterProperties, additionalProperties: false } as const;

const answerSchema = {
  type: 'object',
  properties: {
    answer: { type: 'string' },
    raw_answer: { type: 'string' },
    metadata: { type: 'array', items: contextMetadataSchema },
  },
  required: ['answer', 'raw_answer', 'metadata'],
} as const;

const errors = errorResponses(400, 404, 413, 415, 422, 502, ...GUARDED_ERRORS);

// A question can wait minutes in the model's queue before its first token, and a proxy drops a response
// that sends nothing for long (nginx: 60 s by default); a comment line every 15 s keeps it open.
export const WAITING_COMMENT_INTERVAL_MS = 15_000;
const WAITING_COMMENT = ': waiting\n\n';

const EVENT_STREAM_DESCRIPTION = [
  'Server-Sent Events, in this order:',
  '`event: token` (any number) with data `{"text": "..."}`: the next piece of the answer;',
  'then one `event: result` with the JSON body of /qa/generative,',
  'or one `event: error` with an error body `{"detail": {"code", "detail", ...}}` (e.g. code 6 when the answer was cut at the token limit).',
  `A question waiting in the queue gets a comment line \`: waiting\` every ${WAITING_COMMENT_INTERVAL_MS / 1000} s until its first token (SSE clients ignore comments).`,
].join(' ');

/** Maps the pipeline's failures to the API's error vocabulary. */
export function qaError(error: unknown): ApiError | null {
  if (error instanceof ApiError) return error;
  if (error instanceof NoDocumentsError) return new ApiError(404, ErrorCode.NO_DOCUMENTS, error.message, error.reason ? { reason: error.reason } : {});
  if (error instanceof ModelUnavailableError || error instanceof RerankerUnavailableError) {
    return new ApiError(503, ErrorCode.INACTIVE, error.message);
  }
  if (error instanceof QueueFullError) {
    return new ApiError(429, ErrorCode.RATE_LIMITED, error.message, {}, { 'retry-after': String(error.retryAfterSeconds) });
  }
  // Waiting for the model when the drain began (server.ts): refused then, as a request arriving during the drain is.
  if (error instanceof ServiceUnavailableError) return new ApiError(503, ErrorCode.OVERLOADED, error.message, {}, { 'retry-after': String(RETRY_AFTER_SECONDS) });
  if (error instanceof PromptTooLongError) return new ApiError(413, ErrorCode.INPUT_TOO_LARGE, error.message);
  if (error instanceof IncompleteAnswerError) {
    // 502: the request was fine and the server is not broken, but the model (our upstream) gave no complete answer.
    return new ApiError(502, ErrorCode.INCOMPLETE_ANSWER, error.message, { answer: error.partialAnswer, raw_answer: error.rawOutput });
  }
  return null;
}

/** What both QA routes do, as /openapi.json says. */
const QA_PIPELINE =
  'BM25 retrieves retriever_k paragraphs under the filters (query parameters), the reranker (when one is configured and use_reranker) keeps ' +
  'reranker_k, and the generator (the extractive one, or the GGUF model of --llm-model) answers from them: raw_answer ends with <bbs_sources> and ' +
  'the cited context_ids, metadata holds the cited paragraphs in citation order; contexts that do not answer give <bbs_error> and no metadata ' +
  '(still 200). A full queue is 429 with Retry-After; no model is 503 code 3.'

export const qaRoutes: FastifyPluginAsync<LiteratureServices & QaServices> = async (app, { qa, config }) => {
  const api = typed(app);
  const schema = (summary: string, description: string, response: object) => ({
    summary,
    description: `${description} ${QA_PIPELINE} ${READ_PERMISSION}`,
    tags: ['qa'],
    querystring: filterQuery,
    body: bodySchema,
    response,
  });

  // Cited paragraphs are under the limit already; their articles' abstracts may not be.
  const answerOf = async (options: Parameters<QaPipeline['answer']>[2], qaRequest: QaRequest, filters: FilterSpec) => {
    const result = await qa.answer(qaRequest, filters, options);
    return { ...result, metadata: result.metadata.map((m) => cutMetadata(m, config.maxParagraphLength)) };
  };

  const prepare = (body: SchemaType<typeof bodySchema>, filterInput: SchemaType<typeof filterQuery>) => {
    const { retriever_k, use_reranker, reranker_k } = body;
    const query = withinQueryLength(body.query, config.maxQueryLength);
    return { request: { query, retrieverK: retriever_k, useReranker: use_reranker, rerankerK: reranker_k }, filters: filtersOf(filterInput) };
  };

  // Room for the longest accepted question however it is written, plus the other fields; beyond it, 413 code 4.
  // The length counts code points, and the longest JSON spelling of one is two 6-byte \uXXXX escapes (a surrogate
  // pair: what encoders with ASCII output, Python's json.dumps by default, write for characters beyond U+FFFF).
  const bodyLimit = config.maxQueryLength * 12 + 4096;

  api.post(
    '/qa/generative',
    {
      bodyLimit,
      schema: schema(
        'Answer a question from the literature, citing the paragraphs used',
        'The answer as one JSON object once it is complete.',
        { 200: answerSchema, ...errors },
      ),
    },
    async (request, reply) => {
      const { request: qaRequest, filters } = prepare(request.body, request.query);
      const controller = abortOnDisconnect(reply);
      try {
        const { timings, ...answer } = await answerOf({ signal: controller.signal, caller: clientKey(request.ip) }, qaRequest, filters);
        // Bound to the request's logger, so its one 'request completed' line carries them.
        request.log = request.log.child({ timings, cited: answer.metadata.length });
        return answer;
      } catch (error) {
        if (controller.signal.aborted) {
          // Nobody is left to answer: not an error, and nothing to send.
          request.log.info(workStopped(request, 'generation'));
          return reply.hijack();
        }
        throw qaError(error) ?? error;
      }
    },
  );

  api.post(
    '/qa/streamed_generative',
    {
      bodyLimit,
      schema: schema(
        'Same as /qa/generative, streamed as Server-Sent Events (token events, then a result or error event)',
        'The answer\'s words as they are generated (token events), then the whole answer (a result event) or a failure after the stream began (an error event with the code and detail of the JSON errors).',
        {
          200: { description: 'The answer as an event stream.', content: { 'text/event-stream': { schema: { type: 'string', description: EVENT_STREAM_DESCRIPTION } } } },
          ...errors,
        },
      ),
    },
    async (request, reply) => {
      const { request: qaRequest, filters } = prepare(request.body, request.query);
      await streamAnswer(request, reply, (options) => answerOf(options, qaRequest, filters));
    },
  );
};

/**
 * Runs the pipeline with the response as an event stream. Errors before the
 * first byte are ordinary JSON errors (the status still tells the truth);
 * after it, they arrive as an `error` event. The first byte is the first
 * token, or, for a question admitted to the queue that has waited
 * WAITING_COMMENT_INTERVAL_MS without one, a `: waiting` comment (repeated
 * until the first token), which SSE clients ignore.
 */
async function streamAnswer(
  request: FastifyRequest,
  reply: FastifyReply,
  run: (options: { signal: AbortSignal; onToken: (text: string) => void; onAdmitted: () => void; caller: string }) => ReturnType<QaPipeline['answer']>,
): Promise<void> {
  const controller = abortOnDisconnect(reply);
  let started = false;
  const open = () => {
    if (started) return;
    started = true;
    reply.hijack();
    // A hijacked reply skips the onSend hooks: the headers hooks set so far (rate limit) and the
    // security headers every response carries are written here. The Connection header says what Node will do
    // (close after the stream for an HTTP/1.0 client). Written here rather than left to Node: with Node's own
    // (and its `Keep-Alive: timeout` hint) a fetch aborted mid-stream was not seen as a departure in qa.test.ts,
    // for a reason not found (a plain Node server with the same headers sees it).
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value);
    reply.raw.writeHead(200, {
      ...SECURITY_HEADERS,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: reply.raw.shouldKeepAlive ? 'keep-alive' : 'close',
      'x-request-id': request.id,
    });
  };
  const write = (text: string) => {
    open();
    if (!reply.raw.destroyed) reply.raw.write(text);
  };
  let waiting: NodeJS.Timeout | undefined;
  const stopWaiting = () => clearInterval(waiting);
  const send = (event: string, data: unknown) => {
    stopWaiting();
    write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  try {
    const { timings, ...answer } = await run({
      signal: controller.signal,
      onToken: (text) => send('token', { text }),
      onAdmitted: () => (waiting = setInterval(() => write(WAITING_COMMENT), WAITING_COMMENT_INTERVAL_MS)),
      caller: clientKey(request.ip),
    });
    request.log = request.log.child({ timings, cited: answer.metadata.length });
    send('result', answer);
  } catch (error) {
    stopWaiting();
    if (controller.signal.aborted) {
      request.log.info(workStopped(request, 'generation'));
    } else if (!started) {
      throw qaError(error) ?? error;
    } else {
      const mapped = qaError(error) ?? damagedIndexAnswer(error, request.log);
      if (!mapped) request.log.error({ err: error }, 'streamed generation failed');
      send('error', mapped ? literatureErrorBody(mapped.code, mapped.message, mapped.extra) : literatureErrorBody(ErrorCode.INTERNAL, 'generation failed; see the server log'));
    }
  } finally {
    stopWaiting();
    if (started) reply.raw.end();
  }
}
