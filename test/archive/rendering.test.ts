/**
 * Rendering happens off the event loop, on the render threads, with bounded
 * output. The proof that it is off the main thread: here the main thread's
 * JSON-LD processor is replaced by one that refuses to run, and resources are
 * still written, rendered and archived (the worker threads load the real
 * one); with no render threads the same requests fail.
 */
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { LOOKUPS_AHEAD } from '../../src/archive/lookahead.js';
import { TOKENS, type TestServer, bearer, createProject, startServer } from '../platform/helpers.js';
import { unzip } from './unzip.js';

vi.mock('../../src/platform/jsonld.js', async (original) => {
  const real = await original<typeof import('../../src/platform/jsonld.js')>();
  const refuse = () => Promise.reject(new Error('JSON-LD processing ran on the main thread'));
  return { ...real, expand: refuse, compact: refuse, toQuads: refuse };
});

const alice = bearer(TOKENS.alice);
const payload = { '@type': 'Dataset', name: 'rendered elsewhere', keywords: ['a', 'b', 'c'] };

describe('with render threads', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ renderThreads: 1 });
    await createProject(server.app, 'org', 'proj');
  });
  afterAll(() => server.close());

  test('resources are checked, rendered and archived without JSON-LD processing on the main thread', async () => {
    expect((await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/r1', headers: alice, payload })).statusCode).toBe(201);
    const triples = await server.app.inject({ method: 'GET', url: '/v1/resources/org/proj/_/r1', headers: { ...alice, accept: 'application/n-triples' } });
    expect(triples.statusCode).toBe(200);
    expect(triples.body).toContain('"rendered elsewhere"');
    const expanded = await server.app.inject({ method: 'GET', url: '/v1/resources/org/proj/_/r1?format=expanded', headers: alice });
    expect(expanded.statusCode).toBe(200);
    expect(expanded.json()[0]['@id']).toContain('/r1');
    const created = await server.app.inject({
      method: 'PUT',
      url: '/v1/archives/org/proj/a1',
      headers: { ...alice, accept: 'application/json' },
      payload: { resources: ['n-triples', 'expanded', 'compacted', 'dot'].map((format) => ({ '@type': 'Resource', resourceId: 'r1', format, path: `/r1/${format}` })) },
    });
    expect(created.statusCode).toBe(201);
    const zip = await server.app.inject({ method: 'GET', url: '/v1/archives/org/proj/a1', headers: { ...alice, accept: 'application/zip' } });
    expect(zip.statusCode).toBe(200);
    const unzipped = await unzip(zip.rawPayload);
    expect(unzipped.names).toEqual(['r1/compacted', 'r1/dot', 'r1/expanded', 'r1/n-triples']);
    expect(unzipped.entries.get('r1/n-triples')!.toString()).toContain('"rendered elsewhere"');
  });

  test("an archive's own @context is checked without JSON-LD processing on the main thread", async () => {
    const resources = [{ '@type': 'Resource', resourceId: 'r1', path: '/r1.json' }];
    const withContext = (context: unknown) => ({ '@context': context, resources });
    const created = await server.app.inject({ method: 'PUT', url: '/v1/archives/org/proj/a2', headers: { ...alice, accept: 'application/json' }, payload: withContext({ ex: 'https://example.org/' }) });
    expect(created.statusCode).toBe(201);
    // A context the processor refuses is still refused, by the render thread's processor.
    const remote = await server.app.inject({ method: 'PUT', url: '/v1/archives/org/proj/a3', headers: { ...alice, accept: 'application/json' }, payload: withContext('https://example.org/ctx.json') });
    expect(remote.statusCode).toBe(400);
    expect(remote.json()['@type']).toBe('InvalidJsonLdFormat');
    expect(remote.json().details).not.toContain('main thread');
  });
});

describe('without render threads (the control)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ renderThreads: 0 });
    await createProject(server.app, 'org', 'proj');
  });
  afterAll(() => server.close());

  test('the same write fails: processing would run on the main thread', async () => {
    const response = await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/r1', headers: alice, payload });
    expect(response.statusCode).toBe(400);
    expect(response.json().details).toContain('ran on the main thread');
  });
});

describe('bounded rendering', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ renderThreads: 1, maxRenderedBytes: 4000, archiveRenderBounds: { maxSourceBytes: 3000, maxRenderedBytes: 6000 } });
    await createProject(server.app, 'org', 'proj');
    const words = Array.from({ length: 20 }, (_, i) => `word number ${i}`);
    for (const id of ['big-1', 'big-2', 'big-3']) {
      await server.app.inject({ method: 'PUT', url: `/v1/resources/org/proj/_/${id}`, headers: alice, payload: { name: id, words } });
    }
  });
  afterAll(() => server.close());

  const createArchive = (id: string, resources: object[]) =>
    server.app.inject({ method: 'PUT', url: `/v1/archives/org/proj/${id}`, headers: { ...alice, accept: 'application/json' }, payload: { resources } });
  const download = (id: string) => server.app.inject({ method: 'GET', url: `/v1/archives/org/proj/${id}`, headers: { ...alice, accept: 'application/zip' } });

  test('a representation over the per-resource bound is 413 RepresentationTooLarge', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/v1/resources/org/proj/_/big-1', headers: { ...alice, accept: 'application/n-triples' } });
    expect(response.statusCode).toBe(413);
    expect(response.json()['@type']).toBe('RepresentationTooLarge');
    // The compact form fits.
    expect((await server.app.inject({ method: 'GET', url: '/v1/resources/org/proj/_/big-1', headers: alice })).statusCode).toBe(200);
  });

  test('an archive whose payloads exceed the bound is refused before the first byte: 413 ArchiveTooLarge', async () => {
    // Nine entries of about 400 bytes of payload each: over the 3,000 bytes allowed.
    const resources = ['big-1', 'big-2', 'big-3'].flatMap((id) =>
      ['source', 'compacted', 'n-quads'].map((format) => ({ '@type': 'Resource', resourceId: id, format, path: `/${id}/${format}` })),
    );
    expect((await createArchive('too-large', resources)).statusCode).toBe(201);
    const response = await download('too-large');
    expect(response.statusCode).toBe(413);
    expect(response.json()['@type']).toBe('ArchiveTooLarge');
  });

  test('an archive over the payload bound is refused as soon as the revisions read pass it, before reading the rest', async () => {
    // Twenty revisions of about 350 bytes each, read apart: 7,000 bytes, over the 3,000 allowed after nine.
    const words = Array.from({ length: 20 }, (_, i) => `word number ${i}`);
    const payloads = Array.from({ length: 20 }, (_, rev) => ({ name: `revision ${rev + 1}`, words }));
    for (const [rev, payload] of payloads.entries()) {
      const url = `/v1/resources/org/proj/_/revised${rev === 0 ? '' : `?rev=${rev}`}`;
      expect((await server.app.inject({ method: 'PUT', url, headers: alice, payload })).statusCode).toBeLessThan(300);
    }
    let bytes = 0;
    const readWhenRefused = payloads.findIndex((payload) => (bytes += JSON.stringify(payload).length) > 3_000) + 1;
    const resources = Array.from({ length: 20 }, (_, i) => ({ '@type': 'Resource', resourceId: 'revised', rev: i + 1, format: 'source', path: `/revised/${i + 1}.json` }));
    expect((await createArchive('many-revisions', resources)).statusCode).toBe(201);
    const lookup = vi.spyOn(server.platform.resources, 'lookup');
    const response = await download('many-revisions');
    expect(response.statusCode).toBe(413);
    expect(response.json()['@type']).toBe('ArchiveTooLarge');
    // Those up to the one passing the bound, and at most the few looked up ahead of it (lookahead.ts; on
    // PostgreSQL some are still reading their project when the refusal is answered).
    expect(lookup.mock.calls.length).toBeLessThanOrEqual(readWhenRefused + LOOKUPS_AHEAD);
    expect(lookup.mock.calls.length).toBeLessThan(payloads.length);
    lookup.mockRestore();
  });

  test('an archive within its payload bound that renders more than its rendered bound is cut short, never completed', async () => {
    // Six entries of about 400 bytes of payload (2,400 < 3,000), rendering to more than 6,000 bytes together.
    const resources = ['big-1', 'big-2'].flatMap((id) =>
      ['compacted', 'expanded', 'annotated-source'].map((format) => ({ '@type': 'Resource', resourceId: id, format, path: `/${id}/${format}.json` })),
    );
    expect((await createArchive('renders-too-much', resources)).statusCode).toBe(201);
    const outcome = await download('renders-too-much').then(
      (response) => unzip(response.rawPayload).then(() => 'complete', () => 'cut'),
      () => 'cut',
    );
    expect(outcome).toBe('cut');
  });
});
