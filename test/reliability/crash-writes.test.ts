/**
 * SIGKILL in the middle of resource and file writes. Four clients write
 * continuously (resources created, updated with ?rev, tagged; files of 1 byte
 * to 3 MiB uploaded and updated); the server is killed at a seeded random
 * moment, restarted on the same data directory, and then every acknowledged
 * write must be there with its content (payload, revision, tags, file bytes
 * matching the digest acknowledged), the one write in flight per entity either
 * fully there or not at all, the listing must show nothing else, no upload may
 * be left in the temporary directory, and the server must take new writes.
 * Three rounds, each continuing the previous state.
 *
 * The seed (printed; `CRASH_SEED=N` replays it) fixes the kill delays, the
 * sizes and the choice of operations; the interleaving of four clients is up
 * to the scheduler.
 */
import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { random } from '../../scripts/lib/random.js';
import { multipart } from '../platform/helpers.js';
import { FIXTURE_ARTICLES } from '../http/app-fixture.js';
import { tempDir, writeIndex } from '../search/helpers.js';
import { admin, adminJson, kill, startServerProcess, writeAdminAuthFile, type ServerProcess } from './server-process.js';

const SEED = Number(process.env.CRASH_SEED ?? Date.now() % 100_000);
const WORKERS = 4;
const MIB = 1024 * 1024;

interface Entity {
  kind: 'resource' | 'file';
  id: string;
  /** Content by acknowledged revision (resource payload JSON, or file SHA-256). */
  acked: Map<number, string>;
  tags: Map<string, number>;
  /** The content of a write sent but never acknowledged (at most one per entity: each client waits for its answers). */
  inFlight: string | null;
}

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');
const latestAcked = (entity: Entity) => Math.max(0, ...entity.acked.keys());

/** Mostly small files, one in twenty between 1 and 3 MiB. */
function fileSize(next: () => number): number {
  return next() < 0.05 ? MIB + Math.floor(next() * 2 * MIB) : Math.floor(next() * 256 * 1024) + 1;
}

/** One client: a loop of writes on its own entities until the server dies. */
async function client(server: ServerProcess, worker: number, entities: Entity[], next: () => number, stop: { dead: boolean }): Promise<void> {
  const mine = entities.filter((e) => e.id.startsWith(`w${worker}-`));
  let counter = mine.length;
  while (!stop.dead) {
    const choice = next();
    const existing = mine.length > 0 ? mine[Math.floor(next() * mine.length)]! : null;
    try {
      if (choice < 0.25 || !existing) {
        const kind = next() < 0.5 ? 'resource' : 'file';
        const entity: Entity = { kind, id: `w${worker}-${kind[0]}${counter++}`, acked: new Map(), tags: new Map(), inFlight: null };
        entities.push(entity);
        mine.push(entity);
        await write(server, entity, next);
      } else if (choice < 0.8) {
        await write(server, existing, next);
      } else if (latestAcked(existing) > 0) {
        // A tag is a revision of its own, with the content of the one before.
        const rev = latestAcked(existing);
        const tag = `t${rev}`;
        const route = existing.kind === 'resource' ? `resources/lab/a/_/${existing.id}` : `files/lab/a/${existing.id}`;
        existing.inFlight = existing.acked.get(rev)!;
        const response = await fetch(`${server.base}/v1/${route}/tags?rev=${rev}`, {
          method: 'POST',
          headers: adminJson,
          body: JSON.stringify({ tag, rev }),
        });
        expect(response.status, await response.clone().text()).toBe(201);
        expect(((await response.json()) as { _rev: number })._rev).toBe(rev + 1);
        existing.acked.set(rev + 1, existing.acked.get(rev)!);
        existing.tags.set(tag, rev);
        existing.inFlight = null;
      }
    } catch (error) {
      if (!stop.dead) throw error;
    }
  }
}

async function write(server: ServerProcess, entity: Entity, next: () => number): Promise<void> {
  const rev = latestAcked(entity);
  const query = rev === 0 ? '' : `?rev=${rev}`;
  if (entity.kind === 'resource') {
    const payload = JSON.stringify({ '@type': 'Thing', name: entity.id, version: rev + 1, filler: 'x'.repeat(Math.floor(next() * 20_000)) });
    entity.inFlight = payload;
    const response = await fetch(`${server.base}/v1/resources/lab/a/_/${entity.id}${query}`, { method: 'PUT', headers: adminJson, body: payload });
    expect(response.status, await response.clone().text()).toBe(rev === 0 ? 201 : 200);
    expect(((await response.json()) as { _rev: number })._rev).toBe(rev + 1);
    entity.acked.set(rev + 1, payload);
  } else {
    const content = Buffer.alloc(fileSize(next), `${entity.id}@${rev + 1};${next()};`);
    const digest = sha256(content);
    entity.inFlight = digest;
    const body = await multipart(`${entity.id}.bin`, content);
    const response = await fetch(`${server.base}/v1/files/lab/a/${entity.id}${query}`, {
      method: 'PUT',
      headers: { ...admin, ...body.headers },
      body: body.payload,
    });
    expect(response.status, await response.clone().text()).toBe(rev === 0 ? 201 : 200);
    const acknowledged = (await response.json()) as { _rev: number; _bytes: number; _digest: { _value: string } };
    expect(acknowledged._rev).toBe(rev + 1);
    expect([acknowledged._bytes, acknowledged._digest._value]).toEqual([content.length, digest]);
    entity.acked.set(rev + 1, digest);
  }
  entity.inFlight = null;
}

async function verify(server: ServerProcess, entities: Entity[]): Promise<{ acked: number; inFlightLanded: number; tags: number }> {
  let acked = 0;
  let inFlightLanded = 0;
  let tags = 0;
  const visible = new Map<string, number>();
  for (const entity of entities) {
    const route = entity.kind === 'resource' ? `resources/lab/a/_/${entity.id}` : `files/lab/a/${entity.id}`;
    const last = latestAcked(entity);
    const metadata = await fetch(`${server.base}/v1/${route}`, { headers: { ...admin, accept: 'application/json' } });
    if (last === 0) {
      // Created but never acknowledged: absent, or there whole.
      if (metadata.status === 404) continue;
      expect(metadata.status).toBe(200);
    } else {
      expect(metadata.status, `${entity.id}: ${await metadata.clone().text()}`).toBe(200);
    }
    const latest = ((await metadata.json()) as { _rev: number })._rev;
    visible.set(entity.id, latest);
    // The acknowledged revision, or one more if the write in flight landed before the kill.
    expect([last, last + 1], entity.id).toContain(latest);
    if (latest === last + 1) {
      expect(entity.inFlight, `${entity.id} has a revision nobody wrote`).not.toBeNull();
      inFlightLanded++;
    }
    for (let rev = 1; rev <= latest; rev++) {
      const expected = rev <= last ? entity.acked.get(rev)! : entity.inFlight!;
      if (entity.kind === 'resource') {
        const source = await fetch(`${server.base}/v1/${route}/source?rev=${rev}`, { headers: admin });
        expect(source.status).toBe(200);
        expect(await source.json(), `${entity.id} rev ${rev}`).toEqual(JSON.parse(expected));
      } else {
        const described = await fetch(`${server.base}/v1/${route}?rev=${rev}`, { headers: { ...admin, accept: 'application/ld+json' } });
        expect(((await described.json()) as { _digest: { _value: string } })._digest._value, `${entity.id} rev ${rev} metadata`).toBe(expected);
        const content = await fetch(`${server.base}/v1/${route}?rev=${rev}`, { headers: { ...admin, accept: '*/*' } });
        expect(content.status).toBe(200);
        expect(sha256(Buffer.from(await content.arrayBuffer())), `${entity.id} rev ${rev} bytes`).toBe(expected);
      }
      if (rev <= last) acked++;
    }
    for (const [tag, rev] of entity.tags) {
      const tagged = await fetch(`${server.base}/v1/${route}?tag=${tag}`, { headers: { ...admin, accept: 'application/json' } });
      expect(((await tagged.json()) as { _rev: number })._rev, `${entity.id} tag ${tag}`).toBe(rev);
      tags++;
    }
    // Whatever landed is now acknowledged state: the next round builds on it.
    if (latest === last + 1) entity.acked.set(latest, entity.inFlight!);
    entity.inFlight = null;
  }

  // The listing shows exactly the resources and files found above, at the same revisions: nobody else's, nothing half-made.
  const listed = new Map<string, number>();
  for (let from = 0; ; from += 1000) {
    const page = (await (await fetch(`${server.base}/v1/resources/lab/a?from=${from}&size=1000`, { headers: admin })).json()) as {
      _total: number;
      _results: { '@id': string; _rev: number }[];
    };
    for (const result of page._results) listed.set(result['@id'].slice(result['@id'].lastIndexOf('/') + 1), result._rev);
    if (from + 1000 >= page._total) break;
  }
  expect(new Map([...listed].sort()), 'resource listing').toEqual(new Map([...visible].sort()));
  return { acked, inFlightLanded, tags };
}

describe('SIGKILL during resource and file writes', () => {
  it(`keeps every acknowledged write and shows nothing half-written (seed ${SEED}; CRASH_SEED=${SEED} replays it)`, async () => {
    process.stderr.write(`crash-writes: seed ${SEED} (CRASH_SEED=${SEED} to replay)\n`);
    const { dir, cleanup } = await tempDir('litserve-crash-');
    const next = random(SEED);
    const dataDir = path.join(dir, 'data');
    const indexDir = path.join(dir, 'index');
    await writeIndex(indexDir, FIXTURE_ARTICLES);
    const authFile = await writeAdminAuthFile(dir);
    const entities: Entity[] = [];
    let server = await startServerProcess({ dataDir, indexDir, authFile });
    try {
      for (const url of ['/v1/orgs/lab', '/v1/projects/lab/a']) {
        expect((await fetch(`${server.base}${url}`, { method: 'PUT', headers: adminJson, body: '{}' })).status).toBe(201);
      }
      for (const delay of [250, 500, 800].map((d) => d + Math.floor(next() * 300))) {
        const stop = { dead: false };
        const clients = Array.from({ length: WORKERS }, (_, worker) => client(server, worker, entities, next, stop));
        await new Promise((resolve) => setTimeout(resolve, delay));
        stop.dead = true;
        await kill(server);
        await Promise.all(clients);

        server = await startServerProcess({ dataDir, indexDir, authFile });
        const { acked, inFlightLanded, tags } = await verify(server, entities);
        process.stderr.write(
          `crash-writes seed ${SEED}, kill after ${delay} ms: ${acked} acknowledged revisions and ${tags} tags intact, ${inFlightLanded} in-flight writes landed whole\n`,
        );
        expect(acked, `no write was acknowledged in ${delay} ms: the round proves nothing`).toBeGreaterThan(0);
        // Uploads cut by the kill left nothing behind once the store reopened.
        expect(await readdir(path.join(dataDir, 'platform', 'files', 'tmp'))).toEqual([]);
      }
      const after = await fetch(`${server.base}/v1/resources/lab/a/_/after-the-crashes`, { method: 'PUT', headers: adminJson, body: '{"name":"ok"}' });
      expect(after.status).toBe(201);
      const upload = await multipart('after.bin', Buffer.from('after the crashes'));
      const file = await fetch(`${server.base}/v1/files/lab/a/after-the-crashes-file`, { method: 'PUT', headers: { ...admin, ...upload.headers }, body: upload.payload });
      expect(file.status).toBe(201);
    } finally {
      await kill(server);
      await cleanup();
    }
  }, 120_000);
});
