/**
 * The render threads are shared by every caller: one caller's queued jobs (the entries of its archive
 * downloads) must not hold back another's. Jobs take turns by caller; these tests check the order in
 * which jobs start (or, on one render thread, finish), never how long anything takes.
 */
import { afterAll, expect, test } from 'vitest';
import { ANONYMOUS, type Identity } from '../../src/platform/identities.js';
import { fairQueue, renderCallerOf } from '../../src/platform/render-queue.js';
import { createRenderer } from '../../src/platform/renderer.js';
import type { ResourceView } from '../../src/platform/rendering.js';
import { withStoredSource } from '../../src/platform/stored-json.js';

/** A job that starts when the queue says so and ends when the test says so. */
function controlledJobs() {
  const started: string[] = [];
  const finishers = new Map<string, () => void>();
  const job = (name: string) => () =>
    new Promise<string>((resolve) => {
      started.push(name);
      finishers.set(name, () => resolve(name));
    });
  const finish = async (name: string) => {
    finishers.get(name)!();
    // The queue starts the next job once the finished one has settled.
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { started, job, finish };
}

test("a caller's job queued behind many of another caller's starts as soon as the one running ends", async () => {
  const queue = fairQueue(1);
  const { started, job, finish } = controlledJobs();
  const results = ['a1', 'a2', 'a3', 'a4', 'a5'].map((name) => queue.run('A', job(name)));
  results.push(queue.run('B', job('b1')));
  await new Promise((resolve) => setImmediate(resolve));
  expect(started).toEqual(['a1']);
  await finish('a1');
  expect(started).toEqual(['a1', 'b1']);
  for (const name of ['b1', 'a2', 'a3', 'a4', 'a5']) await finish(name);
  expect(started).toEqual(['a1', 'b1', 'a2', 'a3', 'a4', 'a5']);
  // Each caller's own jobs keep their order, and each answer goes to its own job.
  expect(await Promise.all(results)).toEqual(['a1', 'a2', 'a3', 'a4', 'a5', 'b1']);
});

test('callers take turns round by round, a caller back later joins the current round, and a failed job frees its slot', async () => {
  const queue = fairQueue(2);
  const { started, job, finish } = controlledJobs();
  const runs = [
    ...['a1', 'a2', 'a3', 'a4'].map((name) => queue.run('A', job(name))),
    ...['b1', 'b2'].map((name) => queue.run('B', job(name))),
    queue.run('C', job('c1')),
  ];
  const failed = queue.run('D', () => Promise.reject(new Error('refused'))).catch((error: Error) => error.message);
  await new Promise((resolve) => setImmediate(resolve));
  expect(started).toEqual(['a1', 'a2']);
  await finish('a1');
  expect(started).toEqual(['a1', 'a2', 'b1']);
  await finish('a2');
  expect(started).toEqual(['a1', 'a2', 'b1', 'c1']);
  await finish('c1');
  // D's job started and failed in its turn, the slot it held went on to A's next.
  expect(await failed).toBe('refused');
  expect(started).toEqual(['a1', 'a2', 'b1', 'c1', 'a3']);
  const late = queue.run('C', job('c2'));
  await finish('b1');
  await finish('a3');
  expect(started).toEqual(['a1', 'a2', 'b1', 'c1', 'a3', 'b2', 'c2']);
  for (const name of ['b2', 'c2']) await finish(name);
  await finish('a4');
  expect(started).toEqual(['a1', 'a2', 'b1', 'c1', 'a3', 'b2', 'c2', 'a4']);
  await Promise.all([...runs, late]);
});

test('once the queue has drained, a caller that had a turn before waits no longer than one that had none', async () => {
  const queue = fairQueue(1);
  const { started, job, finish } = controlledJobs();
  const earlier = queue.run('A', job('a0'));
  await new Promise((resolve) => setImmediate(resolve));
  await finish('a0');
  await earlier;
  const runs = [queue.run('B', job('b1')), queue.run('A', job('a1')), queue.run('C', job('c1'))];
  await new Promise((resolve) => setImmediate(resolve));
  for (const name of ['b1', 'a1', 'c1']) await finish(name);
  expect(started).toEqual(['a0', 'b1', 'a1', 'c1']);
  await Promise.all(runs);
});

const alice: Identity = { subject: { type: 'User', realm: 'local', subject: 'alice' }, principals: [] };

test("callers' turns: a user by realm and subject, anonymous callers by client", () => {
  expect(renderCallerOf(alice)).toBe(renderCallerOf({ ...alice, principals: [{ type: 'Authenticated' }] }));
  expect(renderCallerOf(alice)).not.toBe(renderCallerOf({ subject: { type: 'User', realm: 'other', subject: 'alice' }, principals: [] }));
  expect(renderCallerOf(ANONYMOUS, '192.0.2.1')).not.toBe(renderCallerOf(ANONYMOUS, '192.0.2.2'));
  // No realm/subject pair spells an anonymous client's key.
  expect(renderCallerOf({ subject: { type: 'User', realm: 'anonymous', subject: '' }, principals: [] })).not.toBe(renderCallerOf(ANONYMOUS, ''));
});

const renderer = createRenderer({ threads: 1, maxBytes: 64 * 1024 ** 2 });
afterAll(() => renderer.close());

/** A view whose payload came from the store (its JSON text goes to the thread as is, so a job is queued as soon as it is asked for). */
function storedView(name: string, keys: number): ResourceView {
  const source: Record<string, string> = { '@id': `https://example.org/${name}` };
  for (let k = 0; k < keys; k++) source[`k${k}`] = `t${k}:a`;
  const view = { id: `https://example.org/${name}`, metadata: { _rev: 1 }, base: 'https://example.org/', vocab: 'https://example.org/vocab/' };
  return withStoredSource(view, JSON.stringify(source));
}

test("on one render thread, another caller's request is answered before the rest of a download's entries", async () => {
  const finished: string[] = [];
  const heavy = storedView('heavy', 2000);
  const entries = ['a1', 'a2', 'a3', 'a4', 'a5'].map((name) =>
    renderer.entry(heavy, 'n-quads', 'downloader').then((entry) => {
      finished.push(name);
      return entry;
    }),
  );
  // Asked once the download's first entry is done, when all its others wait for the thread.
  await entries[0];
  const answer = renderer.json(storedView('tiny', 1), 'compacted', 'reader').then((json) => (finished.push('b'), json));
  await Promise.all([...entries, answer]);
  // After the entry rendering when it was asked for (the second, or the first if it had not started yet), before the others.
  expect(finished.filter((name) => name !== 'b')).toEqual(['a1', 'a2', 'a3', 'a4', 'a5']);
  expect(finished.indexOf('b')).toBeGreaterThanOrEqual(1);
  expect(finished.indexOf('b')).toBeLessThanOrEqual(2);
  // Rendered as ever: the turns change when a job runs, not what it gives.
  const alone = createRenderer({ threads: 0, maxBytes: 64 * 1024 ** 2 });
  expect(await answer).toBe(await alone.json(storedView('tiny', 1), 'compacted'));
  const bytes = (await alone.entry(heavy, 'n-quads')).bytes;
  expect((await Promise.all(entries)).map((entry) => entry.bytes)).toEqual([bytes, bytes, bytes, bytes, bytes]);
});
