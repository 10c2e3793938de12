/**
 * A deprecated organization's projects change no more than their resources do, as in Nexus (its project
 * commands all fetch the organization as active): updating, deprecating and undeprecating a project are
 * `400 OrganizationIsDeprecated` and write nothing; marking a project for deletion (Nexus's project
 * deletion, which does not look at the organization) still goes through.
 */
import { describe, expect, test } from 'vitest';
import { TOKENS, bearer, createProject, serverWithProject } from './helpers.js';

const server = serverWithProject();
const alice = bearer(TOKENS.alice);

function inject(method: 'GET' | 'PUT' | 'DELETE', url: string, payload?: object) {
  return server().app.inject({ method, url, headers: alice, ...(payload && { payload }) });
}

describe('the projects of a deprecated organization', () => {
  test('are not updated, deprecated or undeprecated until the organization is undeprecated', async () => {
    await createProject(server().app, 'closed', 'live');
    await createProject(server().app, 'closed', 'asleep');
    expect((await inject('DELETE', '/v1/projects/closed/asleep?rev=1')).statusCode).toBe(200);
    expect((await inject('DELETE', '/v1/orgs/closed?rev=1')).statusCode).toBe(200);

    const refused = [
      await inject('PUT', '/v1/projects/closed/live?rev=1', { description: 'changed' }),
      await inject('DELETE', '/v1/projects/closed/live?rev=1'),
      await inject('PUT', '/v1/projects/closed/asleep/undeprecate?rev=2'),
    ];
    expect(refused.map((response) => [response.statusCode, response.json()['@type'], response.json().reason])).toEqual(
      Array(3).fill([400, 'OrganizationIsDeprecated', "Organization 'closed' is deprecated."]),
    );
    expect((await inject('GET', '/v1/projects/closed/live')).json()).toMatchObject({ _rev: 1, _deprecated: false });
    expect((await inject('GET', '/v1/projects/closed/live')).json().description).toBeUndefined();
    expect((await inject('GET', '/v1/projects/closed/asleep')).json()).toMatchObject({ _rev: 2, _deprecated: true });

    expect((await inject('PUT', '/v1/orgs/closed/undeprecate?rev=2')).statusCode).toBe(200);
    expect((await inject('PUT', '/v1/projects/closed/live?rev=1', { description: 'changed' })).json()).toMatchObject({ _rev: 2, description: 'changed' });
    expect((await inject('DELETE', '/v1/projects/closed/live?rev=2')).json()).toMatchObject({ _rev: 3, _deprecated: true });
    expect((await inject('PUT', '/v1/projects/closed/asleep/undeprecate?rev=2')).json()).toMatchObject({ _rev: 3, _deprecated: false });
  });

  test('the project checks come first: a stale revision is 409, a missing project 404', async () => {
    await createProject(server().app, 'shut', 'p');
    await inject('DELETE', '/v1/orgs/shut?rev=1');
    expect((await inject('DELETE', '/v1/projects/shut/p?rev=7')).json()['@type']).toBe('IncorrectRev');
    expect((await inject('DELETE', '/v1/projects/shut/none?rev=1')).json()['@type']).toBe('ProjectNotFound');
  });

  test('can still be marked for deletion, as Nexus deletes them', async () => {
    await createProject(server().app, 'gone', 'p');
    await inject('DELETE', '/v1/orgs/gone?rev=1');
    const pruned = await inject('DELETE', '/v1/projects/gone/p?rev=1&prune=true');
    expect([pruned.statusCode, pruned.json()._markedForDeletion]).toEqual([200, true]);
  });
});
