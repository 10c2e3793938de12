/**
 * Every parameter /openapi.json (and so /docs, which renders it) lists is one
 * a client can send: a schema object, a name the route takes. A querystring
 * schema without `properties` had been read as a map of parameters, so GET
 * /settings offered `type` (schema "object") and `additionalProperties`
 * (schema false), which the route refuses as unknown.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureApp, type Fixture } from './app-fixture.js';

interface Parameter {
  name: unknown;
  in: unknown;
  schema: unknown;
}
interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
}

/** A name no route takes: a route that refuses it checks the names it is sent. */
const NOT_A_PARAMETER = 'zz_not_a_parameter';

/** Whether an answer refuses `name` as an unknown query parameter, in the words of either API. */
function refusedAsUnknown(body: string, name: string): boolean {
  return body.includes(`unknown parameter \\"${name}\\"`) || body.includes(`querystring has an unknown parameter '${name}'`);
}

let fixture: Fixture;
let operations: Operation[];
beforeAll(async () => {
  // With the platform, so its routes are listed too (no auth file: every route answers without a token).
  fixture = await fixtureApp(undefined, {}, { auth: null });
  const document = (await fixture.app.inject({ url: '/openapi.json' })).json() as { paths: Record<string, Record<string, { parameters?: Parameter[] }>> };
  operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ method: method.toUpperCase(), path, parameters: operation.parameters ?? [] })),
  );
});
afterAll(() => fixture.close());

describe('the parameters /openapi.json lists', () => {
  it('each has a JSON Schema object for its schema, a place, and no twin', () => {
    const parameters = operations.flatMap(({ method, path, parameters }) => parameters.map((parameter) => ({ operation: `${method} ${path}`, ...parameter })));
    expect(parameters.length).toBeGreaterThan(100);
    const malformed = parameters.filter(
      ({ name, in: place, schema }) =>
        typeof name !== 'string' ||
        name === '' ||
        !['query', 'path', 'header', 'cookie'].includes(place as string) ||
        typeof schema !== 'object' ||
        schema === null ||
        Array.isArray(schema) ||
        !['type', 'enum', 'const', '$ref', 'anyOf', 'oneOf', 'allOf'].some((keyword) => keyword in schema),
    );
    expect(malformed).toEqual([]);
    for (const { method, path, parameters } of operations) {
      const keys = parameters.map((p) => `${p.in} ${p.name}`);
      expect({ operation: `${method} ${path}`, keys: new Set(keys).size }).toEqual({ operation: `${method} ${path}`, keys: keys.length });
    }
  });

  it('its path parameters are exactly the placeholders of its path', () => {
    for (const { method, path, parameters } of operations) {
      const placeholders = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
      const declared = parameters.filter((p) => p.in === 'path').map((p) => p.name).sort();
      expect({ operation: `${method} ${path}`, declared }).toEqual({ operation: `${method} ${path}`, declared: placeholders });
    }
  });

  it('the route takes each query parameter of a GET it lists: sending it is not refused as unknown', async () => {
    const judged: string[] = [];
    for (const { path, parameters } of operations.filter((o) => o.method === 'GET')) {
      const url = path.replace(/\{[^}]+\}/g, 'x');
      const control = await fixture.app.inject({ url: `${url}?${NOT_A_PARAMETER}=1` });
      // A route that takes any name (or refuses the request before reading its query) cannot tell a real name from a bogus one.
      if (!refusedAsUnknown(control.body, NOT_A_PARAMETER)) continue;
      for (const { name } of parameters.filter((p) => p.in === 'query')) {
        const sent = await fixture.app.inject({ url: `${url}?${encodeURIComponent(name as string)}=1` });
        expect({ operation: `GET ${path}`, name, refused: refusedAsUnknown(sent.body, name as string) }).toEqual({ operation: `GET ${path}`, name, refused: false });
        judged.push(`${path} ${name}`);
      }
    }
    // The check reached both APIs' query parameters, not a handful.
    expect(judged).toEqual(expect.arrayContaining(['/retrieval/article_count topics', '/v1/resources/{org}/{project} type', '/v1/files/{org}/{project}/{id} rev']));
    expect(judged.length).toBeGreaterThan(30);
  });

  it('GET /settings takes no query parameter and lists none', () => {
    expect(operations.find((o) => o.method === 'GET' && o.path === '/settings')?.parameters).toEqual([]);
  });
});
