/**
 * A JSON body's unknown key is named before a missing one, as a query string's unknown parameter is
 * (`{"querry": "cells"}` is a misspelt query, not a missing one): both are checked in validation.ts, for
 * every route, the /v1 API's included.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { fixtureApp, type Fixture } from './app-fixture.js';

const TOKEN = 'body-unknown-first';
const AUTH = { tokens: { [TOKEN]: { realm: 'local', subject: 'admin' } }, acls: { '/': { 'local/admin': ['*'] } } };
const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

let fixture: Fixture;
beforeAll(async () => (fixture = await fixtureApp(undefined, {}, { auth: AUTH })));
afterAll(() => fixture.close());

async function refusal(request: InjectOptions) {
  const response = await fixture.app.inject({ ...request, headers });
  expect(response.statusCode).toBe(422);
  return response.json().detail as { code: number; detail: string; parameter: string };
}

describe('an unknown key of a JSON body', () => {
  it.each(['/qa/generative', '/qa/streamed_generative'])('%s names it before the missing query, as /retrieval/ does', async (url) => {
    expect(await refusal({ method: 'POST', url, payload: '{"querry": "cells"}' })).toEqual({ code: 8, parameter: 'querry', detail: 'unknown parameter "querry" in body' });
    // The query string's twin, for comparison.
    expect(await refusal({ method: 'GET', url: '/retrieval/?querry=cells' })).toEqual({ code: 8, parameter: 'querry', detail: 'unknown parameter "querry" in querystring' });
    // Beside a key of the wrong type.
    expect(await refusal({ method: 'POST', url, payload: '{"retriever_k": "x", "bogus": 1}' })).toMatchObject({ parameter: 'bogus' });
  });

  it('names a known key with [] after it as the key it may mean', async () => {
    expect(await refusal({ method: 'POST', url: '/qa/generative', payload: '{"query[]": "cells"}' })).toEqual({
      code: 8,
      parameter: 'query[]',
      detail: 'unknown parameter "query[]" in body (did you mean query?)',
    });
  });

  it('leaves a missing key alone when none is unknown, and a body that is no object', async () => {
    expect(await refusal({ method: 'POST', url: '/qa/generative', payload: '{"retriever_k": 5}' })).toEqual({ code: 8, parameter: 'query', detail: 'query is required' });
    expect(await refusal({ method: 'POST', url: '/qa/generative', payload: '[]' })).toEqual({ code: 8, parameter: 'body', detail: 'the body must be a JSON object' });
  });

  it('is named first in a /v1 body too; a key missing inside a nested object is still reported where it is', async () => {
    const misspelt = await fixture.app.inject({ method: 'PUT', url: '/v1/acls/lab', headers, payload: '{"acll": []}' });
    expect([misspelt.statusCode, misspelt.json().reason]).toEqual([400, "body must NOT have additional properties: 'acll'"]);
    const nested = await fixture.app.inject({ method: 'PUT', url: '/v1/acls/lab', headers, payload: '{"acl": [{"bogus": 1}]}' });
    expect([nested.statusCode, nested.json().reason]).toEqual([400, "body/acl/0 must have required property 'identity'"]);
  });
});
