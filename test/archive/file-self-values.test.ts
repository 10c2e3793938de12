/**
 * A FileSelf value is read by one parser at creation and at download: a value that no download could
 * read (an id no IRI can hold, or none once the project's base is added; a query the file routes would
 * refuse) is refused when the archive is created, with every other problem of the definition, and nothing
 * is stored; `rev` is written as on every /v1 route (decimal digits, `rev=01` is revision 1).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BASE, TOKENS, type TestServer, bearer, createProject, multipart, startServer } from '../platform/helpers.js';
import { unzip } from './unzip.js';

let server: TestServer;
const alice = bearer(TOKENS.alice);
const f1 = `${BASE}/v1/files/org/proj/f1`;

async function uploadFile(content: string, rev?: number) {
  const body = await multipart('f1.txt', content, 'text/plain');
  const url = `/v1/files/org/proj/f1${rev ? `?rev=${rev}` : ''}`;
  const response = await server.app.inject({ method: 'PUT', url, headers: { ...alice, ...body.headers }, payload: body.payload });
  if (response.statusCode >= 300) throw new Error(response.body);
}

function create(id: string, values: string[]) {
  const resources = values.map((value, i) => ({ '@type': 'FileSelf', value, path: `/f/${i}.txt` }));
  return server.app.inject({ method: 'PUT', url: `/v1/archives/org/proj/${id}`, headers: { ...alice, accept: 'application/json' }, payload: { resources } });
}

async function archiveExists(id: string): Promise<boolean> {
  const response = await server.app.inject({ method: 'GET', url: `/v1/archives/org/proj/${id}`, headers: { ...alice, accept: 'application/json' } });
  return response.statusCode === 200;
}

beforeAll(async () => {
  server = await startServer();
  await createProject(server.app, 'org', 'proj');
  await uploadFile('revision one');
  await uploadFile('revision two', 1);
});
afterAll(() => server.close());

describe('FileSelf values no download could read are refused at creation', () => {
  const revisionRule = 'a revision is written in decimal digits, from 1 to 2147483648.';
  test.each([
    ['an id holding a space', `${f1}%20x`, 'does not name a file id.'],
    ['an id holding NUL', `${f1}%00`, 'does not name a file id.'],
    ['a repeated rev', `${f1}?rev=1&rev=2`, "gives the query parameter 'rev' more than once."],
    ['a repeated tag', `${f1}?tag=a&tag=b`, "gives the query parameter 'tag' more than once."],
    ['an unknown parameter', `${f1}?foo=1`, "has the query parameter 'foo': a file's address takes only 'rev' or 'tag'."],
    ['revision 0', `${f1}?rev=0`, `has an invalid revision '0': ${revisionRule}`],
    ['a revision past 2^31', `${f1}?rev=2147483649`, `has an invalid revision '2147483649': ${revisionRule}`],
    ['a decimal fraction', `${f1}?rev=1.0`, `has an invalid revision '1.0': ${revisionRule}`],
    ['an exponent', `${f1}?rev=1e0`, `has an invalid revision '1e0': ${revisionRule}`],
    ['a plus sign', `${f1}?rev=%2B1`, `has an invalid revision '+1': ${revisionRule}`],
  ])('%s: 400 DecodingFailed naming it, nothing stored', async (_, value, problem) => {
    const id = `refused-${encodeURIComponent(value).replace(/%/g, '')}`;
    const response = await create(id, [value]);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ '@type': 'DecodingFailed', reason: `resources[0]: '${value}' ${problem}` });
    expect(await archiveExists(id)).toBe(false);
  });

  test('every bad value is reported at once, with the other problems of the definition', async () => {
    const response = await create('several', [`${f1}%20x`, `${f1}?foo=1`, f1, `${f1}?rev=1&rev=2`]);
    expect(response.statusCode).toBe(400);
    const lines: string[] = response.json().reason.split('\n');
    expect(lines.map((line) => line.slice(0, line.indexOf(':')))).toEqual(['resources[0]', 'resources[1]', 'resources[3]']);
    expect(await archiveExists('several')).toBe(false);
  });
});

describe("an id that fits the shortest base but not the project's", () => {
  // A 1,000-byte segment: an id under the shortest base (1,002 bytes), none under this project's (over 1,024).
  const value = `${BASE}/v1/files/org/proj/${'a'.repeat(1000)}`;

  test('is refused at creation with the words a download would answer, nothing stored', async () => {
    const response = await create('too-long-here', [value]);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ '@type': 'DecodingFailed', reason: `resources[0]: '${value}' does not name a file id.` });
    expect(await archiveExists('too-long-here')).toBe(false);
  });

  test("is accepted where the project's mapping, as the download applies it, makes it short enough", async () => {
    await createProject(server.app, 'org', 'mapped', { apiMappings: [{ prefix: 's', namespace: 'urn:s:' }] });
    expect((await create('mapped', [`${BASE}/v1/files/org/mapped/s%3A${'a'.repeat(1000)}`])).statusCode).toBe(201);
  });
});

describe('rev as on every /v1 route', () => {
  test('rev=01 is revision 1, at creation and at download', async () => {
    const created = await create('leading-zero', [`${f1}?rev=01`, `${f1}?rev=0002`]);
    expect(created.statusCode).toBe(201);
    const zip = await server.app.inject({ method: 'GET', url: '/v1/archives/org/proj/leading-zero', headers: { ...alice, accept: 'application/zip' } });
    expect(zip.statusCode).toBe(200);
    const { entries } = await unzip(zip.rawPayload);
    expect(entries.get('f/0.txt')?.toString()).toBe('revision one');
    expect(entries.get('f/1.txt')?.toString()).toBe('revision two');
  });
});
