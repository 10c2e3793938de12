/**
 * What a resource write costs the main thread (docs/DESIGN.md, "A resource write's payload is written
 * out once"): its payload is written out as JSON once, in slices, for the render thread and the store
 * alike, and the types the listings record come back from the render thread as a list, the expanded
 * form never parsed on the main thread. Whole-payload `JSON.stringify` or `JSON.parse` calls of the
 * main thread are what these look for; the render threads run elsewhere.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { render } from '../../src/platform/render-worker.js';
import { BASE, TOKENS, type TestServer, bearer, createProject, startServer } from './helpers.js';

const alice = { ...bearer(TOKENS.alice), 'content-type': 'application/json' };
const KEYS = 5_000;
const payload = { '@type': 'Dataset', ...Object.fromEntries(Array.from({ length: KEYS }, (_, i) => [`k${i}`, `value ${i}`])) };
const payloadText = JSON.stringify(payload);

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ renderThreads: 1 });
  await createProject(server.app, 'org', 'proj');
});
afterAll(() => server.close());
afterEach(() => {
  vi.restoreAllMocks();
});

/** Calls of `JSON.stringify` given an object of a payload's size, and of `JSON.parse` given a text longer than the payload's, while `write` runs. */
async function wholePayloadCalls(write: () => Promise<void>): Promise<{ stringified: number; parsedLonger: number }> {
  const stringify = vi.spyOn(JSON, 'stringify');
  const parse = vi.spyOn(JSON, 'parse');
  await write();
  const stringified = stringify.mock.calls.filter(([value]) => value !== null && typeof value === 'object' && Object.keys(value).length >= KEYS).length;
  const parsedLonger = parse.mock.calls.filter(([text]) => typeof text === 'string' && text.length > payloadText.length).length;
  return { stringified, parsedLonger };
}

describe('a resource write on the main thread', () => {
  test('a creation writes its payload out once, in slices, and stores that text', async () => {
    const calls = await wholePayloadCalls(async () => {
      const created = await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/big', headers: alice, payload: payloadText });
      expect(created.statusCode).toBe(201);
    });
    expect(calls).toEqual({ stringified: 0, parsedLonger: 0 });
    const source = await server.app.inject({ method: 'GET', url: '/v1/resources/org/proj/_/big/source', headers: alice });
    expect(source.body).toBe(payloadText);
    // The type recorded at the write (from the render thread) filters the listing.
    const listed = await server.app.inject({ method: 'GET', url: '/v1/resources/org/proj?type=http%3A%2F%2Fschema.org%2FDataset', headers: alice });
    expect(listed.json()._total).toBe(0);
    const byVocab = await server.app.inject({ method: 'GET', url: `/v1/resources/org/proj?type=${encodeURIComponent(`${BASE}/v1/vocabs/org/proj/Dataset`)}`, headers: alice });
    expect(byVocab.json()._results.map((entry: { '@id': string }) => entry['@id'])).toEqual([`${BASE}/v1/resources/org/proj/_/big`]);
  });

  test('an update alike', async () => {
    const changedText = JSON.stringify({ ...payload, k0: 'changed' });
    const calls = await wholePayloadCalls(async () => {
      const updated = await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/big?rev=1', headers: alice, payload: changedText });
      expect(updated.statusCode).toBe(200);
    });
    // The latest payload is parsed once to see whether the update changes it (its text is the payload's length, not longer).
    expect(calls).toEqual({ stringified: 0, parsedLonger: 0 });
    const source = await server.app.inject({ method: 'GET', url: '/v1/resources/org/proj/_/big/source?rev=2', headers: alice });
    expect(source.body).toBe(changedText);
  });
});

describe("the render thread's types task", () => {
  const view = (source: Record<string, unknown>) => ({ id: 'https://example.org/r', source, metadata: {}, base: 'https://example.org/', vocab: 'https://example.org/vocab/' });

  test("answers the types the expanded form gives the resource's own node, not another's", async () => {
    const source = {
      '@context': { schema: 'http://schema.org/' },
      '@type': ['schema:Dataset', 'Thing'],
      part: { '@id': 'https://example.org/other', '@type': 'schema:Person' },
    };
    expect(await render({ view: view(source), format: 'expanded', as: 'types', maxBytes: 1_000_000 })).toEqual({
      output: JSON.stringify(['http://schema.org/Dataset', 'https://example.org/vocab/Thing']),
    });
    expect(await render({ view: view({ name: 'untyped' }), format: 'expanded', as: 'types', maxBytes: 1_000_000 })).toEqual({ output: '[]' });
  });

  test('is refused as the expanded representation would be, past the size bound', async () => {
    const outcome = await render({ view: view(payload), format: 'expanded', as: 'types', maxBytes: payloadText.length });
    expect(outcome).toMatchObject({ refused: { status: 413, type: 'RepresentationTooLarge' } });
  });
});
