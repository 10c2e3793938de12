/**
 * A download never decodes a stored payload on the main thread (no timing
 * here): revisions keep their payload as JSON text, reading one decodes only
 * its metadata, and the text goes to a render thread as it is. The proof: the
 * main thread's JSON.parse is watched during a download of a heavy resource
 * in three formats and never sees the payload's text, nor is the payload
 * written out as JSON again on this thread (slicedJson, the path of payloads
 * held as objects), while the archive holds every key. Listing resources
 * gives their types without parsing either. The control: a write parses its
 * body, the payload's text, here.
 */
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { TOKENS, type TestServer, bearer, createProject, startServer } from '../platform/helpers.js';
import { unzip } from './unzip.js';

const written = vi.hoisted(() => ({ count: 0 }));
vi.mock('../../src/platform/render-transfer.js', async (original) => {
  const real = await original<typeof import('../../src/platform/render-transfer.js')>();
  return { ...real, slicedJson: (value: unknown) => (written.count++, real.slicedJson(value)) };
});

const alice = bearer(TOKENS.alice);
const KEYS = 5_000;
const payload: Record<string, unknown> = { '@type': 'Dataset', name: 'heavy' };
for (let k = 0; k < KEYS; k++) payload[`key${k}`] = `value number ${k}`;
const payloadText = JSON.stringify(payload);

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ renderThreads: 1 });
  await createProject(server.app, 'org', 'proj');
  expect((await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/heavy', headers: alice, payload })).statusCode).toBe(201);
  const created = await server.app.inject({
    method: 'PUT',
    url: '/v1/archives/org/proj/bundle',
    headers: { ...alice, accept: 'application/json' },
    payload: { resources: ['n-triples', 'expanded', 'source'].map((format) => ({ '@type': 'Resource', resourceId: 'heavy', format, path: `/heavy/${format}` })) },
  });
  expect(created.statusCode).toBe(201);
});
afterAll(() => server.close());

/** The calls of the main thread's JSON.parse that received the stored payload's text while `action` ran. */
async function payloadParses(action: () => Promise<void>): Promise<number> {
  const parse = vi.spyOn(JSON, 'parse');
  try {
    await action();
    return parse.mock.calls.filter(([text]) => typeof text === 'string' && text.length >= payloadText.length && text.includes('"key4999"')).length;
  } finally {
    parse.mockRestore();
  }
}

test('a download hands the stored payload text to a render thread without parsing it on the main thread', async () => {
  let names: string[] = [];
  let source = '';
  written.count = 0;
  const parses = await payloadParses(async () => {
    const zip = await server.app.inject({ method: 'GET', url: '/v1/archives/org/proj/bundle', headers: { ...alice, accept: 'application/zip' } });
    expect(zip.statusCode).toBe(200);
    const unzipped = await unzip(zip.rawPayload);
    names = unzipped.names;
    source = unzipped.entries.get('heavy/source')!.toString();
  });
  expect(names).toEqual(['heavy/expanded', 'heavy/n-triples', 'heavy/source']);
  expect(JSON.parse(source)).toMatchObject({ name: 'heavy', key0: 'value number 0', key4999: 'value number 4999' });
  expect(parses).toBe(0);
  expect(written.count).toBe(0);
});

test('listing resources gives their types without parsing their stored payloads (recorded apart at write)', async () => {
  const parses = await payloadParses(async () => {
    const listed = await server.app.inject({ method: 'GET', url: '/v1/resources/org/proj', headers: alice });
    expect(listed.statusCode).toBe(200);
    expect(listed.json()._results.find((item: { '@id': string }) => item['@id'].endsWith('heavy'))['@type']).toBe('Dataset');
  });
  expect(parses).toBe(0);
});

test("the control: a write parses its body, the payload's text, on the main thread, and the watch sees it", async () => {
  const parses = await payloadParses(async () => {
    expect((await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/heavy-copy', headers: { ...alice, 'content-type': 'application/json' }, payload: payloadText })).statusCode).toBe(201);
  });
  expect(parses).toBeGreaterThan(0);
});
