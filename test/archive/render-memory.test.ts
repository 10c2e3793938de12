/**
 * Rendering archive entries on the render threads keeps nothing per entry: a MessageChannel per
 * entry, its slices posted on it, had kept about 3 KB of native memory per entry in the render
 * threads for good (5 MiB per download of 2,000 entries, 1.9 GiB after 250 downloads). This is a
 * leak check with a wide margin, not a memory target: the old code grew about 6 MiB per round here (59-63 MiB over
 * 12 rounds, so about 140 MiB over the 24 measured now). The process's RSS moves in steps of about 16 MiB whatever
 * the rounds: with the render thread compiled (as the tests run it) 17-34 MiB over 12 rounds and 4-41 MiB over 36,
 * 9-17 MiB over 24; hence 24 rounds and a bound of 56 MiB, not the 28 that suited a thread run through tsx.
 */
import { afterAll, expect, test } from 'vitest';
import { createRenderer } from '../../src/platform/renderer.js';

const renderer = createRenderer({ threads: 1, maxBytes: 64 * 1024 ** 2 });
afterAll(() => renderer.close());

const ENTRIES_PER_ROUND = 2000;

function view(i: number) {
  const id = `https://example.org/resources/${i}`;
  return { id, source: { '@id': id, '@type': 'Dataset', name: 'x'.repeat(800), index: i }, metadata: { _rev: 1 }, base: 'https://example.org/', vocab: 'https://example.org/vocab/' };
}

async function renderRound(): Promise<void> {
  for (let i = 0; i < ENTRIES_PER_ROUND; i++) {
    const entry = await renderer.entry(view(i), 'source');
    let bytes = 0;
    for await (const chunk of entry.content) bytes += (chunk as Buffer).length;
    expect(bytes).toBe(entry.bytes);
  }
}

test('the process does not grow with each round of rendered entries', async () => {
  // Warm-up: the render thread's heap and code settle.
  for (let round = 0; round < 10; round++) await renderRound();
  const settled = process.memoryUsage().rss;
  for (let round = 0; round < 24; round++) await renderRound();
  const grown = (process.memoryUsage().rss - settled) / 1024 ** 2;
  expect(grown).toBeLessThan(56);
}, 180_000);
