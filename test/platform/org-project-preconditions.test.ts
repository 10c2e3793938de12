/**
 * An organization, project or ACL write that its target refuses anyway is answered with that refusal, not 412,
 * whatever its preconditions say (RFC 9110 §13.2.1: preconditions are ignored when the request without them
 * would not succeed). The order is the write's permission, then everything the write itself would refuse
 * before reading its body (a missing target, a stale `rev`, the target's state or its organization's), then
 * If-Match, If-Unmodified-Since and If-None-Match, then what the body is refused for (a description's lone
 * surrogate, a project's IRIs, an ACL's entries); an ACL write is refused first likewise where no ACL was ever
 * written (a subtraction or deletion), for a stale `rev`, or as the deletion of an ACL that grants nothing;
 * resource and file writes refuse a project that takes no writes first likewise (precondition-permissions.test.ts).
 * Every refused write here changes nothing.
 */
import type { InjectOptions } from 'fastify';
import { beforeAll, describe, expect, test } from 'vitest';
import { TOKENS, bearer, createProject, serverWithProject } from './helpers.js';

const server = serverWithProject();
const alice = bearer(TOKENS.alice);

function send(request: InjectOptions) {
  return server().app.inject({ ...request, headers: { ...alice, ...request.headers } });
}

/** A precondition false for any existing organization, project or ACL: none carries an entity tag. */
const FALSE_FOR_EXISTING = { 'if-match': '"x"' };
/** A precondition false for a target that does not exist. */
const FALSE_FOR_MISSING = { 'if-match': '*' };

type Write = { method: 'PUT' | 'PATCH' | 'DELETE'; url: string; payload?: object };

/** The organization or project a write's URL changes (its undeprecation's too), where GET reads it. */
function targetOf(url: string): string {
  return url.split('?')[0]!.replace(/\/undeprecate$/, '');
}

/** What GET reads as the revision of the organization or project `url` changes. */
function revisionAt(url: string): () => Promise<unknown> {
  return async () => (await send({ method: 'GET', url: targetOf(url) })).json()._rev;
}

/** The revision of the ACL stored at the address `url` writes (none where none was ever written). */
function aclRevisionAt(url: string): () => Promise<unknown> {
  return async () => {
    const listing = (await send({ method: 'GET', url: `${url.split('?')[0]}?self=false` })).json();
    return listing._results.filter((entry: { _source: string }) => entry._source === 'store').map((entry: { _rev: number }) => entry._rev);
  };
}

/** The write's answer sent with `headers` and sent without them, as [status, @type], and the target's revision (`revisionOf`) before and after. */
async function answersOf(write: Write, headers: Record<string, string>, revisionOf = revisionAt(write.url)) {
  const before = await revisionOf();
  const conditional = await send({ ...write, headers });
  const unconditional = await send(write);
  return {
    conditional: [conditional.statusCode, conditional.json()['@type']],
    unconditional: [unconditional.statusCode, unconditional.json()['@type']],
    revisions: [before, await revisionOf()],
  };
}

/** Expects `write` refused with `refusal` (its status and @type) with or without the false precondition, changing nothing. */
async function expectRefused(write: Write, refusal: [number, string], headers = FALSE_FOR_EXISTING, revisionOf = revisionAt(write.url)) {
  const { conditional, unconditional, revisions } = await answersOf(write, headers, revisionOf);
  expect({ write, conditional, unconditional }).toEqual({ write, conditional: refusal, unconditional: refusal });
  expect(revisions[1]).toEqual(revisions[0]);
}

/** Every change of the project `org/project` from revision `rev`: update, deprecation, marking for deletion, undeprecation. */
function changesOf(project: string, rev: number): Write[] {
  const url = `/v1/projects/${project}`;
  return [
    { method: 'PUT', url: `${url}?rev=${rev}`, payload: {} },
    { method: 'DELETE', url: `${url}?rev=${rev}` },
    { method: 'DELETE', url: `${url}?rev=${rev}&prune=true` },
    { method: 'PUT', url: `${url}/undeprecate?rev=${rev}` },
  ];
}

/** The address of the project's ACL (its owner grant, revision 1), of one never written, of one emptied (revision 2). */
const PROJECT_ACL = '/v1/acls/open/awake';
const NO_ACL = '/v1/acls/nowhere';
const EMPTY_ACL = '/v1/acls/emptied';
const BOB_READS = { acl: [{ identity: { '@type': 'User', realm: 'local', subject: 'bob' }, permissions: ['resources/read'] }] };
/** Entries an ACL write refuses (400): a permission that does not exist. */
const UNKNOWN_PERMISSION = { acl: [{ identity: { '@type': 'User', realm: 'local', subject: 'bob' }, permissions: ['resources/fly'] }] };

beforeAll(async () => {
  await createProject(server().app, 'open', 'awake');
  await createProject(server().app, 'open', 'asleep');
  await createProject(server().app, 'open', 'gone');
  expect((await send({ method: 'DELETE', url: '/v1/projects/open/asleep?rev=1' })).statusCode).toBe(200);
  expect((await send({ method: 'DELETE', url: '/v1/projects/open/gone?rev=1&prune=true' })).statusCode).toBe(200);
  await createProject(server().app, 'shut', 'live');
  await createProject(server().app, 'shut', 'asleep');
  expect((await send({ method: 'DELETE', url: '/v1/projects/shut/asleep?rev=1' })).statusCode).toBe(200);
  expect((await send({ method: 'DELETE', url: '/v1/orgs/shut?rev=1' })).statusCode).toBe(200);
  expect((await send({ method: 'PUT', url: EMPTY_ACL, payload: BOB_READS })).statusCode).toBe(201);
  expect((await send({ method: 'PATCH', url: `${EMPTY_ACL}?rev=1`, payload: { '@type': 'Subtract', ...BOB_READS } })).statusCode).toBe(200);
});

describe('an organization write its target refuses', () => {
  test("answers the write's 404 to every change of one that does not exist, If-Match or not", async () => {
    await expectRefused({ method: 'PUT', url: '/v1/orgs/none?rev=1', payload: { description: 'more' } }, [404, 'OrganizationNotFound'], FALSE_FOR_MISSING);
    await expectRefused({ method: 'DELETE', url: '/v1/orgs/none?rev=1' }, [404, 'OrganizationNotFound'], FALSE_FOR_MISSING);
    await expectRefused({ method: 'PUT', url: '/v1/orgs/none/undeprecate?rev=1' }, [404, 'OrganizationNotFound'], FALSE_FOR_MISSING);
  });

  test("answers the write's refusal of a deprecated organization's update and deprecation", async () => {
    await expectRefused({ method: 'PUT', url: '/v1/orgs/shut?rev=2', payload: { description: 'more' } }, [400, 'OrganizationIsDeprecated']);
    await expectRefused({ method: 'DELETE', url: '/v1/orgs/shut?rev=2' }, [400, 'OrganizationIsDeprecated']);
  });

  test("answers the write's refusal of a live organization's undeprecation", async () => {
    await expectRefused({ method: 'PUT', url: '/v1/orgs/open/undeprecate?rev=1' }, [400, 'OrganizationIsNotDeprecated']);
  });

  test("answers the write's refusal of the literature organization's deprecation", async () => {
    await expectRefused({ method: 'DELETE', url: '/v1/orgs/literature?rev=1' }, [400, 'ProjectIsReadOnly']);
  });

  test('answers 409 for a stale revision', async () => {
    await expectRefused({ method: 'PUT', url: '/v1/orgs/open?rev=7', payload: {} }, [409, 'IncorrectRev']);
    await expectRefused({ method: 'DELETE', url: '/v1/orgs/open?rev=7' }, [409, 'IncorrectRev']);
  });
});

describe('a project write its target refuses', () => {
  test("answers the write's 404 to every change of one that does not exist, If-Match or not", async () => {
    for (const write of changesOf('open/none', 1)) await expectRefused(write, [404, 'ProjectNotFound'], FALSE_FOR_MISSING);
  });

  test("answers the write's refusal of a deprecated project's update and deprecation", async () => {
    await expectRefused({ method: 'PUT', url: '/v1/projects/open/asleep?rev=2', payload: { description: 'more' } }, [400, 'ProjectIsDeprecated']);
    await expectRefused({ method: 'DELETE', url: '/v1/projects/open/asleep?rev=2' }, [400, 'ProjectIsDeprecated']);
  });

  test("answers the write's refusal of a live project's undeprecation", async () => {
    await expectRefused({ method: 'PUT', url: '/v1/projects/open/awake/undeprecate?rev=1' }, [400, 'ProjectIsNotDeprecated']);
  });

  test("answers the write's refusal of every change of a project marked for deletion", async () => {
    for (const write of changesOf('open/gone', 2)) await expectRefused(write, [400, 'ProjectIsMarkedForDeletion']);
  });

  test("answers the write's refusal of every change of the read-only literature project", async () => {
    for (const write of changesOf('literature/articles', 1)) await expectRefused(write, [400, 'ProjectIsReadOnly']);
  });

  test("answers the write's refusal of a change or a creation in a deprecated organization", async () => {
    await expectRefused({ method: 'PUT', url: '/v1/projects/shut/live?rev=1', payload: { description: 'more' } }, [400, 'OrganizationIsDeprecated']);
    await expectRefused({ method: 'DELETE', url: '/v1/projects/shut/live?rev=1' }, [400, 'OrganizationIsDeprecated']);
    await expectRefused({ method: 'PUT', url: '/v1/projects/shut/asleep/undeprecate?rev=2' }, [400, 'OrganizationIsDeprecated']);
    await expectRefused({ method: 'PUT', url: '/v1/projects/shut/new', payload: {} }, [400, 'OrganizationIsDeprecated'], FALSE_FOR_MISSING);
  });

  test('answers 404 for a creation in a missing organization', async () => {
    await expectRefused({ method: 'PUT', url: '/v1/projects/nowhere/new', payload: {} }, [404, 'OrganizationNotFound'], FALSE_FOR_MISSING);
  });

  test('answers 409 for a stale revision', async () => {
    await expectRefused({ method: 'PUT', url: '/v1/projects/open/awake?rev=7', payload: {} }, [409, 'IncorrectRev']);
    await expectRefused({ method: 'DELETE', url: '/v1/projects/open/awake?rev=7&prune=true' }, [409, 'IncorrectRev']);
  });
});

describe('an ACL write the stored ACL refuses', () => {
  const refused = (write: Write, refusal: [number, string], headers = FALSE_FOR_EXISTING) => expectRefused(write, refusal, headers, aclRevisionAt(write.url));

  test("answers the write's 404 to a subtraction or deletion where no ACL was ever written, If-Match or not", async () => {
    await refused({ method: 'DELETE', url: `${NO_ACL}?rev=1` }, [404, 'AclNotFound'], FALSE_FOR_MISSING);
    await refused({ method: 'PATCH', url: NO_ACL, payload: { '@type': 'Subtract', ...BOB_READS } }, [404, 'AclNotFound'], FALSE_FOR_MISSING);
  });

  test('answers 409 for a stale revision', async () => {
    await refused({ method: 'PUT', url: `${PROJECT_ACL}?rev=7`, payload: BOB_READS }, [409, 'IncorrectRev']);
    await refused({ method: 'PATCH', url: `${PROJECT_ACL}?rev=7`, payload: { '@type': 'Append', ...BOB_READS } }, [409, 'IncorrectRev']);
    await refused({ method: 'DELETE', url: `${PROJECT_ACL}?rev=7` }, [409, 'IncorrectRev']);
    await refused({ method: 'PUT', url: `${NO_ACL}?rev=3`, payload: BOB_READS }, [409, 'IncorrectRev'], FALSE_FOR_MISSING);
  });

  test("answers the write's 400 to the deletion of an ACL that grants nothing", async () => {
    await refused({ method: 'DELETE', url: `${EMPTY_ACL}?rev=2` }, [400, 'AclIsEmpty']);
  });

  test('answers 409 for a stale revision before what its entries are refused for, with or without a precondition', async () => {
    await refused({ method: 'PUT', url: `${PROJECT_ACL}?rev=7`, payload: UNKNOWN_PERMISSION }, [409, 'IncorrectRev']);
    await refused({ method: 'PATCH', url: `${PROJECT_ACL}?rev=7`, payload: { '@type': 'Append', ...UNKNOWN_PERMISSION } }, [409, 'IncorrectRev']);
  });
});

describe('what the body is refused for', () => {
  test('comes after a stale revision or a missing organization, with or without a precondition', async () => {
    await expectRefused({ method: 'PUT', url: '/v1/orgs/open?rev=7', payload: { description: '\ud800' } }, [409, 'IncorrectRev']);
    await expectRefused({ method: 'PUT', url: '/v1/projects/open/awake?rev=7', payload: { base: 'no iri' } }, [409, 'IncorrectRev']);
    await expectRefused({ method: 'PUT', url: '/v1/projects/nowhere/new', payload: { base: 'no iri' } }, [404, 'OrganizationNotFound'], FALSE_FOR_MISSING);
  });

  test("comes after the preconditions: a false one answers 412, none the body's 400", async () => {
    const writes: Write[] = [
      { method: 'PUT', url: '/v1/orgs/open?rev=1', payload: { description: '\ud800' } },
      { method: 'PUT', url: '/v1/projects/open/awake?rev=1', payload: { base: 'no iri' } },
      { method: 'PUT', url: `${PROJECT_ACL}?rev=1`, payload: UNKNOWN_PERMISSION },
    ];
    for (const write of writes) {
      const revisionOf = write.url.startsWith('/v1/acls/') ? aclRevisionAt(write.url) : revisionAt(write.url);
      const { conditional, unconditional, revisions } = await answersOf(write, FALSE_FOR_EXISTING, revisionOf);
      expect({ write, conditional, unconditional: unconditional[0] }).toEqual({ write, conditional: [412, 'PreconditionFailed'], unconditional: 400 });
      expect(revisions[1]).toEqual(revisions[0]);
    }
  });
});
