/**
 * The access-control table: one row per documented route (method + OpenAPI
 * path), the permission it needs and where, the request to make, and the
 * status a permitted caller gets. The test runs every row against five
 * callers; docs/ACCESS.md is rendered from the same rows.
 */
import type { InjectOptions } from 'fastify';

/** A permission at an ACL address; 'open' = no check at all; 'identified' = any caller with a valid (or no) token. */
export type Need = { permission: string; at: string } | 'open' | 'identified';

export interface RequestContext {
  /** Current stored revision of the ACL at an address (0 when none). */
  aclRev(address: string): number;
  /** A multipart body with one file. */
  upload(name: string, content: string): Promise<{ payload: Buffer; headers: Record<string, string> }>;
}

export interface Row {
  method: string;
  /** The path as the OpenAPI document spells it. */
  path: string;
  need: Need;
  /** The status of a permitted caller. */
  success: number;
  request(context: RequestContext): Promise<InjectOptions> | InjectOptions;
  /** The same request addressing something that does not exist (rows that address one entity). */
  missing?: InjectOptions;
}

const json = (method: InjectOptions['method'], url: string, payload?: object, headers: Record<string, string> = {}): InjectOptions => ({
  method,
  url,
  headers: { ...(payload && { 'content-type': 'application/json' }), ...headers },
  ...(payload && { payload: JSON.stringify(payload) }),
});
const get = (url: string, headers: Record<string, string> = {}): InjectOptions => ({ method: 'GET', url, headers });

const LITERATURE = { permission: 'resources/read', at: '/literature/articles' };
const READ_A = { permission: 'resources/read', at: '/lab/a' };
const WRITE_A = { permission: 'resources/write', at: '/lab/a' };
const FILES_A = { permission: 'files/write', at: '/lab/a' };
const ACL_BODY = { acl: [{ identity: { '@type': 'User', realm: 'local', subject: 'nobody' }, permissions: ['resources/read'] }] };
/** What a PATCH appends after the PUT of ACL_BODY: a grant not held yet (appending one held changes nothing: 400). */
const ACL_APPENDED = { acl: [{ identity: { '@type': 'User', realm: 'local', subject: 'nobody' }, permissions: ['resources/write'] }] };
const THING = { '@type': 'Thing', name: 'a thing' };
const ARCHIVE = { resources: [{ '@type': 'Resource', resourceId: 'r1' }] };

/** The fixture every row relies on (created by an administrator before the table runs). */
export const FIXTURE = {
  orgs: ['lab', 'dep-org'],
  projects: ['lab/a', 'lab/b', 'lab/dep'],
  resources: ['r1', 'r-dep', 'r-tag'],
  files: ['f1', 'f-dep', 'f-tag'],
  archives: ['ar1'],
};

/** `putStatus`: 201 when the PUT creates the stored ACL, 200 when it replaces one (owners' grants, earlier rows). */
const aclRows = (url: string, address: string, putStatus: number): Row[] => {
  const write = { permission: 'acls/write', at: address };
  return [
    { method: 'GET', path: url, need: 'identified', success: 200, request: () => get(url) },
    { method: 'PUT', path: url, need: write, success: putStatus, request: (c) => json('PUT', `${url}?rev=${c.aclRev(address)}`, ACL_BODY) },
    {
      method: 'PATCH',
      path: url,
      need: write,
      success: 200,
      request: (c) => json('PATCH', `${url}?rev=${c.aclRev(address)}`, { '@type': 'Append', ...ACL_APPENDED }),
    },
    // rev=0 would be refused by validation (400) before any permission check: ask for at least 1.
    { method: 'DELETE', path: url, need: write, success: 200, request: (c) => json('DELETE', `${url}?rev=${Math.max(1, c.aclRev(address))}`) },
  ];
};

let created = 0;
const fresh = (prefix: string) => `${prefix}-${++created}`;

export const ROWS: Row[] = [
  { method: 'GET', path: '/', need: 'open', success: 200, request: () => get('/') },
  { method: 'GET', path: '/openapi.json', need: 'open', success: 200, request: () => get('/openapi.json') },
  { method: 'GET', path: '/healthz', need: 'open', success: 200, request: () => get('/healthz') },
  { method: 'GET', path: '/ui', need: 'open', success: 301, request: () => get('/ui') },
  { method: 'GET', path: '/ui/', need: 'open', success: 200, request: () => get('/ui/') },
  { method: 'GET', path: '/ui/*', need: 'open', success: 200, request: () => get('/ui/app.css') },
  { method: 'GET', path: '/docs', need: 'open', success: 200, request: () => get('/docs') },
  { method: 'GET', path: '/settings', need: LITERATURE, success: 200, request: () => get('/settings') },
  {
    method: 'POST',
    path: '/admin/reload',
    need: { permission: 'resources/write', at: '/literature/articles' },
    success: 200,
    request: () => ({ method: 'POST', url: '/admin/reload' }),
  },
  { method: 'GET', path: '/retrieval/', need: LITERATURE, success: 200, request: () => get('/retrieval/?query=place%20cells') },
  { method: 'GET', path: '/retrieval', need: LITERATURE, success: 200, request: () => get('/retrieval?query=place%20cells') },
  { method: 'GET', path: '/retrieval/article_count', need: LITERATURE, success: 200, request: () => get('/retrieval/article_count') },
  { method: 'GET', path: '/retrieval/article_listing', need: LITERATURE, success: 200, request: () => get('/retrieval/article_listing') },
  { method: 'GET', path: '/suggestions/article_types', need: LITERATURE, success: 200, request: () => get('/suggestions/article_types') },
  { method: 'GET', path: '/suggestions/author', need: LITERATURE, success: 200, request: () => get('/suggestions/author?name=ada') },
  { method: 'GET', path: '/suggestions/journal', need: LITERATURE, success: 200, request: () => get('/suggestions/journal?keywords=neuron') },
  { method: 'POST', path: '/qa/generative', need: LITERATURE, success: 200, request: () => json('POST', '/qa/generative', { query: 'place cells' }) },
  {
    method: 'POST',
    path: '/qa/streamed_generative',
    need: LITERATURE,
    success: 200,
    request: () => json('POST', '/qa/streamed_generative', { query: 'place cells' }),
  },

  // Organizations and projects.
  { method: 'PUT', path: '/v1/orgs/{org}', need: { permission: 'organizations/create', at: '/' }, success: 201, request: () => json('PUT', `/v1/orgs/${fresh('org')}`, {}) },
  { method: 'GET', path: '/v1/projects', need: 'identified', success: 200, request: () => get('/v1/projects?permission=resources/write') },
  { method: 'GET', path: '/v1/orgs/{org}', need: { permission: 'resources/read', at: '/lab' }, success: 200, request: () => get('/v1/orgs/lab'), missing: get('/v1/orgs/no-such-org') },
  {
    method: 'DELETE',
    path: '/v1/orgs/{org}',
    need: { permission: 'organizations/write', at: '/dep-org' },
    success: 200,
    request: () => json('DELETE', '/v1/orgs/dep-org?rev=1'),
  },
  {
    method: 'PUT',
    path: '/v1/orgs/{org}/undeprecate',
    need: { permission: 'organizations/write', at: '/dep-org' },
    success: 200,
    // dep-org was deprecated by the row above.
    request: () => json('PUT', '/v1/orgs/dep-org/undeprecate?rev=2'),
  },
  {
    method: 'PUT',
    path: '/v1/projects/{org}/{project}',
    need: { permission: 'projects/create', at: '/lab' },
    success: 201,
    request: () => json('PUT', `/v1/projects/lab/${fresh('project')}`, {}),
  },
  {
    method: 'GET',
    path: '/v1/projects/{org}/{project}',
    need: READ_A,
    success: 200,
    request: () => get('/v1/projects/lab/a'),
    missing: get('/v1/projects/lab/no-such-project'),
  },
  {
    method: 'DELETE',
    path: '/v1/projects/{org}/{project}',
    need: { permission: 'projects/write', at: '/lab/dep' },
    success: 200,
    request: () => json('DELETE', '/v1/projects/lab/dep?rev=1'),
  },
  {
    method: 'PUT',
    path: '/v1/projects/{org}/{project}/undeprecate',
    need: { permission: 'projects/write', at: '/lab/dep' },
    success: 200,
    // lab/dep was deprecated by the row above.
    request: () => json('PUT', '/v1/projects/lab/dep/undeprecate?rev=2'),
  },

  // ACLs: the root (with and without the trailing slash), an organization, a project.
  ...aclRows('/v1/acls', '/', 201),
  ...aclRows('/v1/acls/', '/', 200),
  ...aclRows('/v1/acls/{org}', '/lab', 200).map((row) => ({ ...row, request: rewrite(row, '/v1/acls/{org}', '/v1/acls/lab') })),
  ...aclRows('/v1/acls/{org}/{project}', '/lab/a', 200).map((row) => ({ ...row, request: rewrite(row, '/v1/acls/{org}/{project}', '/v1/acls/lab/a') })),

  // Resources.
  { method: 'GET', path: '/v1/resources/{org}/{project}', need: READ_A, success: 200, request: () => get('/v1/resources/lab/a') },
  { method: 'GET', path: '/v1/resources/{org}/{project}/{schema}', need: READ_A, success: 200, request: () => get('/v1/resources/lab/a/_') },
  { method: 'POST', path: '/v1/resources/{org}/{project}', need: WRITE_A, success: 201, request: () => json('POST', '/v1/resources/lab/a', THING) },
  { method: 'POST', path: '/v1/resources/{org}/{project}/{schema}', need: WRITE_A, success: 201, request: () => json('POST', '/v1/resources/lab/a/_', THING) },
  {
    method: 'PUT',
    path: '/v1/resources/{org}/{project}/{schema}/{id}',
    need: WRITE_A,
    success: 201,
    request: () => json('PUT', `/v1/resources/lab/a/_/${fresh('put')}`, THING),
  },
  {
    method: 'GET',
    path: '/v1/resources/{org}/{project}/{schema}/{id}',
    need: READ_A,
    success: 200,
    request: () => get('/v1/resources/lab/a/_/r1'),
    missing: get('/v1/resources/lab/a/_/no-such-resource'),
  },
  {
    method: 'DELETE',
    path: '/v1/resources/{org}/{project}/{schema}/{id}',
    need: WRITE_A,
    success: 200,
    request: () => json('DELETE', '/v1/resources/lab/a/_/r-dep?rev=1'),
    missing: json('DELETE', '/v1/resources/lab/a/_/no-such-resource?rev=1'),
  },
  {
    method: 'PUT',
    path: '/v1/resources/{org}/{project}/{schema}/{id}/undeprecate',
    need: WRITE_A,
    success: 200,
    // r-dep was deprecated by the row above.
    request: () => json('PUT', '/v1/resources/lab/a/_/r-dep/undeprecate?rev=2'),
    missing: json('PUT', '/v1/resources/lab/a/_/no-such-resource/undeprecate?rev=2'),
  },
  {
    method: 'GET',
    path: '/v1/resources/{org}/{project}/{schema}/{id}/source',
    need: READ_A,
    success: 200,
    request: () => get('/v1/resources/lab/a/_/r1/source'),
    missing: get('/v1/resources/lab/a/_/no-such-resource/source'),
  },
  {
    method: 'GET',
    path: '/v1/resources/{org}/{project}/{schema}/{id}/tags',
    need: READ_A,
    success: 200,
    request: () => get('/v1/resources/lab/a/_/r1/tags'),
    missing: get('/v1/resources/lab/a/_/no-such-resource/tags'),
  },
  {
    method: 'POST',
    path: '/v1/resources/{org}/{project}/{schema}/{id}/tags',
    need: WRITE_A,
    success: 201,
    request: () => json('POST', '/v1/resources/lab/a/_/r-tag/tags?rev=1', { tag: 'v1', rev: 1 }),
    missing: json('POST', '/v1/resources/lab/a/_/no-such-resource/tags?rev=1', { tag: 'v1', rev: 1 }),
  },
  {
    method: 'DELETE',
    path: '/v1/resources/{org}/{project}/{schema}/{id}/tags/{tag}',
    need: WRITE_A,
    success: 200,
    // r-tag was tagged v1 (revision 2) by the row above.
    request: () => ({ method: 'DELETE', url: '/v1/resources/lab/a/_/r-tag/tags/v1?rev=2' }),
    missing: { method: 'DELETE', url: '/v1/resources/lab/a/_/no-such-resource/tags/v1?rev=2' },
  },

  // Files.
  {
    method: 'POST',
    path: '/v1/files/{org}/{project}',
    need: FILES_A,
    success: 201,
    request: async (c) => ({ method: 'POST', url: '/v1/files/lab/a', ...(await c.upload('new.txt', 'new content')) }),
  },
  {
    method: 'PUT',
    path: '/v1/files/{org}/{project}/{id}',
    need: FILES_A,
    success: 201,
    request: async (c) => ({ method: 'PUT', url: `/v1/files/lab/a/${fresh('file')}`, ...(await c.upload('put.txt', 'put content')) }),
  },
  {
    method: 'GET',
    path: '/v1/files/{org}/{project}/{id}',
    need: READ_A,
    success: 200,
    request: () => get('/v1/files/lab/a/f1'),
    missing: get('/v1/files/lab/a/no-such-file'),
  },
  {
    method: 'DELETE',
    path: '/v1/files/{org}/{project}/{id}',
    need: FILES_A,
    success: 200,
    request: () => json('DELETE', '/v1/files/lab/a/f-dep?rev=1'),
    missing: json('DELETE', '/v1/files/lab/a/no-such-file?rev=1'),
  },
  {
    method: 'PUT',
    path: '/v1/files/{org}/{project}/{id}/undeprecate',
    need: FILES_A,
    success: 200,
    // f-dep was deprecated by the row above.
    request: () => json('PUT', '/v1/files/lab/a/f-dep/undeprecate?rev=2'),
    missing: json('PUT', '/v1/files/lab/a/no-such-file/undeprecate?rev=2'),
  },
  { method: 'GET', path: '/v1/files/{org}/{project}', need: READ_A, success: 200, request: () => get('/v1/files/lab/a') },
  {
    method: 'GET',
    path: '/v1/files/{org}/{project}/{id}/tags',
    need: READ_A,
    success: 200,
    request: () => get('/v1/files/lab/a/f1/tags'),
    missing: get('/v1/files/lab/a/no-such-file/tags'),
  },
  {
    method: 'POST',
    path: '/v1/files/{org}/{project}/{id}/tags',
    need: FILES_A,
    success: 201,
    request: () => json('POST', '/v1/files/lab/a/f-tag/tags?rev=1', { tag: 'v1', rev: 1 }),
    missing: json('POST', '/v1/files/lab/a/no-such-file/tags?rev=1', { tag: 'v1', rev: 1 }),
  },
  {
    method: 'DELETE',
    path: '/v1/files/{org}/{project}/{id}/tags/{tag}',
    need: FILES_A,
    success: 200,
    // f-tag was tagged v1 (revision 2) by the row above.
    request: () => ({ method: 'DELETE', url: '/v1/files/lab/a/f-tag/tags/v1?rev=2' }),
    missing: { method: 'DELETE', url: '/v1/files/lab/a/no-such-file/tags/v1?rev=2' },
  },

  // Archives.
  {
    method: 'POST',
    path: '/v1/archives/{org}/{project}',
    need: READ_A,
    success: 201,
    request: () => json('POST', '/v1/archives/lab/a', ARCHIVE, { accept: 'application/json' }),
  },
  {
    method: 'PUT',
    path: '/v1/archives/{org}/{project}/{id}',
    need: READ_A,
    success: 201,
    request: () => json('PUT', `/v1/archives/lab/a/${fresh('archive')}`, ARCHIVE, { accept: 'application/json' }),
  },
  {
    method: 'GET',
    path: '/v1/archives/{org}/{project}/{id}',
    need: READ_A,
    success: 200,
    request: () => get('/v1/archives/lab/a/ar1', { accept: 'application/zip' }),
    missing: get('/v1/archives/lab/a/no-such-archive', { accept: 'application/zip' }),
  },
];

/** The org/project rows of the ACL table are written with the OpenAPI placeholders; requests use real names. */
function rewrite(row: Row, pattern: string, actual: string): Row['request'] {
  return async (context) => {
    const options = await row.request(context);
    return { ...options, url: String(options.url).replace(pattern, actual) };
  };
}

export const CALLERS = ['anonymous', 'unknown token', 'no permission', 'other project', 'permitted'] as const;
export type Caller = (typeof CALLERS)[number];

/** Where "other project" holds the same permission: a sibling of the needed address, never an ancestor. */
export function siblingOf(address: string): string {
  if (address === '/lab/a' || address === '/lab/dep' || address === '/literature/articles') return '/lab/b';
  return '/other';
}

/** The status anonymous gets without an auth file: `resources/read` on `/` and nothing else. */
export function expectedWithoutAuthFile(row: Row): number {
  if (typeof row.need === 'string' || row.need.permission === 'resources/read') return row.success;
  return 403;
}

/**
 * Existence probes beyond the rows' own `missing` requests: the same request
 * built for something that exists and for something that does not (another
 * id, revision, tag, project or organization). Callers without `need` must not
 * be able to tell them apart: same status, same body once `missing` is
 * replaced by `existing` in it.
 */
export interface Probe {
  name: string;
  need: { permission: string; at: string };
  existing: string;
  missing: string;
  request(value: string, context: RequestContext): Promise<InjectOptions> | InjectOptions;
}

const probe = (name: string, need: Probe['need'], existing: string, missing: string, request: Probe['request']): Probe => ({ name, need, existing, missing, request });
const CREATE_PROJECT = { permission: 'projects/create', at: '/lab' };

export const PROBES: Probe[] = [
  probe('project of an organization', READ_A, 'lab', 'no-such-org', (org) => get(`/v1/projects/${org}/a`)),
  probe('resource listing of a project', READ_A, 'a', 'no-such-project', (project) => get(`/v1/resources/lab/${project}`)),
  probe('resource listing of an organization', READ_A, 'lab', 'no-such-org', (org) => get(`/v1/resources/${org}/a`)),
  probe('resource revision', READ_A, '1', '99', (rev) => get(`/v1/resources/lab/a/_/r1?rev=${rev}`)),
  probe('organization revision', { permission: 'resources/read', at: '/lab' }, '1', '99', (rev) => get(`/v1/orgs/lab?rev=${rev}`)),
  probe('project revision', READ_A, '1', '99', (rev) => get(`/v1/projects/lab/a?rev=${rev}`)),
  probe('resource tag', READ_A, 'v1', 'nope', (tag) => get(`/v1/resources/lab/a/_/r-tagged?tag=${tag}`)),
  probe('resource as N-Triples', READ_A, 'r1', 'no-such-resource', (id) => get(`/v1/resources/lab/a/_/${id}`, { accept: 'application/n-triples' })),
  probe('resource source by tag', READ_A, 'v1', 'nope', (tag) => get(`/v1/resources/lab/a/_/r-tagged/source?tag=${tag}`)),
  probe('resource in another project', READ_A, 'a', 'no-such-project', (project) => get(`/v1/resources/lab/${project}/_/r1`)),
  probe('literature article', LITERATURE, 'hippo-1', 'no-such-article', (id) => get(`/v1/resources/literature/articles/_/${id}`)),
  probe('file revision', READ_A, '1', '99', (rev) => get(`/v1/files/lab/a/f1?rev=${rev}`)),
  probe('file tag', READ_A, 'v1', 'nope', (tag) => get(`/v1/files/lab/a/f-tagged?tag=${tag}`, { accept: 'application/json' })),
  probe('file metadata', READ_A, 'f1', 'no-such-file', (id) => get(`/v1/files/lab/a/${id}`, { accept: 'application/json' })),
  probe('archive metadata', READ_A, 'ar1', 'no-such-archive', (id) => get(`/v1/archives/lab/a/${id}`, { accept: 'application/json' })),
  probe('archive, ignoreNotFound', READ_A, 'ar1', 'no-such-archive', (id) => get(`/v1/archives/lab/a/${id}?ignoreNotFound=true`)),
  probe('archive creation under a taken id', READ_A, 'ar1', 'no-such-archive', (id) => json('PUT', `/v1/archives/lab/a/${id}`, ARCHIVE, { accept: 'application/json' })),
  probe('archive creation in a project', READ_A, 'a', 'no-such-project', (project) => json('POST', `/v1/archives/lab/${project}`, ARCHIVE, { accept: 'application/json' })),
  probe('resource creation under a taken id', WRITE_A, 'r1', 'no-such-resource', (id) => json('PUT', `/v1/resources/lab/a/_/${id}`, THING)),
  probe('resource creation under a taken payload @id', WRITE_A, 'r1', 'no-such-resource', (id) => json('POST', '/v1/resources/lab/a/_', { ...THING, '@id': id })),
  probe('resource update', WRITE_A, 'r1', 'no-such-resource', (id) => json('PUT', `/v1/resources/lab/a/_/${id}?rev=1`, THING)),
  probe('resource creation in a project', WRITE_A, 'a', 'no-such-project', (project) => json('POST', `/v1/resources/lab/${project}`, THING)),
  probe('file creation under a taken id', FILES_A, 'f1', 'no-such-file', async (id, c) => ({ method: 'PUT', url: `/v1/files/lab/a/${id}`, ...(await c.upload('x.txt', 'x')) })),
  probe('file update', FILES_A, 'f1', 'no-such-file', async (id, c) => ({ method: 'PUT', url: `/v1/files/lab/a/${id}?rev=1`, ...(await c.upload('x.txt', 'x')) })),
  probe('file creation in a project', FILES_A, 'a', 'no-such-project', async (project, c) => ({ method: 'POST', url: `/v1/files/lab/${project}`, ...(await c.upload('x.txt', 'x')) })),
  probe('project creation under a taken label', CREATE_PROJECT, 'a', 'no-such-project', (project) => json('PUT', `/v1/projects/lab/${project}`, {})),
  probe('project update', { permission: 'projects/write', at: '/lab/a' }, 'a', 'no-such-project', (project) => json('PUT', `/v1/projects/lab/${project}?rev=1`, {})),
  probe('project deprecation', { permission: 'projects/write', at: '/lab/a' }, 'a', 'no-such-project', (project) => json('DELETE', `/v1/projects/lab/${project}?rev=1`)),
  probe('organization creation under a taken label', { permission: 'organizations/create', at: '/' }, 'lab', 'no-such-org', (org) => json('PUT', `/v1/orgs/${org}`, {})),
  probe('organization update', { permission: 'organizations/write', at: '/lab' }, 'lab', 'no-such-org', (org) => json('PUT', `/v1/orgs/${org}?rev=1`, {})),
  probe('organization deprecation', { permission: 'organizations/write', at: '/lab' }, 'lab', 'no-such-org', (org) => json('DELETE', `/v1/orgs/${org}?rev=1`)),
];

/** The status each caller must get for a row. */
export function expectedStatus(row: Row, caller: Caller): number {
  if (row.need === 'open') return row.success;
  if (caller === 'unknown token') return 401;
  if (row.need === 'identified' || caller === 'permitted') return row.success;
  return 403;
}

export function describeNeed(need: Need): string {
  if (need === 'open') return 'none';
  if (need === 'identified') return 'none (own ACLs or projects only)';
  return `\`${need.permission}\` on \`${need.at}\``;
}

/** docs/ACCESS.md, rendered from the table. */
export function renderAccessDoc(): string {
  const lines = [
    '# Access control: every route against every kind of caller',
    '',
    'Generated from `test/reliability/access-table.ts` by `UPDATE_ACCESS_DOC=1 npx vitest run test/reliability/access-control.test.ts`;',
    'the test fails when this file and the table disagree, and when the app registers a route that has no row',
    '(or a row names a route that does not exist).',
    '',
    'Callers: **anonymous** (no `Authorization` header; the auth file grants anonymous nothing), **unknown token**',
    '(a bearer token not in the auth file; a `Basic` header answers the same status), **no permission** (a valid token without grants), **other project**',
    '(the needed permission, but on a sibling project or organization: `/lab/b` when the request targets `/lab/a`),',
    '**permitted** (the needed permission where the route needs it, and nothing else), and **anonymous, no auth file**',
    '(the server started without `--auth-file`: anonymous holds `resources/read` on `/`, every write is refused).',
    '',
    'Statuses are those of the Nexus reference: the ACL check comes first, so a caller without the permission gets',
    '403 `AuthorizationFailed` even when the project is missing (nexus-archive-reference §1.1), and 401 for an invalid',
    'token (§1.1, §2). One answer comes before it: a resource path whose schema segment is not `_` (nor `resource` or its IRI) is 404',
    '`SchemaNotFound` for every caller, as litserve keeps no schemas; it does not depend on the project, so it tells nothing.',
    '`GET /`, `/openapi.json`, `/healthz`, the web page (`/ui/`) and `/docs` are always open.',
    '',
    'Where the checks live: every `/v1` permission is checked by the domain services (`src/platform`, `src/archive`),',
    'never by a route (`test/platform/authorization-layer.test.ts`). ACL identities are typed, so a user named',
    '`authenticated` or `anonymous` cannot exist (400), nor a user or group whose name holds control, bidirectional or',
    'invisible characters or white space at either end (400 in the ACL API, 401 for a JWT, refused at start in the auth',
    'file); no token or identity provider may use the operator\'s realm `internal` (`_createdBy` would read',
    '`internal/system`). Each request is identified once (one JWT verification), for its rate-limit key and its',
    'permission check alike. Unknown and invalid tokens count against the client address in the rate limit. Creating',
    'archives needs only `resources/read`, so it is bounded per caller (`--max-archives-per-caller`).',
    '',
    `| method | route | needs | ${CALLERS.join(' | ')} | anonymous, no auth file |`,
    `| --- | --- | --- | ${CALLERS.map(() => '---').join(' | ')} | --- |`,
    ...ROWS.map(
      (row) =>
        `| ${row.method} | \`${row.path}\` | ${describeNeed(row.need)} | ${CALLERS.map((caller) => expectedStatus(row, caller)).join(' | ')} | ${expectedWithoutAuthFile(row)} |`,
    ),
    '',
    '`HEAD` of every `GET` route answers the status of the `GET` (without a body); the test sends both.',
    '',
    'Literature routes answer 401/403 as `{"detail": {"code": 9|10}}`, `/v1` routes as `InvalidAccessToken` /',
    '`AuthorizationFailed`; a 401 carries `WWW-Authenticate: Bearer`. `GET /v1/acls...` lists only the caller\'s own',
    'grants unless `self=false`, which needs `acls/read` (and with `ancestors=true` lists only the ancestors where',
    'the caller holds `acls/read` too).',
    '',
    '## Existence hiding',
    '',
    'A caller without the permission a request needs gets the same status (401 or 403) and the same body, once the',
    'names are swapped, for something that exists and something that does not. The test checks each route that',
    'addresses one thing (its row\'s missing target) and these probes, for the four callers who lack the permission;',
    'it also checks that each read probe does tell the two apart for the permitted caller.',
    '',
    '| probe | needs | existing | missing |',
    '| --- | --- | --- | --- |',
    ...PROBES.map((p) => `| ${p.name} | ${describeNeed(p.need)} | \`${p.existing}\` | \`${p.missing}\` |`),
    '',
    'Also tested: a project\'s resource listing holds only that project\'s resources; `GET /v1/projects` lists only',
    'the projects where the caller holds the permission asked (`permission`, default `resources/read`); there is no',
    'listing of an organization (the same 404 whether the organization exists or not); an archive download',
    'needs `resources/read` on every referenced project before the first byte (403, never skipped by',
    '`ignoreNotFound`); and an archive referencing an unreadable project answers the same at creation, in its',
    'metadata and at download whether the referenced project, resource or file exists or not (relative ids resolve',
    'against the default base of a project the creator may not read; a name clash with one of its files is not',
    'reported to that creator).',
    '',
    'A caller who may write but not read can still learn that an id is taken (409 on creation): writing implies',
    'knowing what is there, as in Nexus.',
    '',
  ];
  return lines.join('\n');
}
