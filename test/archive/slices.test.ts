/**
 * What keeps the main thread free while archives render (no timing here):
 * an entry rendered on a render thread reaches the main thread in slices of
 * at most RENDER_SLICE_BYTES, one per turn of the event loop, never as one
 * whole entry; and a payload goes to the render thread as JSON written in
 * slices, with the event loop running in between. The main thread's JSON-LD
 * processor refuses to run, so these entries can only have been rendered on
 * a render thread.
 */
import { afterAll, expect, test, vi } from 'vitest';
import { RENDER_SLICE_BYTES, slicedJson } from '../../src/platform/render-transfer.js';
import { createRenderer } from '../../src/platform/renderer.js';

vi.mock('../../src/platform/jsonld.js', async (original) => {
  const real = await original<typeof import('../../src/platform/jsonld.js')>();
  const refuse = () => Promise.reject(new Error('JSON-LD processing ran on the main thread'));
  return { ...real, expand: refuse, compact: refuse, toQuads: refuse };
});

const renderer = createRenderer({ threads: 1, maxBytes: 64 * 1024 ** 2 });
afterAll(() => renderer.close());

/** A payload of `keys` keys: a few MiB as N-Triples. */
function heavyView(keys: number) {
  const source: Record<string, unknown> = { '@type': 'Dataset', name: 'heavy' };
  for (let k = 0; k < keys; k++) source[`key${k}`] = `value number ${k}`;
  return { id: 'https://example.org/heavy', source, metadata: {}, base: 'https://example.org/', vocab: 'https://example.org/vocab/' };
}

/** Counts turns of the event loop (check phases) until stopped. */
function turnCounter() {
  let turns = 0;
  let running = true;
  const tick = () => {
    if (!running) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  return {
    stop: () => {
      running = false;
      return turns;
    },
  };
}

test('a rendered entry crosses to the main thread in bounded slices, one per turn of the event loop', async () => {
  const rendered = await renderer.entry(heavyView(20_000), 'n-triples');
  expect(rendered.bytes).toBeGreaterThan(16 * RENDER_SLICE_BYTES);

  const counter = turnCounter();
  const chunks: Buffer[] = [];
  for await (const chunk of rendered.content) chunks.push(chunk as Buffer);
  const turns = counter.stop();

  expect(Math.max(...chunks.map((c) => c.length))).toBeLessThanOrEqual(RENDER_SLICE_BYTES);
  expect(chunks.length).toBe(Math.ceil(rendered.bytes / RENDER_SLICE_BYTES));
  expect(turns).toBeGreaterThanOrEqual(chunks.length - 1);
  const text = Buffer.concat(chunks).toString();
  expect(Buffer.byteLength(text)).toBe(rendered.bytes);
  expect(text.split('\n')).toHaveLength(20_002 + 1);
  expect(text).toContain('<https://example.org/heavy> <https://example.org/vocab/key19999> "value number 19999" .\n');
});

test('a refused entry is refused before any slice: over the per-representation bound', async () => {
  const small = createRenderer({ threads: 1, maxBytes: 1000 });
  try {
    await expect(small.entry(heavyView(100), 'n-triples')).rejects.toMatchObject({ status: 413, type: 'RepresentationTooLarge' });
  } finally {
    await small.close();
  }
});

test('payloads are written as JSON in slices, the event loop running in between, to the same text as JSON.stringify', async () => {
  const { source } = heavyView(50_000);
  const nested = { list: [1, undefined, null, 'a "quoted" \u2028 line', { deep: [[[]]], gone: undefined }], '10': -0, '2': 1e21, ratio: Number.NaN };
  for (const value of [source, nested, [], {}, 'text', 7, null]) {
    const counter = turnCounter();
    const written = await slicedJson(value);
    const turns = counter.stop();
    expect(written).toBe(JSON.stringify(value));
    if (value === source) expect(turns).toBeGreaterThan(5);
  }
});
