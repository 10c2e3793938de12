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
import { CALLERS, FIXTURE, ROWS, expectedStatus, renderAccessDoc, siblingOf, type Caller, type RequestContext, type Row } from './access-table.js';

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
  for (const { need } of ROWS) {
    if (typeof need === 'string') continue;
    grant(need.permission, need.at);
    grant(need.permission, siblingOf(need.at));
  }
  return { tokens, acls };
}

function authorization(row: Row, caller: Caller): Record<string, string> {
  const need = typeof row.need === 'string' ? { permission: 'resources/read', at: '/lab/a' } : row.need;
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

beforeAll(async () => {
  fixture = await fixtureApp(undefined, {}, { auth: authFile() });
  const json = (method: 'PUT' | 'POST', url: string, payload: object = {}) => asAdmin({ method, url, payload, headers: { 'content-type': 'application/json' } });
  for (const org of FIXTURE.orgs) await json('PUT', `/v1/orgs/${org}`);
  for (const project of FIXTURE.projects) await json('PUT', `/v1/projects/${project}`);
  for (const id of FIXTURE.resources) await json('PUT', `/v1/resources/lab/a/_/${id}`, { '@type': 'Thing', name: id });
  for (const id of FIXTURE.files) await asAdmin({ method: 'PUT', url: `/v1/files/lab/a/${id}`, ...(await multipart(`${id}.txt`, `content of ${id}`, 'text/plain')) });
  for (const id of FIXTURE.archives) await json('PUT', `/v1/archives/lab/a/${id}`, { resources: [{ '@type': 'Resource', resourceId: 'r1' }] });
});

afterAll(async () => {
  await fixture.close();
});

describe('the access-control table', () => {
  it('has a row for every documented route, and only for documented routes', async () => {
    const documented = Object.entries((fixture.app.swagger() as { paths: Record<string, Record<string, unknown>> }).paths).flatMap(
      ([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const rows = ROWS.map((row) => `${row.method} ${row.path}`);
    expect(new Set(rows).size).toBe(rows.length);
    expect([...rows].sort()).toEqual([...documented].sort());
  });

  it('is what docs/ACCESS.md documents', async () => {
    if (process.env.UPDATE_ACCESS_DOC === '1') await writeFile(ACCESS_DOC, renderAccessDoc());
    expect(await readFile(ACCESS_DOC, 'utf8')).toBe(renderAccessDoc());
  });

  // Rows run in table order: the permitted caller's writes (fresh ids, current revisions) come last in each row.
  for (const row of ROWS) {
    it(`${row.method} ${row.path}`, async () => {
      for (const caller of CALLERS) {
        const response = await send(await row.request(context), authorization(row, caller));
        const expected = expectedStatus(row, caller);
        expect({ caller, status: response.statusCode, body: response.body.slice(0, 300) }).toMatchObject({ caller, status: expected });
        if (expected === 401) {
          expect(response.headers['www-authenticate']).toBe('Bearer');
          expect(row.path.startsWith('/v1') ? response.json()['@type'] : response.json().detail.code).toBe(row.path.startsWith('/v1') ? 'InvalidAccessToken' : 9);
        }
        if (expected === 403) {
          expect(row.path.startsWith('/v1') ? response.json()['@type'] : response.json().detail.code).toBe(row.path.startsWith('/v1') ? 'AuthorizationFailed' : 10);
        }
      }
    });
  }
});

describe('existence hiding', () => {
  const lastSegment = (url: string) => url.split('?')[0]!.split('/').filter(Boolean).at(-1)!;

  for (const row of ROWS.filter((r) => r.missing)) {
    it(`${row.method} ${row.path}: the same answer for an existing and a missing target`, async () => {
      const existingRequest = await row.request(context);
      const existingId = lastSegment(String(existingRequest.url).replace(/\/(source|tags)(\?.*)?$/, ''));
      const missingId = lastSegment(String(row.missing!.url).replace(/\/(source|tags)(\?.*)?$/, ''));
      for (const caller of CALLERS.filter((c) => c !== 'permitted')) {
        const headers = authorization(row, caller);
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
});

describe('archive downloads', () => {
  it('check resources/read on every referenced project before the first byte', async () => {
    // The archive lives in lab/a (readable by the caller) but packs a resource of lab/b (not readable).
    await asAdmin({ method: 'PUT', url: '/v1/resources/lab/b/_/secret', payload: { '@type': 'Thing', name: 'secret' }, headers: { 'content-type': 'application/json' } });
    await asAdmin({
      method: 'PUT',
      url: '/v1/archives/lab/a/cross-project',
      payload: { resources: [{ '@type': 'Resource', resourceId: 'r1' }, { '@type': 'Resource', project: 'lab/b', resourceId: 'secret' }] },
      headers: { 'content-type': 'application/json', accept: 'application/json' },
    });
    const reader = { authorization: `Bearer ${tokenFor('resources/read', '/lab/a')}` };
    const download = await send(get('/v1/archives/lab/a/cross-project'), reader);
    expect(download.statusCode).toBe(403);
    expect(download.headers['content-type']).not.toContain('zip');
    expect(download.json()['@type']).toBe('AuthorizationFailed');
    const admin = await send(get('/v1/archives/lab/a/cross-project'), { authorization: `Bearer ${ADMIN}` });
    expect(admin.statusCode).toBe(200);
    expect(admin.headers['content-type']).toContain('zip');
  });
});

function get(url: string): InjectOptions {
  return { method: 'GET', url, headers: { accept: 'application/zip' } };
}
