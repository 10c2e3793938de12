/**
 * An archive's entries are looked up a few at once (lookahead.ts), for its creation and for its
 * download, and handled in their order as one lookup after another would have been.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { LOOKUPS_AHEAD, inOrderAhead } from '../../src/archive/lookahead.js';
import { TOKENS, type TestServer, bearer, createProject, multipart, startServer } from '../platform/helpers.js';

/** A lookup that takes `delays[item]` ms and records how many run at once. */
function timedLookups(delays: readonly number[]) {
  const record = { started: [] as number[], running: 0, mostAtOnce: 0 };
  const lookup = async (item: number) => {
    record.started.push(item);
    record.mostAtOnce = Math.max(record.mostAtOnce, ++record.running);
    await sleep(delays[item]!);
    record.running--;
    if (item === 3) throw new Error('three fails');
    return item * 10;
  };
  return { record, lookup };
}

describe('inOrderAhead', () => {
  test('answers in the items’ order whatever order the lookups end in, with at most `ahead` in flight, a failure in its place', async () => {
    const items = [0, 1, 2, 3, 4, 5, 6];
    const { record, lookup } = timedLookups([30, 5, 20, 1, 15, 1, 10]);
    const answers: unknown[] = [];
    for await (const settled of inOrderAhead(items, lookup, 3)) answers.push('error' in settled ? `${settled.item}: ${(settled.error as Error).message}` : settled.value);
    expect(answers).toEqual([0, 10, 20, '3: three fails', 40, 50, 60]);
    expect(record.mostAtOnce).toBe(3);
    expect(record.started).toEqual(items);
  });

  test('a caller that stops early leaves at most `ahead` lookups started beyond what it read', async () => {
    const items = Array.from({ length: 20 }, (_, i) => i);
    const { record, lookup } = timedLookups(items.map(() => 1));
    let read = 0;
    for await (const settled of inOrderAhead(items, lookup, 4)) {
      if ('error' in settled) break; // the fourth item (3) fails
      read++;
    }
    await sleep(20);
    expect(read).toBe(3);
    expect(record.started).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(record.running).toBe(0);
  });
});

describe("an archive's lookups", () => {
  const alice = bearer(TOKENS.alice);
  const FILES = 12;
  let server: TestServer;
  let inFlight = 0;
  let mostAtOnce = 0;

  beforeAll(async () => {
    server = await startServer();
    await createProject(server.app, 'org', 'proj');
    for (let i = 0; i < FILES; i++) {
      const upload = await multipart(`f${i}.txt`, `content ${i}`, 'text/plain');
      const stored = await server.app.inject({ method: 'PUT', url: `/v1/files/org/proj/f${i}`, headers: { ...alice, ...upload.headers }, payload: upload.payload });
      expect(stored.statusCode).toBe(201);
    }
    // Each file lookup takes a while, as a round trip to a database would.
    const { files } = server.platform;
    const fetchById = files.fetchById.bind(files);
    vi.spyOn(files, 'fetchById').mockImplementation(async (...args) => {
      mostAtOnce = Math.max(mostAtOnce, ++inFlight);
      try {
        await sleep(10);
        return await fetchById(...args);
      } finally {
        inFlight--;
      }
    });
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await server.close();
  });

  /** Reads of the project of the files while `request` runs: once for all of its entries, not once each. */
  async function projectReads(request: () => Promise<void>): Promise<number> {
    const forRead = vi.spyOn(server.platform.projects, 'forRead');
    try {
      await request();
      return forRead.mock.calls.filter(([ref]) => ref.org === 'org' && ref.project === 'proj').length;
    } finally {
      forRead.mockRestore();
    }
  }

  test('a creation looks its files up a few at once, reading their project once', async () => {
    mostAtOnce = 0;
    const resources = Array.from({ length: FILES }, (_, i) => ({ '@type': 'File', resourceId: `f${i}` }));
    const reads = await projectReads(async () => {
      const created = await server.app.inject({ method: 'PUT', url: '/v1/archives/org/proj/files', headers: { ...alice, accept: 'application/json' }, payload: { resources } });
      expect(created.statusCode).toBe(201);
    });
    expect(mostAtOnce).toBe(LOOKUPS_AHEAD);
    // The archive's own project, then the files' (the same one).
    expect(reads).toBe(2);
  });

  test('a download too, and writes its entries in their order', async () => {
    mostAtOnce = 0;
    let zip: Awaited<ReturnType<typeof server.app.inject>> | undefined;
    const reads = await projectReads(async () => {
      zip = await server.app.inject({ method: 'GET', url: '/v1/archives/org/proj/files', headers: { ...alice, accept: 'application/zip' } });
    });
    expect(zip!.statusCode).toBe(200);
    expect(mostAtOnce).toBe(LOOKUPS_AHEAD);
    expect(reads).toBe(2);
    const names = [...zip!.rawPayload.toString('latin1').matchAll(/f(\d+)\.txt/g)].map((match) => match[0]);
    expect([...new Set(names)]).toEqual(Array.from({ length: FILES }, (_, i) => `f${i}.txt`).sort());
  });
});
