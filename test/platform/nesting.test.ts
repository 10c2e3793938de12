/** Payloads nested deeper than the documented limit are refused at write time, and nothing is stored. */
import { describe, expect, test } from 'vitest';
import { MAX_JSON_DEPTH, jsonDepth } from '../../src/platform/json-depth.js';
import { TOKENS, bearer, serverWithProject } from './helpers.js';

const server = serverWithProject();
const alice = bearer(TOKENS.alice);

/** `{"name": "deep", "nested": [[[ ... "leaf" ... ]]]}` with `depth` levels in all (the outer object counts). */
function nested(depth: number): object {
  let value: unknown = 'leaf';
  for (let level = 1; level < depth; level++) value = [value];
  return { name: 'deep', nested: value };
}

describe('JSON nesting depth', () => {
  test('the depth counts objects and arrays, and measuring a very deep value does not overflow the stack', () => {
    expect(jsonDepth('x')).toBe(0);
    expect(jsonDepth({})).toBe(1);
    expect(jsonDepth({ a: [{ b: 1 }] })).toBe(3);
    expect(jsonDepth(nested(MAX_JSON_DEPTH))).toBe(MAX_JSON_DEPTH);
    let deep: unknown = 1;
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(jsonDepth(deep)).toBe(MAX_JSON_DEPTH + 1);
  });

  test('a 1,400-level resource is 400 DecodingFailed and is not stored', async () => {
    for (const request of [
      { method: 'POST' as const, url: '/v1/resources/org/proj' },
      { method: 'PUT' as const, url: '/v1/resources/org/proj/_/deep' },
    ]) {
      const response = await server().app.inject({ ...request, headers: alice, payload: { '@id': 'deep', ...nested(1400) } });
      expect(response.statusCode).toBe(400);
      expect(response.json()['@type']).toBe('DecodingFailed');
      expect(response.json().reason).toContain(`at most ${MAX_JSON_DEPTH}`);
    }
    expect((await server().app.inject({ method: 'GET', url: '/v1/resources/org/proj/_/deep', headers: alice })).statusCode).toBe(404);
    expect((await server().app.inject({ method: 'GET', url: '/v1/resources/org/proj', headers: alice })).json()._total).toBe(0);
  });

  test('an update that nests too deeply leaves the resource at its revision', async () => {
    expect((await server().app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/shallow', headers: alice, payload: nested(3) })).statusCode).toBe(201);
    const update = await server().app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/shallow?rev=1', headers: alice, payload: nested(MAX_JSON_DEPTH + 1) });
    expect(update.statusCode).toBe(400);
    expect(update.json()['@type']).toBe('DecodingFailed');
    const stored = await server().app.inject({ method: 'GET', url: '/v1/resources/org/proj/_/shallow/source?annotate=true', headers: alice });
    expect(stored.json()._rev).toBe(1);
  });

  test(`exactly ${MAX_JSON_DEPTH} levels are accepted`, async () => {
    const response = await server().app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/at-limit', headers: alice, payload: nested(MAX_JSON_DEPTH) });
    expect(response.statusCode).toBe(201);
  });

  test('an archive definition nested too deeply is 400 and no archive is stored', async () => {
    const payload = { resources: [{ '@type': 'Resource', resourceId: 'shallow' }], extra: nested(1400) };
    const response = await server().app.inject({ method: 'PUT', url: '/v1/archives/org/proj/deep-archive', headers: { ...alice, accept: 'application/json' }, payload });
    expect(response.statusCode).toBe(400);
    expect(response.json()['@type']).toBe('DecodingFailed');
    const fetched = await server().app.inject({ method: 'GET', url: '/v1/archives/org/proj/deep-archive', headers: { ...alice, accept: 'application/json' } });
    expect(fetched.statusCode).toBe(404);
  });
});
