/**
 * A /v1 validation refusal says what Ajv's own message leaves out: the values an enumerated parameter
 * or body field takes, that a parameter came twice (which Ajv reports as "must be integer"), and for a query
 * parameter, path label or enumerated body field, what it takes in words and the value refused.
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
    "querystring/format must be one of 'compacted', 'expanded', not 'flattened'",
  );
});

test("a body's value outside an enum is refused in the same words, showing what came as JSON wrote it", async () => {
  const reasonOfOperation = async (operation: unknown) => {
    const response = await server.app.inject({ method: 'PATCH', url: '/v1/acls/org/proj?rev=1', headers: alice, payload: { '@type': operation, acl: [] } });
    expect([response.statusCode, response.json()['@type']]).toEqual([400, 'DecodingFailed']);
    return response.json().reason;
  };
  const allowed = "body/@type must be one of 'Append', 'Subtract'";
  expect(await reasonOfOperation('Replace')).toBe(`${allowed}, not 'Replace'`);
  expect(await reasonOfOperation(5)).toBe(`${allowed}, not 5`);
  expect(await reasonOfOperation('x'.repeat(100))).toBe(`${allowed}, not '${'x'.repeat(64)}… (100 characters)'`);
  // A value that is no text, number or boolean is not shown.
  expect(await reasonOfOperation({ op: 'Append' })).toBe(allowed);
});

test('a query parameter out of its bounds, empty or not a boolean says what it takes and what came', async () => {
  expect(await reasonOf('/v1/resources/org/proj?size=0')).toBe("querystring/size must be at least 1, not '0'");
  expect(await reasonOf('/v1/resources/org/proj?size=5000')).toBe("querystring/size must be at most 1000, not '5000'");
  expect(await reasonOf('/v1/files/org/proj?from=-1')).toBe("querystring/from must be at least 0, not '-1'");
  expect(await reasonOf('/v1/resources/org/proj/_/live?rev=0')).toBe("querystring/rev must be at least 1, not '0'");
  expect(await reasonOf('/v1/resources/org/proj/_/live?tag=')).toBe('querystring/tag must not be empty');
  expect(await reasonOf('/v1/resources/org/proj?deprecated=maybe')).toBe(
    "querystring/deprecated must be true or false (or yes/no, on/off, 1/0), not 'maybe'",
  );
});

test('a path label outside its pattern says in words what a label is, and shows the one sent', async () => {
  const response = await server.app.inject({ method: 'GET', url: '/v1/orgs/a*b', headers: alice });
  expect([response.statusCode, response.json()['@type']]).toEqual([400, 'InvalidPathSegment']);
  expect(response.json().reason).toBe("params/org must be 1 to 64 letters (A-Z, a-z), digits, '_' or '-', not 'a*b'");
  const long = await server.app.inject({ method: 'GET', url: `/v1/projects/org/${'p'.repeat(300)}`, headers: alice });
  expect(long.json().reason).toMatch(/^params\/project must be 1 to 64 letters .*, not 'p+… \(300 characters\)'$/);
});

test('a parameter given twice says so', async () => {
  expect(await reasonOf('/v1/resources/org/proj/_/live?rev=1&rev=2')).toBe('querystring/rev may be given only once');
  // An enumerated one too, where Ajv reports the array as none of the allowed values.
  expect(await reasonOf('/v1/resources/org/proj/_/live?format=expanded&format=compacted')).toBe('querystring/format may be given only once');
  // Once, a bad value is still named for what it is.
  expect(await reasonOf('/v1/resources/org/proj/_/live?rev=x')).toBe("querystring/rev must be an integer written in decimal digits, not 'x'");
});

test('an unknown query parameter is named with those the operation takes; a missing one is said to be required', async () => {
  expect(await reasonOf('/v1/resources/org/proj?sort=name')).toMatch(/^querystring has an unknown parameter 'sort' \(this operation takes from, size, /);
  const missing = await server.app.inject({ method: 'POST', url: '/v1/resources/org/proj/_/live/tags', headers: alice, payload: { tag: 't', rev: 1 } });
  expect(missing.statusCode).toBe(400);
  expect(missing.json().reason).toBe('querystring/rev is required');
});

test('a number refused is shown as it was sent, not as the number it was read as', async () => {
  expect(await reasonOf('/v1/resources/org/proj?size=9007199254740993')).toBe("querystring/size must be at most 1000, not '9007199254740993'");
  expect(await reasonOf('/v1/resources/org/proj/_/live?rev=-99999999999999999999')).toBe("querystring/rev must be at least 1, not '-99999999999999999999'");
});
