/**
 * Listing through the schema segment, as Nexus scripts do (`GET /v1/resources/{org}/{project}/_`): it had been 405.
 * Under `_` every entity, files included; under the unconstrained schema (`resource`) resources only, files having
 * their own schema; another schema is 404 SchemaNotFound, as its reads are. Paging links keep the schema segment.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { TOKENS, bearer, multipart, serverWithProject } from './helpers.js';

const alice = bearer(TOKENS.alice);
const server = serverWithProject();
beforeAll(async () => {
  for (const id of ['r1', 'r2']) {
    const created = await server().app.inject({ method: 'PUT', url: `/v1/resources/org/proj/_/${id}`, headers: alice, payload: { name: id } });
    expect(created.statusCode).toBe(201);
  }
  const body = await multipart('notes.txt', 'some notes', 'text/plain');
  expect((await server().app.inject({ method: 'PUT', url: '/v1/files/org/proj/f1', headers: { ...alice, ...body.headers }, payload: body.payload })).statusCode).toBe(201);
});

const list = (path: string) => server().app.inject({ url: `/v1/resources/org/proj${path}`, headers: alice });
const ids = (body: { _results: { '@id': string }[] }) => body._results.map((entry) => entry['@id'].split('/').at(-1));

describe('a listing under a schema', () => {
  it('under _ holds every entity, files included, as the project listing does', async () => {
    const underAny = await list('/_');
    expect(underAny.statusCode, underAny.body).toBe(200);
    expect(underAny.json()._total).toBe(3);
    expect(ids(underAny.json())).toEqual(ids((await list('')).json()));
  });

  it('under the unconstrained schema holds resources only', async () => {
    const underResource = await list('/resource');
    expect(underResource.statusCode).toBe(200);
    expect(underResource.json()._total).toBe(2);
    expect(ids(underResource.json()).sort()).toEqual(['r1', 'r2']);
  });

  it('pages with links under the same schema, and takes the filters', async () => {
    const first = await list('/resource?size=1');
    expect(first.json()._next).toMatch(/\/v1\/resources\/org\/proj\/resource\?(.*&)?from=1/);
    expect((await list('/_?type=nxv:File')).json()._total).toBe(1);
  });

  it('under another schema is 404 SchemaNotFound', async () => {
    const other = await list('/my-schema');
    expect([other.statusCode, other.json()['@type']]).toEqual([404, 'SchemaNotFound']);
    // It had named '_' alone, though 'resource' and its IRI are taken too; files have their own listing.
    expect(other.json().reason).toBe(
      "Schema 'my-schema' not found: only the unconstrained schema exists, written '_' (any entity, files included), 'resource' or its IRI; files are listed under /v1/files or with type=nxv:File.",
    );
  });
});

describe("Nexus's `after` paging", () => {
  it('is refused naming the parameters the listing takes, from and size among them', async () => {
    const refused = await list('?after=%5B%5D');
    expect(refused.statusCode).toBe(400);
    // It had said only "querystring must NOT have additional properties: 'after'".
    expect(refused.json().reason).toMatch(/^querystring has an unknown parameter 'after' \(this operation takes (\w+, )*from, size(, \w+)*\)$/);
  });
});
