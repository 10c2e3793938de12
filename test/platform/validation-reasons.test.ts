/**
 * A /v1 validation refusal says what Ajv's own message leaves out: the values an enumerated parameter
 * takes, and that a parameter came twice (which Ajv reports as "must be integer").
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { TOKENS, type TestServer, bearer, createProject, startServer } from './helpers.js';

let server: TestServer;
const alice = bearer(TOKENS.alice);

beforeAll(async () => {
  server = await startServer();
  await createProject(server.app, 'org', 'proj');
  await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/live', headers: alice, payload: { '@type': 'Neuron' } });
});
afterAll(() => server.close());

async function reasonOf(url: string): Promise<string> {
  const response = await server.app.inject({ method: 'GET', url, headers: alice });
  expect(response.statusCode).toBe(400);
  expect(response.json()['@type']).toBe('MalformedQueryParam');
  return response.json().reason;
}

test('an enumerated parameter lists the values it takes', async () => {
  expect(await reasonOf('/v1/resources/org/proj/_/live?format=flattened')).toBe(
    "querystring/format must be equal to one of the allowed values: 'compacted', 'expanded'",
  );
});

test('a parameter given twice says so', async () => {
  expect(await reasonOf('/v1/resources/org/proj/_/live?rev=1&rev=2')).toBe('querystring/rev may be given only once');
  // An enumerated one too, where Ajv reports the array as none of the allowed values.
  expect(await reasonOf('/v1/resources/org/proj/_/live?format=expanded&format=compacted')).toBe('querystring/format may be given only once');
  // Once, a bad value is still named for what it is.
  expect(await reasonOf('/v1/resources/org/proj/_/live?rev=x')).toBe("querystring/rev must be an integer written in decimal digits, not 'x'");
});
