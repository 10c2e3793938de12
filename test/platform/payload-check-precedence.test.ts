/**
 * A /v1 payload breaking two rules at once is refused for the one checked first, whichever walk or scan
 * finds each: the parse's (prototype key, repeated key, inexact number), then the write's own order (the
 * URL's and the preconditions' refusals, depth, JSON-LD contexts, the payload's id, lone surrogates).
 * The checks of the parsed value share one walk (payload-survey.ts); what they answer must not move.
 */
import { describe, expect, test } from 'vitest';
import { TOKENS, bearer, serverWithProject } from './helpers.js';

const server = serverWithProject();
const alice = bearer(TOKENS.alice);

/** `"deep": [[[ … 1 … ]]]`, nesting the payload more than the 64 levels allowed. */
const TOO_DEEP = `"deep":${'['.repeat(70)}1${']'.repeat(70)}`;
/** An `@context` array of 201 contexts, one more than allowed. */
const TOO_MANY_CONTEXTS = `"@context":[${Array(201).fill('{}').join(',')}]`;
const LONE_SURROGATE = String.raw`"note":"\ud800"`;
const PROTOTYPE_KEY = '"__proto__":{}';
const REPEATED_KEY = '"name":"a","name":"b"';
const INEXACT_NUMBER = '"count":12345678901234567891';

const put = (url: string, body: string, headers: Record<string, string> = {}) =>
  server().app.inject({ method: 'PUT', url, headers: { ...alice, 'content-type': 'application/json', ...headers }, payload: body });

/** The status, error type and reason (with its details) of a refused write, and whether anything was stored under the URL. */
async function refusal(url: string, body: string, headers: Record<string, string> = {}) {
  const response = await put(url, body, headers);
  const read = await server().app.inject({ method: 'GET', url: url.split('?')[0]!, headers: { ...alice, accept: 'application/json' } });
  const { '@type': type, reason, details } = response.json() as { '@type': string; reason: string; details?: string };
  return { status: response.statusCode, type, reason: details === undefined ? reason : `${reason} ${details}`, stored: read.statusCode !== 404 };
}

const RESOURCE = '/v1/resources/org/proj/_/two-rules';

describe('a resource payload breaking two rules is refused for the one checked first', () => {
  test.each([
    ['a prototype key', 'a repeated key', `{${PROTOTYPE_KEY},${REPEATED_KEY}}`, 'DecodingFailed', 'The key "__proto__" is not accepted'],
    ['a prototype key', 'nesting', `{${TOO_DEEP},"constructor":{"prototype":1}}`, 'DecodingFailed', 'The key "constructor" is not accepted'],
    ['a prototype key', 'a lone surrogate', `{${LONE_SURROGATE},${PROTOTYPE_KEY}}`, 'DecodingFailed', 'The key "__proto__" is not accepted'],
    ['a repeated key', 'an inexact number', `{${INEXACT_NUMBER},${REPEATED_KEY}}`, 'DecodingFailed', 'The key "name" is given more than once'],
    ['an inexact number', 'nesting', `{${TOO_DEEP},${INEXACT_NUMBER}}`, 'DecodingFailed', 'The number 12345678901234567891 cannot be kept'],
    ['an inexact number', 'a lone surrogate', `{${LONE_SURROGATE},${INEXACT_NUMBER}}`, 'DecodingFailed', 'The number 12345678901234567891 cannot be kept'],
    ['nesting', 'too many contexts', `{${TOO_MANY_CONTEXTS},${TOO_DEEP}}`, 'DecodingFailed', 'nested more than 64 levels'],
    ['nesting', 'a lone surrogate', `{${LONE_SURROGATE},${TOO_DEEP}}`, 'DecodingFailed', 'nested more than 64 levels'],
    ['too many contexts', 'a lone surrogate', `{${LONE_SURROGATE},${TOO_MANY_CONTEXTS}}`, 'InvalidJsonLdFormat', 'defines 201 JSON-LD contexts'],
    ['an @id that is no IRI', 'a lone surrogate', `{"@id":"http://example.org/a b",${LONE_SURROGATE}}`, 'InvalidResourceId', 'a b'],
  ])('%s before %s', async (_first, _second, body, type, reason) => {
    const refused = await refusal(RESOURCE, body);
    expect(refused).toEqual({ status: 400, type, reason: expect.stringContaining(reason), stored: false });
  });

  test('a failed precondition before nesting, and nesting before a lone surrogate in an update', async () => {
    const precondition = await refusal(RESOURCE, `{${TOO_DEEP},${LONE_SURROGATE}}`, { 'if-match': '"no-such-revision"' });
    expect([precondition.status, precondition.stored]).toEqual([412, false]);
    expect((await put(RESOURCE, '{"name":"kept"}')).statusCode).toBe(201);
    const update = await refusal(`${RESOURCE}?rev=1`, `{${LONE_SURROGATE},${TOO_DEEP}}`);
    expect([update.status, update.type, update.reason]).toEqual([400, 'DecodingFailed', expect.stringContaining('nested more than 64 levels')]);
    const stored = await server().app.inject({ method: 'GET', url: `${RESOURCE}/source?annotate=true`, headers: alice });
    expect([stored.json()._rev, stored.json().name]).toEqual([1, 'kept']);
  });
});

describe('an archive definition breaking two rules is refused for the one checked first', () => {
  const ARCHIVE = '/v1/archives/org/proj/two-rules';
  const resources = '"resources":[{"@type":"Resource","resourceId":"anything"}]';
  test.each([
    ['a prototype key', 'nesting', `{${resources},${TOO_DEEP},${PROTOTYPE_KEY}}`, 'The key "__proto__" is not accepted'],
    ['nesting', 'too many contexts', `{${resources},${TOO_MANY_CONTEXTS},${TOO_DEEP}}`, 'nested more than 64 levels'],
  ])('%s before %s', async (_first, _second, body, reason) => {
    const refused = await refusal(ARCHIVE, body);
    expect(refused).toEqual({ status: 400, type: 'DecodingFailed', reason: expect.stringContaining(reason), stored: false });
  });
});
