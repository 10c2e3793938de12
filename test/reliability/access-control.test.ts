/**
 * Every documented route against anonymous, unknown-token, unpermitted,
 * other-project and permitted callers: 401/403/success exactly as
 * docs/ACCESS.md (rendered from the same table) says, and no difference
 * between existing and missing things for callers who may not read them.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureApp, type Fixture } from '../http/app-fixture.js';
import { multipart } from '../platform/helpers.js';
import { Readable } from 'node:stream';
import { OPERATOR } from '../../src/platform/identities.js';
import {
  CALLERS,
  FIXTURE,
  PROBES,
  ROWS,
  expectedStatus,
  expectedWithoutAuthFile,
  renderAccessDoc,
  siblingOf,
  type Caller,
  type Need,
  type RequestContext,
} from './access-table.js';

const ACCESS_DOC = fileURLToPath(new URL('../../docs/ACCESS.md', import.meta.url));
const ADMIN = 'admin-token';
const STRANGER = 'stranger-token';

const tokenFor = (permission: string, at: string) => `token ${permission} ${at}`.replace(/[^a-z0-9]+/gi, '-');

/** An auth file with the administrator, a user without grants, and one user per (permission, address) the table needs. */
function authFile(): object {
  const tokens: Record<string, object> = {
    [ADMIN]: { realm: 'local', subject: 'admin' },
    [STRANGER]: { realm: 'local', subject: 'stranger' },
  };
  const acls: Record<string, Record<string, string[]>> = { '/': { 'local/admin': ['*'] } };
  const grant = (permission: string, at: string) => {
    const subject = tokenFor(permission, at);
    tokens[subject] = { realm: 'local', subject };
    (acls[at] ??= {})[`local/${subject}`] = [permission];
  };
  // The ACL-listing test reads ACLs with acls/read on one project only.
  grant('acls/read', '/lab/a');
  for (const need of [...ROWS.map((row) => row.need), ...PROBES.map((probe) => probe.need)]) {
    if (typeof need === 'string') continue;
    grant(need.permission, need.at);
    grant(need.permission, siblingOf(need.at));
  }
  return { tokens, acls };
}

function authorization(needed: Need, caller: Caller): Record<string, string> {
  const need = typeof needed === 'string' ? { permission: 'resources/read', at: '/lab/a' } : needed;
  switch (caller) {
    case 'anonymous':
      return {};
    case 'unknown token':
      return { authorization: 'Bearer no-such-token' };
    case 'no permission':
      return { authorization: `Bearer ${STRANGER}` };
    case 'other project':
      return { authorization: `Bearer ${tokenFor(need.permission, siblingOf(need.at))}` };
    case 'permitted':
      return { authorization: `Bearer ${tokenFor(need.permission, need.at)}` };
  }
}

let fixture: Fixture;
const context: RequestContext = {
  aclRev: (address) => fixture.platform!.acls.stored(address)?.rev ?? 0,
  upload: (name, content) => multipart(name, content, 'text/plain'),
};

async function send(options: InjectOptions, headers: Record<string, string>) {
  return fixture.app.inject({ ...options, headers: { ...(options.headers as Record<string, string>), ...headers } });
}

async function asAdmin(options: InjectOptions): Promise<void> {
  const response = await send(options, { authorization: `Bearer ${ADMIN}` });
  if (response.statusCode >= 300 && response.statusCode !== 303) throw new Error(`fixture ${options.method} ${options.url}: ${response.statusCode} ${response.body}`);
}

/** Whoever may not do what `need` names. */
const OUTSIDERS = CALLERS.filter((caller) => caller !== 'permitted');
const json = (method: 'PUT' | 'POST', url: string, payload: object = {}, headers: Record<string, string> = {}): InjectOptions => ({
  method,
  url,
  payload: JSON.stringify(payload),
  headers: { 'content-type': 'application/json', ...headers },
});

beforeAll(async () => {
  fixture = await fixtureApp(undefined, {}, { auth: authFile() });
  for (const org of FIXTURE.orgs) await asAdmin(json('PUT', `/v1/orgs/${org}`));
  // lab/b has its own base: an archive of lab/a must not reveal it (nor that lab/b exists) to who cannot read lab/b.
  for (const project of FIXTURE.projects) await asAdmin(json('PUT', `/v1/projects/${project}`, project === 'lab/b' ? { base: 'http://b.example/ids/' } : {}));
  for (const id of FIXTURE.resources) await asAdmin(json('PUT', `/v1/resources/lab/a/_/${id}`, { '@type': 'Thing', name: id }));
  for (const id of FIXTURE.files) await asAdmin({ method: 'PUT', url: `/v1/files/lab/a/${id}`, ...(await multipart(`${id}.txt`, `content of ${id}`, 'text/plain')) });
  for (const id of FIXTURE.archives) await asAdmin(json('PUT', `/v1/archives/lab/a/${id}`, { resources: [{ '@type': 'Resource', resourceId: 'r1' }] }));
  await asAdmin(json('PUT', '/v1/resources/lab/a/_/r-tagged', { '@type': 'Thing', name: 'tagged' }));
  await asAdmin(json('POST', '/v1/resources/lab/a/_/r-tagged/tags?rev=1', { tag: 'v1', rev: 1 }));
  await asAdmin({ method: 'PUT', url: '/v1/files/lab/a/f-tagged', ...(await multipart('f-tagged.txt', 'tagged content', 'text/plain')) });
  await asAdmin(json('POST', '/v1/files/lab/a/f-tagged/tags?rev=1', { tag: 'v1', rev: 1 }));
  await asAdmin(json('PUT', '/v1/resources/lab/b/_/secret', { '@type': 'Thing', name: 'secret' }));
  await asAdmin({ method: 'PUT', url: '/v1/files/lab/b/secret-file', ...(await multipart('clash.txt', 'secret content', 'text/plain')) });
});

afterAll(async () => {
  await fixture.close();
});

/** Every route the app registered, as `METHOD /path/{param}`, read from fastify's route tree. */
function registeredRoutes(app: Fixture['app']): string[] {
  const routes: string[] = [];
  const prefixes: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^((?:[│ ] {3})*)[├└]── (.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    prefixes.length = depth;
    const path = (prefixes.at(-1) ?? '') + match[2]!;
    prefixes.push(path);
    for (const method of match[3]?.split(', ') ?? []) routes.push(`${method} ${path.replace(/:(\w+)/g, '{$1}')}`);
  }
  return routes;
}

describe('the access-control table', () => {
  it('has one row for every registered route (HEAD goes with its GET), and no row for a route that does not exist', () => {
    const registered = registeredRoutes(fixture.app);
    expect(registered.length).toBeGreaterThan(50);
    const rows = ROWS.map((row) => `${row.method} ${row.path}`);
    expect(new Set(rows).size).toBe(rows.length);
    const covered = [...rows, ...ROWS.filter((row) => row.method === 'GET').map((row) => `HEAD ${row.path}`)];
    expect([...covered].sort()).toEqual([...registered].sort());
  });

  it('is what docs/ACCESS.md documents', async () => {
    if (process.env.UPDATE_ACCESS_DOC === '1') await writeFile(ACCESS_DOC, renderAccessDoc());
    expect(await readFile(ACCESS_DOC, 'utf8')).toBe(renderAccessDoc());
  });

  // Rows run in table order: the permitted caller's writes (fresh ids, current revisions) come last in each row.
  for (const row of ROWS) {
    it(`${row.method} ${row.path}`, async () => {
      for (const caller of CALLERS) {
        const request = await row.request(context);
        const expected = expectedStatus(row, caller);
        const responses = [await send(request, authorization(row.need, caller))];
        if (row.method === 'GET') responses.push(await send({ ...request, method: 'HEAD' }, authorization(row.need, caller)));
        // A header that is not a bearer token is as bad as an unknown token.
        if (caller === 'unknown token') responses.push(await send(await row.request(context), { authorization: 'Basic YWxpY2U6c2VjcmV0' }));
        for (const response of responses) {
          const method = response.raw.req.method;
          expect({ caller, method, status: response.statusCode, body: response.body.slice(0, 300) }).toMatchObject({ caller, method, status: expected });
          if (expected === 401) expect(response.headers['www-authenticate']).toBe('Bearer');
          if (method === 'HEAD') {
            expect(response.body).toBe('');
            continue;
          }
          const v1 = row.path.startsWith('/v1');
          // docs/ARCHIVE.md: an unknown token is InvalidAccessToken, a header that is not `Bearer …` InvalidAccessTokenFormat.
          const badFormat = response.raw.req.headers.authorization?.startsWith('Basic') ?? false;
          if (expected === 401) expect(v1 ? response.json()['@type'] : response.json().detail.code).toBe(v1 ? (badFormat ? 'InvalidAccessTokenFormat' : 'InvalidAccessToken') : 9);
          if (expected === 403) expect(v1 ? response.json()['@type'] : response.json().detail.code).toBe(v1 ? 'AuthorizationFailed' : 10);
        }
      }
    });
  }
});

describe('without an auth file', () => {
  let open: Fixture;
  const openContext: RequestContext = {
    aclRev: (address) => open.platform!.acls.stored(address)?.rev ?? 0,
    upload: (name, content) => multipart(name, content, 'text/plain'),
  };

  beforeAll(async () => {
    open = await fixtureApp(undefined, {}, { auth: null });
    // Nothing can be written over HTTP without an auth file: the operator's data is put in place directly.
    await seed(open);
  });

  afterAll(async () => {
    await open.close();
  });

  it('anonymous may read everything and write nothing', async () => {
    for (const row of ROWS) {
      const request = await row.request(openContext);
      const response = await open.app.inject(request);
      expect({ route: `${row.method} ${row.path}`, status: response.statusCode, body: response.body.slice(0, 200) }).toMatchObject({
        route: `${row.method} ${row.path}`,
        status: expectedWithoutAuthFile(row),
      });
    }
  });
});

async function seed({ platform, archives }: Fixture): Promise<void> {
  const a = { org: 'lab', project: 'a' };
  await platform!.orgs.save('lab', undefined, undefined, OPERATOR);
  await platform!.projects.save(a, {}, undefined, OPERATOR);
  await platform!.resources.create(a, 'r1', { '@type': 'Thing', name: 'r1' }, OPERATOR);
  const upload = async () => ({ filename: 'f1.txt', mediaType: 'text/plain', content: Readable.from([Buffer.from('content of f1')]), isTruncated: () => false });
  await platform!.files.create(a, 'f1', undefined, upload, OPERATOR);
  await archives!.create(a, 'ar1', { resources: [{ '@type': 'Resource', resourceId: 'r1' }] }, OPERATOR);
}

describe('existence hiding', () => {
  const lastSegment = (url: string) => url.split('?')[0]!.split('/').filter(Boolean).at(-1)!;

  for (const row of ROWS.filter((r) => r.missing)) {
    it(`${row.method} ${row.path}: the same answer for an existing and a missing target`, async () => {
      const existingRequest = await row.request(context);
      const existingId = lastSegment(String(existingRequest.url).replace(/\/(source|tags)(\?.*)?$/, ''));
      const missingId = lastSegment(String(row.missing!.url).replace(/\/(source|tags)(\?.*)?$/, ''));
      for (const caller of OUTSIDERS) {
        const headers = authorization(row.need, caller);
        const existing = await send(existingRequest, headers);
        const missing = await send(row.missing!, headers);
        expect(existing.statusCode).toBeGreaterThanOrEqual(400);
        expect({ caller, status: missing.statusCode, body: missing.body.replaceAll(missingId, existingId) }).toEqual({
          caller,
          status: existing.statusCode,
          body: existing.body,
        });
      }
    });
  }

  for (const probe of PROBES) {
    it(`${probe.name}: '${probe.existing}' and '${probe.missing}' look the same to whoever lacks ${probe.need.permission} on ${probe.need.at}`, async () => {
      for (const caller of OUTSIDERS) {
        const headers = authorization(probe.need, caller);
        const existing = await send(await probe.request(probe.existing, context), headers);
        const missing = await send(await probe.request(probe.missing, context), headers);
        expect({ caller, status: existing.statusCode }).toEqual({ caller, status: caller === 'unknown token' ? 401 : 403 });
        expect({ caller, status: missing.statusCode, body: missing.body.replaceAll(probe.missing, probe.existing) }).toEqual({
          caller,
          status: existing.statusCode,
          body: existing.body,
        });
      }
    });
  }

  it('the probes can tell existing from missing for a permitted caller (they are not vacuous)', async () => {
    for (const probe of PROBES.filter((p) => p.need.permission === 'resources/read')) {
      const headers = authorization(probe.need, 'permitted');
      const existing = await send(await probe.request(probe.existing, context), headers);
      const missing = await send(await probe.request(probe.missing, context), headers);
      expect({ probe: probe.name, differ: existing.statusCode !== missing.statusCode || existing.body !== missing.body.replaceAll(probe.missing, probe.existing) }).toEqual({
        probe: probe.name,
        differ: true,
      });
    }
  });
});

describe('writers who may not read', () => {
  it('learn that an id is taken (409) and nothing of its content', async () => {
    const writer = { authorization: `Bearer ${tokenFor('resources/write', '/lab/a')}` };
    const taken = await send(json('PUT', '/v1/resources/lab/a/_/r1', { '@type': 'Thing', name: 'again' }), writer);
    expect(taken.statusCode).toBe(409);
    expect(taken.body).not.toContain('"name"');
    expect((await send({ method: 'GET', url: '/v1/resources/lab/a/_/r1' }, writer)).statusCode).toBe(403);
  });
});

describe('listings', () => {
  const reader = { authorization: `Bearer ${tokenFor('resources/read', '/lab/a')}` };

  it("a project's resource listing holds only that project's resources", async () => {
    const response = await send({ method: 'GET', url: '/v1/resources/lab/a?size=1000' }, reader);
    expect(response.statusCode).toBe(200);
    const results = response.json()._results as { '@id': string; _project: string }[];
    expect(results.length).toBeGreaterThan(3);
    expect(results.map((r) => r._project).filter((project) => project !== 'lab/a')).toEqual([]);
    expect(results.some((r) => r['@id'].includes('secret'))).toBe(false);
  });

  it('the project listing names only the projects where the caller holds the permission asked', async () => {
    const labels = async (query: string, caller: Record<string, string>) =>
      ((await send({ method: 'GET', url: `/v1/projects${query}` }, caller)).json()._results as { _self: string }[]).map((p) => p._self.split('/v1/projects/')[1]);
    expect(await labels('', reader)).toEqual(['lab/a']);
    expect(await labels('?permission=resources/write', reader)).toEqual([]);
    expect(await labels('?permission=resources/write', { authorization: `Bearer ${tokenFor('resources/write', '/lab/a')}` })).toEqual(['lab/a']);
    expect(await labels('', { authorization: `Bearer ${STRANGER}` })).toEqual([]);
    expect(await labels('?permission=resources/write', { authorization: `Bearer ${ADMIN}` })).toEqual(expect.arrayContaining(['literature/articles', 'lab/a', 'lab/b']));
  });

  it('there is no listing of an organization: the same 404 whether the organization exists or not', async () => {
    for (const url of ['/v1/resources/lab', '/v1/projects/lab', '/v1/orgs', '/v1/files/lab', '/v1/archives/lab']) {
      const existing = await send({ method: 'GET', url }, reader);
      const missing = await send({ method: 'GET', url: url.replace('/lab', '/no-such-org') }, reader);
      expect({ url, status: existing.statusCode }).toEqual({ url, status: 404 });
      expect(missing.body.replaceAll('no-such-org', 'lab')).toBe(existing.body);
    }
  });

  it("ACL listings show a caller its own grants only, and with self=false only where it holds acls/read", async () => {
    for (const address of ['', '/lab', '/lab/a', '/lab/b']) {
      const own = await send({ method: 'GET', url: `/v1/acls${address}?ancestors=true` }, reader);
      expect(own.statusCode).toBe(200);
      const principals = (own.json()._results as { acl: { identity: { subject?: string } }[] }[]).flatMap((acl) => acl.acl.map((entry) => entry.identity));
      for (const identity of principals) expect(identity).toMatchObject({ '@type': expect.stringMatching(/^(User|Anonymous|Authenticated)$/) });
      for (const identity of principals) if ('subject' in identity) expect(identity.subject).toBe(tokenFor('resources/read', '/lab/a'));
    }
    const aclReader = { authorization: `Bearer ${tokenFor('acls/read', '/lab/a')}` };
    const all = await send({ method: 'GET', url: '/v1/acls/lab/a?self=false&ancestors=true' }, aclReader);
    expect(all.statusCode).toBe(200);
    const paths = (all.json()._results as { _path: string }[]).map((acl) => acl._path);
    expect(paths).toContain('/lab/a');
    expect(paths.filter((path) => path !== '/lab/a')).toEqual([]);
    const denied = await send({ method: 'GET', url: '/v1/acls/lab?self=false' }, aclReader);
    expect(denied.statusCode).toBe(403);
  });
});

describe('archives across projects', () => {
  const reader = { authorization: `Bearer ${tokenFor('resources/read', '/lab/a')}` };
  const admin = { authorization: `Bearer ${ADMIN}` };

  it('a download checks resources/read on every referenced project before the first byte', async () => {
    // The archive lives in lab/a (readable by the caller) but packs a resource of lab/b (not readable).
    await asAdmin(json('PUT', '/v1/archives/lab/a/cross-project', { resources: [{ '@type': 'Resource', resourceId: 'r1' }, { '@type': 'Resource', project: 'lab/b', resourceId: 'http://b.example/ids/secret' }] }, { accept: 'application/json' }));
    for (const query of ['', '?ignoreNotFound=true']) {
      const download = await send({ method: 'GET', url: `/v1/archives/lab/a/cross-project${query}`, headers: { accept: 'application/zip' } }, reader);
      expect(download.statusCode).toBe(403);
      expect(download.headers['content-type']).not.toContain('zip');
      expect(download.json()).toMatchObject({ '@type': 'AuthorizationFailed' });
      expect(download.body).toContain('/lab/b');
    }
    const full = await send({ method: 'GET', url: '/v1/archives/lab/a/cross-project', headers: { accept: 'application/zip' } }, admin);
    expect(full.statusCode).toBe(200);
    expect(full.headers['content-type']).toContain('zip');
  });

  it('whether a referenced thing of an unreadable project exists makes no difference, at creation or at download', async () => {
    const variants = {
      existing: { resource: 'http://b.example/ids/secret', file: 'http://b.example/ids/secret-file', project: 'lab/b' },
      missing: { resource: 'http://b.example/ids/no-such-thing', file: 'http://b.example/ids/no-such-file', project: 'lab/no-such-project' },
    };
    const answers: Record<string, string[]> = {};
    for (const [name, v] of Object.entries(variants)) {
      const entries = [
        { '@type': 'Resource', project: v.project, resourceId: v.resource },
        // A relative id: resolved against the entry project's base, which only a reader of that project may learn.
        { '@type': 'Resource', project: v.project, resourceId: 'relative-id', path: '/relative.json' },
        { '@type': 'File', project: v.project, resourceId: v.file },
        // Would clash with the name of lab/b's file `clash.txt`: refused at creation only for whoever may read lab/b.
        { '@type': 'Resource', resourceId: 'r1', path: `/${v.project}/file/clash.txt` },
      ];
      const created = await send(json('PUT', `/v1/archives/lab/a/probe-${name}`, { resources: entries }, { accept: 'application/json' }), reader);
      const metadata = await send({ method: 'GET', url: `/v1/archives/lab/a/probe-${name}`, headers: { accept: 'application/json' } }, reader);
      const download = await send({ method: 'GET', url: `/v1/archives/lab/a/probe-${name}?ignoreNotFound=true`, headers: { accept: 'application/zip' } }, reader);
      const scrub = (body: string) =>
        body
          .replaceAll(v.file, '<file>')
          .replaceAll(v.resource, '<resource>')
          .replaceAll(v.project, '<project>')
          .replaceAll(`probe-${name}`, '<archive>')
          .replace(/"_(createdAt|updatedAt)":"[^"]*"/g, '')
          .replace(/"_expiresInSeconds":\d+/, '');
      answers[name] = [created, metadata, download].map((r) => `${r.statusCode} ${scrub(r.body)}`);
      expect(created.statusCode).toBe(201);
      expect(download.statusCode).toBe(403);
    }
    expect(answers.missing).toEqual(answers.existing);
    // The same creation by someone who may read lab/b is refused: the clash is real, the probe is not vacuous.
    const byAdmin = await send(json('PUT', '/v1/archives/lab/a/probe-admin', { resources: [{ '@type': 'File', project: 'lab/b', resourceId: variants.existing.file }, { '@type': 'Resource', resourceId: 'r1', path: '/lab/b/file/clash.txt' }] }, { accept: 'application/json' }), admin);
    expect(byAdmin.statusCode).toBe(400);
  });
});
