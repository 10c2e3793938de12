// Ask: the question goes to /qa/streamed_generative; the answer is shown as it streams, then its citations.
import { ApiError, errorOf, literatureFetch, networkError, queryString, serverUrl } from './api.js';

export class StreamError extends Error {}

/** Yields the Server-Sent Events of a response body as { event, data }. */
async function* serverSentEvents(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      const data = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
      }
      yield { event, data: data.join('\n') };
    }
  }
}

/**
 * Streams an answer: onToken(text) for each piece, then resolves with the final result
 * ({ answer, raw_answer, metadata }). Rejects with an ApiError (HTTP failure), a StreamError
 * (an error event, or the stream ending early) or an AbortError (Stop).
 */
export async function streamAnswer(question, filterParams, { signal, onToken }) {
  let response;
  try {
    response = await literatureFetch(`${serverUrl('/qa/streamed_generative')}${queryString(filterParams)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: question }),
      signal,
    });
  } catch (error) {
    throw error instanceof ApiError ? error : networkError(error);
  }
  if (!response.ok) throw await errorOf(response, {}, { asking: true });
  try {
    for await (const { event, data } of serverSentEvents(response.body)) {
      if (event === 'token') onToken(JSON.parse(data).text);
      else if (event === 'result') return JSON.parse(data);
      else if (event === 'error') throw new StreamError(`The answer failed part-way: ${JSON.parse(data).detail?.detail ?? 'unknown error'}`);
    }
  } catch (error) {
    if (error instanceof StreamError || error?.name === 'AbortError') throw error;
    throw new StreamError('The connection to the server was lost before the answer was complete.');
  }
  throw new StreamError('The connection to the server was lost before the answer was complete.');
}

/** `<bbs_error>` answers: the literature found does not answer the question (a 200, not a failure). */
export function isNoAnswer(result) {
  return result.raw_answer.trimStart().startsWith('<bbs_error>');
}
