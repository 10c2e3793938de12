/**
 * An organization or project write that its target refuses anyway is answered with that refusal, not 412,
 * whatever its preconditions say (RFC 9110 §13.2.1: preconditions are ignored when the request without them
 * would not succeed). The order is the write's permission, then everything the write itself would refuse
 * before reading its body (a missing target, a stale `rev`, the target's state or its organization's), then
 * If-Match, If-Unmodified-Since and If-None-Match; resource and file writes refuse a project that takes no
 * writes first likewise (precondition-permissions.test.ts). Every refused write here changes nothing.
 */
import type { InjectOptions } from 'fastify';
import { beforeAll, describe, expect, test } from 'vitest';
import { TOKENS, bearer, createProject, serverWithProject } from './helpers.js';

const server = serverWithProject();
const alice = bearer(TOKENS.alice);

function send(request: InjectOptions) {
  return server().app.inject({ ...request, headers: { ...alice, ...request.headers } });
}

/** A precondition false for any existing organization or project: none carries an entity tag. */
const FALSE_FOR_EXISTING = { 'if-match': '"x"' };
/** A precondition false for a target that does not exist. */
const FALSE_FOR_MISSING = { 'if-match': '*' };

type Write = { method: 'PUT' | 'DELETE'; url: string; payload?: object };

/** The organization or project a write's URL changes (its undeprecation's too), where GET reads it. */
function targetOf(url: string): string {
  return url.split('?')[0]!.replace(/\/undeprecate$/, '');
}

/** The write's answer sent with `headers` and sent without them, as [status, @type], and the target's revision before and after. */
async function answersOf(write: Write, headers: Record<string, string>, target: string) {
  const revisionOf = async () => (await send({ method: 'GET', url: target })).json()._rev as number | undefined;
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
async function expectRefused(write: Write, refusal: [number, string], headers = FALSE_FOR_EXISTING) {
  const { conditional, unconditional, revisions } = await answersOf(write, headers, targetOf(write.url));
  expect({ write, conditional, unconditional }).toEqual({ write, conditional: refusal, unconditional: refusal });
  expect(revisions[1]).toBe(revisions[0]);
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
});

describe('an organization write its target refuses', () => {
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
