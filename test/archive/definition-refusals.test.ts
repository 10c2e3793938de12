/**
 * A bad definition over HTTP: one 400 DecodingFailed listing every problem,
 * entry problems and path conflicts together, and nothing stored.
 */
import { expect, test } from 'vitest';
import { TOKENS, bearer, serverWithProject } from '../platform/helpers.js';

const server = serverWithProject();
const alice = { ...bearer(TOKENS.alice), accept: 'application/json' };

function create(id: string, resources: object[]) {
  return server().app.inject({ method: 'PUT', url: `/v1/archives/org/proj/${id}`, headers: alice, payload: { resources } });
}

async function stored(id: string): Promise<boolean> {
  return (await server().app.inject({ method: 'GET', url: `/v1/archives/org/proj/${id}`, headers: alice })).statusCode === 200;
}

test('a misspelt field is refused with the entry problems and the path conflicts; nothing is stored', async () => {
  const response = await create('typos', [
    { '@type': 'Resource', resourceId: 'r1', path: '/a.json' },
    { '@type': 'Resource', resourceId: 'r2', pth: '/b.json' },
    { '@type': 'Resource', resourceId: 'r3', path: '/a.json' },
  ]);
  expect(response.statusCode).toBe(400);
  expect(response.json()).toMatchObject({
    '@type': 'DecodingFailed',
    reason: ["resources[1]: unknown field 'pth'.", "resources[0], resources[2]: The paths 'a.json' have been used multiple times in the archive."].join('\n'),
  });
  expect(await stored('typos')).toBe(false);
});

test('a field of the other entry type is ignored, as in the reference', async () => {
  const response = await create('other-type', [{ '@type': 'File', resourceId: 'f1', format: 'source', path: '/f1' }]);
  expect(response.statusCode).toBe(201);
  const metadata = await server().app.inject({ method: 'GET', url: '/v1/archives/org/proj/other-type', headers: alice });
  expect(metadata.json().resources).toEqual([{ '@type': 'File', resourceId: expect.stringMatching(/\/f1$/), path: '/f1' }]);
});
