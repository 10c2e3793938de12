/**
 * Definitions are stored as UTF-8: a string holding a lone UTF-16 surrogate
 * (valid JSON, "\ud800") would be kept as another string than the one
 * checked. Such strings, and C1 control characters in paths, are refused at
 * creation with a 400 that stores nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BASE, TOKENS, type TestServer, bearer, createProject, startServer } from '../platform/helpers.js';

let server: TestServer;
const alice = bearer(TOKENS.alice);

beforeAll(async () => {
  // One live archive per caller: a refused creation that stored anyway would block the next one.
  server = await startServer({ maxArchivesPerCaller: 1 });
  await createProject(server.app, 'org', 'proj');
  await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/r1', headers: alice, payload: { name: 'r1' } });
});
afterAll(() => server.close());

function post(payload: object) {
  return server.app.inject({ method: 'POST', url: '/v1/archives/org/proj', headers: { ...alice, accept: 'application/json' }, payload });
}

async function expectRefusedAndNothingStored(payload: object, type: string, reason: RegExp) {
  const response = await post(payload);
  expect(response.statusCode).toBe(400);
  expect(response.json()).toMatchObject({ '@type': type, reason: expect.stringMatching(reason) });
}

describe('lone surrogates and C1 controls are refused at creation', () => {
  test.each([
    ['a path', { resources: [{ '@type': 'Resource', resourceId: 'r1', path: '/a\ud800.json' }] }, 'DecodingFailed', /resources\[0\]: .*lone surrogate/],
    [
      'two paths that would both be stored as "a\ufffd.json"',
      {
        resources: [
          { '@type': 'Resource', resourceId: 'r1', path: '/a\ud800.json' },
          { '@type': 'Resource', resourceId: 'r1', format: 'expanded', path: '/a\udc00.json' },
        ],
      },
      'DecodingFailed',
      /resources\[1\]: .*lone surrogate/,
    ],
    ['a resourceId', { resources: [{ '@type': 'Resource', resourceId: 'r1\ud800' }] }, 'DecodingFailed', /resources\[0\]: 'resourceId' .*lone surrogate/],
    ['a tag', { resources: [{ '@type': 'Resource', resourceId: 'r1', tag: 't\udfff' }] }, 'DecodingFailed', /resources\[0\]: 'tag' .*lone surrogate/],
    [
      'a FileSelf value',
      { resources: [{ '@type': 'FileSelf', value: `${BASE}/v1/files/org/proj/f\ud800` }] },
      'DecodingFailed',
      /resources\[0\]: 'value' .*lone surrogate/,
    ],
    ['the archive @id', { '@id': 'x\ud800', resources: [{ '@type': 'Resource', resourceId: 'r1' }] }, 'InvalidArchiveId', /cannot be expanded/],
    ['a C1 control character in a path', { resources: [{ '@type': 'Resource', resourceId: 'r1', path: '/a\u0085b.json' }] }, 'DecodingFailed', /control, bidirectional/],
    ['a zero-width space in a path', { resources: [{ '@type': 'Resource', resourceId: 'r1', path: '/in\u200Bvoice.json' }] }, 'DecodingFailed', /invisible characters/],
    ['a bidirectional override in a path', { resources: [{ '@type': 'Resource', resourceId: 'r1', path: '/invoice\u202Enosj.exe' }] }, 'DecodingFailed', /bidirectional/],
  ])('%s', async (_, payload, type, reason) => {
    await expectRefusedAndNothingStored(payload, type, reason);
  });

  test('none of the refused creations used up the quota of one live archive', async () => {
    const response = await post({ resources: [{ '@type': 'Resource', resourceId: 'r1', path: '/r1-😀.json' }] });
    expect(response.statusCode).toBe(201);
    const zip = await server.app.inject({ method: 'GET', url: new URL(response.json()._self).pathname, headers: alice });
    expect(zip.statusCode).toBe(200);
    expect(zip.rawPayload.includes(Buffer.from('r1-😀.json'))).toBe(true);
  });
});
