import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BASE, TOKENS, type TestServer, article, bearer, createProject, startServer } from './helpers.js';
import { MAX_CONTEXT_DEFINITIONS, MAX_CONTEXT_WORK, contextCost } from '../../src/platform/context-bound.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ articles: [article('demo-000'), article('demo-001', { journal_name: null, journal_issn: null, article_doi: null })] });
  await createProject(server.app, 'org', 'proj', { apiMappings: [{ prefix: 'ex', namespace: 'https://example.org/things/' }] });
});
afterAll(() => server.close());

const alice = bearer(TOKENS.alice);
const base = `${BASE}/v1/resources/org/proj/_/`;
const vocab = `${BASE}/v1/vocabs/org/proj/`;

async function createResource(id: string, payload: object = { '@type': 'Person', name: 'Ada' }) {
  const response = await server.app.inject({ method: 'PUT', url: `/v1/resources/org/proj/_/${id}`, headers: alice, payload });
  expect(response.statusCode).toBe(201);
  return response.json();
}

describe('creating resources', () => {
  test('POST generates base + UUID; the answer carries the metadata fields', async () => {
    const response = await server.app.inject({ method: 'POST', url: '/v1/resources/org/proj/_', headers: alice, payload: { name: 'x' } });
    expect(response.statusCode).toBe(201);
    const body = response.json();
    expect(body['@id']).toMatch(new RegExp(`^${base}[0-9a-f-]{36}$`));
    expect(body).toMatchObject({
      _project: 'org/proj',
      _rev: 1,
      _deprecated: false,
      _constrainedBy: 'https://bluebrain.github.io/nexus/schemas/unconstrained.json',
      _createdBy: `${BASE}/v1/realms/local/users/alice`,
      _self: `${base}${encodeURIComponent(body['@id'])}`.replace(base, `${BASE}/v1/resources/org/proj/_/`),
    });
    expect(Date.parse(body._createdAt)).not.toBeNaN();
  });

  test('a relative id names the same resource in the URL and in the payload, its characters as written', async () => {
    const put = await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/caf%C3%A9', headers: alice, payload: { '@id': 'café', x: 1 } });
    expect(put.statusCode).toBe(201);
    expect(put.json()['@id']).toBe(`${base}café`);
    const again = await server.app.inject({ method: 'POST', url: '/v1/resources/org/proj/_', headers: alice, payload: { '@id': 'café', x: 2 } });
    expect(again.statusCode).toBe(409);
    expect(again.json()['@type']).toBe('ResourceAlreadyExists');
    // A percent-encoding written in the payload stays one: that is another IRI.
    const encoded = await server.app.inject({ method: 'POST', url: '/v1/resources/org/proj/_', headers: alice, payload: { '@id': 'caf%C3%A9' } });
    expect(encoded.json()['@id']).toBe(`${base}caf%C3%A9`);
  });

  test('a payload @id is resolved against the project base; PUT with a different @id is 400 UnexpectedId', async () => {
    const post = await server.app.inject({ method: 'POST', url: '/v1/resources/org/proj/_', headers: alice, payload: { '@id': 'named', a: 1 } });
    expect(post.json()['@id']).toBe(`${base}named`);
    const put = await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/one', headers: alice, payload: { '@id': 'two' } });
    expect(put.statusCode).toBe(400);
    expect(put.json()).toMatchObject({ '@type': 'UnexpectedId', reason: "Id 'one' does not match the id on payload 'two'." });
  });

  test('ids written alike that expand apart are both shown expanded (the message had quoted one string twice)', async () => {
    const put = await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/..%2Fx', headers: alice, payload: { '@id': '../x' } });
    expect(put.statusCode, put.body).toBe(400);
    expect(put.json()).toMatchObject({
      '@type': 'UnexpectedId',
      reason: `Id '../x' does not match the id on payload '../x'. The URL's names '${base}../x' (a path segment); the payload's resolves to '${base.replace(/_\/$/, '')}x' (a reference).`,
    });
  });

  test('an existing id is 409 ResourceAlreadyExists', async () => {
    await createResource('dup');
    const again = await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/dup', headers: alice, payload: {} });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ '@type': 'ResourceAlreadyExists', reason: `Resource '${base}dup' already exists in project 'org/proj'.` });
  });

  test('ids in URLs expand with the API mappings: prefix:rest, full IRIs, plain segments', async () => {
    const curie = await createResource('ex:thing-1');
    expect(curie['@id']).toBe('https://example.org/things/thing-1');
    const full = await server.app.inject({ method: 'GET', url: `/v1/resources/org/proj/_/${encodeURIComponent('https://example.org/things/thing-1')}` });
    expect(full.json()['@id']).toBe('https://example.org/things/thing-1');
  });

  test('long ids round-trip through their percent-encoded _self', async () => {
    const created = await createResource('a'.repeat(300));
    const response = await server.app.inject({ method: 'GET', url: new URL(created._self).pathname });
    expect(response.statusCode).toBe(200);
    expect(response.json()['@id']).toBe(`${base}${'a'.repeat(300)}`);
  });

  test('a payload the JSON-LD processor refuses is 400 InvalidJsonLdFormat; remote contexts are never fetched', async () => {
    const remote = await server.app.inject({ method: 'POST', url: '/v1/resources/org/proj/_', headers: alice, payload: { '@context': 'https://schema.org/', name: 'x' } });
    expect(remote.statusCode).toBe(400);
    expect(remote.json()['@type']).toBe('InvalidJsonLdFormat');
    expect(remote.json().details).toMatch(/remote contexts are never fetched/);
    const invalid = await server.app.inject({ method: 'POST', url: '/v1/resources/org/proj/_', headers: alice, payload: { '@context': { '@vocab': 42 } } });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json()['@type']).toBe('InvalidJsonLdFormat');
  });

  test('a payload defining more JSON-LD contexts than the bound is 400 InvalidJsonLdFormat, nested and scoped ones counted', async () => {
    const terms = (count: number) => Array.from({ length: count }, (_, i) => ({ [`t${i}`]: `https://example.org/${i}` }));
    // Half in the top context array, the rest as scoped contexts of terms and in a nested node: all are processed.
    const half = MAX_CONTEXT_DEFINITIONS / 2;
    const payload = (count: number) => ({
      '@context': [...terms(half - 1), { scoped: { '@id': 'https://example.org/scoped', '@context': terms(half - 1) } }],
      inner: { '@context': terms(count - 2 * (half - 1) - 1), name: 'x' },
    });
    expect(contextCost(payload(MAX_CONTEXT_DEFINITIONS + 1)).definitions).toBe(MAX_CONTEXT_DEFINITIONS + 1);
    const tooMany = await server.app.inject({ method: 'POST', url: '/v1/resources/org/proj/_', headers: alice, payload: payload(MAX_CONTEXT_DEFINITIONS + 1) });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json()).toMatchObject({ '@type': 'InvalidJsonLdFormat', details: expect.stringContaining(`defines ${MAX_CONTEXT_DEFINITIONS + 1} JSON-LD contexts`) });
    const atTheBound = await server.app.inject({ method: 'POST', url: '/v1/resources/org/proj/_', headers: alice, payload: payload(MAX_CONTEXT_DEFINITIONS) });
    expect(atTheBound.statusCode).toBe(201);
  });

  test('a payload whose scoped context would be processed too often is 400 InvalidJsonLdFormat and stores nothing', async () => {
    // A context scoped to a term is processed again at each use: 1,000 terms used 10,000 times took 2 s to expand.
    const scopedTerms = Object.fromEntries(Array.from({ length: 99 }, (_, i) => [`t${i}`, `https://example.org/t${i}`]));
    const payload = (uses: number) => ({
      '@context': { a: { '@id': 'https://example.org/a', '@context': scopedTerms } },
      '@id': `https://example.org/scoped-${uses}`,
      a: Array.from({ length: uses }, () => ({ t1: 'v' })),
    });
    const cost = (uses: number) => contextCost(payload(uses));
    // 100 terms (the scoped one and its 99), processed at the definitions and at each of 3 + 2 × uses values.
    expect(cost(10)).toEqual({ definitions: 2, terms: 100, processings: 2 + 3 + 2 * 10 });
    const largestAllowed = Math.floor((MAX_CONTEXT_WORK / 100 - 5) / 2);
    expect(cost(largestAllowed).processings * 100).toBeLessThanOrEqual(MAX_CONTEXT_WORK);
    expect(cost(largestAllowed + 1).processings * 100).toBeGreaterThan(MAX_CONTEXT_WORK);

    const tooCostly = await server.app.inject({ method: 'POST', url: '/v1/resources/org/proj/_', headers: alice, payload: payload(largestAllowed + 1) });
    expect(tooCostly.statusCode).toBe(400);
    expect(tooCostly.json()).toMatchObject({ '@type': 'InvalidJsonLdFormat', details: expect.stringContaining('define 100 terms and may be processed') });
    const stored = await server.app.inject({ method: 'GET', url: `/v1/resources/org/proj/_/${encodeURIComponent(`https://example.org/scoped-${largestAllowed + 1}`)}`, headers: alice });
    expect(stored.statusCode).toBe(404);
    const atTheBound = await server.app.inject({ method: 'POST', url: '/v1/resources/org/proj/_', headers: alice, payload: payload(largestAllowed) });
    expect(atTheBound.statusCode).toBe(201);
  });

  test('malformed JSON and non-object bodies are 400 in the error shape, plain text 415', async () => {
    const malformed = await server.app.inject({
      method: 'POST',
      url: '/v1/resources/org/proj/_',
      headers: { ...alice, 'content-type': 'application/json' },
      payload: '{"name": ',
    });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()['@context']).toBe('https://bluebrain.github.io/nexus/contexts/error.json');
    for (const url of ['/v1/resources/org/proj/_', '/v1/archives/org/proj']) {
      const text = await server.app.inject({ method: 'POST', url, headers: { ...alice, 'content-type': 'text/plain' }, payload: '{"name": "x"}' });
      expect([url, text.statusCode, text.json()['@type']]).toEqual([url, 415, 'UnsupportedMediaType']);
    }
    const array = await server.app.inject({ method: 'POST', url: '/v1/resources/org/proj/_', headers: alice, payload: [1, 2] });
    expect(array.statusCode).toBe(400);
    expect(array.json()['@type']).toBe('DecodingFailed');
  });

  test('application/ld+json bodies are accepted', async () => {
    const response = await server.app.inject({
      method: 'POST',
      url: '/v1/resources/org/proj/_',
      headers: { ...alice, 'content-type': 'application/ld+json' },
      payload: JSON.stringify({ '@id': 'ld', name: 'ld' }),
    });
    expect(response.statusCode).toBe(201);
  });
});

describe('revisions, tags and deprecation', () => {
  test('updates need the current rev; tags point at revisions; fetch by rev and tag', async () => {
    await createResource('versioned', { name: 'first' });
    const stale = await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/versioned?rev=2', headers: alice, payload: { name: 'x' } });
    expect(stale.statusCode).toBe(409);
    expect(stale.json()['@type']).toBe('IncorrectRev');
    const updated = await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/versioned?rev=1', headers: alice, payload: { name: 'second' } });
    expect(updated.json()._rev).toBe(2);
    const tagged = await server.app.inject({ method: 'POST', url: '/v1/resources/org/proj/_/versioned/tags?rev=2', headers: alice, payload: { tag: 'v1', rev: 1 } });
    expect(tagged.statusCode).toBe(201);
    expect(tagged.json()._rev).toBe(3);

    const get = (query: string) => server.app.inject({ method: 'GET', url: `/v1/resources/org/proj/_/versioned${query}` }).then((r) => r.json());
    expect((await get('')).name).toBe('second');
    expect((await get('?rev=1')).name).toBe('first');
    expect((await get('?rev=1'))._rev).toBe(1);
    expect((await get('?tag=v1')).name).toBe('first');
    expect(await get('?rev=9')).toMatchObject({ '@type': 'RevisionNotFound', reason: "Revision requested '9' not found, last known revision is '3'." });
    expect(await get('?tag=nope')).toMatchObject({ '@type': 'TagNotFound' });
    expect(await get('?rev=1&tag=v1')).toMatchObject({ '@type': 'MalformedQueryParam' });
    expect(await get('?rev=abc')).toMatchObject({ '@type': 'MalformedQueryParam' });
    const tags = await server.app.inject({ method: 'GET', url: '/v1/resources/org/proj/_/versioned/tags' });
    expect(tags.json().tags).toEqual([{ tag: 'v1', rev: 1 }]);
    const badTag = await server.app.inject({ method: 'POST', url: '/v1/resources/org/proj/_/versioned/tags?rev=3', headers: alice, payload: { tag: 'v9', rev: 9 } });
    expect(badTag.statusCode).toBe(404);
  });

  test('deprecation is a revision; deprecated resources refuse updates but stay readable', async () => {
    await createResource('old');
    const deprecated = await server.app.inject({ method: 'DELETE', url: '/v1/resources/org/proj/_/old?rev=1', headers: alice });
    expect(deprecated.json()).toMatchObject({ _deprecated: true, _rev: 2 });
    const update = await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/old?rev=2', headers: alice, payload: {} });
    expect(update.statusCode).toBe(400);
    expect(update.json()['@type']).toBe('ResourceIsDeprecated');
    expect((await server.app.inject({ method: 'GET', url: '/v1/resources/org/proj/_/old' })).json()._deprecated).toBe(true);
  });

  test('writes need resources/write', async () => {
    const response = await server.app.inject({ method: 'POST', url: '/v1/resources/org/proj/_', headers: bearer(TOKENS.bob), payload: {} });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ '@type': 'AuthorizationFailed', details: "Permission 'resources/write' is missing on '/org/proj'." });
  });
});

describe('representations', () => {
  test('source keeps the payload as sent; annotate=true adds the metadata', async () => {
    const payload = { '@type': 'Person', name: 'Ada', nothing: null, _rev: 'mine' };
    await createResource('ada', payload);
    const source = await server.app.inject({ method: 'GET', url: '/v1/resources/org/proj/_/ada/source' });
    expect(source.json()).toEqual(payload);
    const annotated = (await server.app.inject({ method: 'GET', url: '/v1/resources/org/proj/_/ada/source?annotate=true' })).json();
    expect(annotated).toMatchObject({ '@id': `${base}ada`, name: 'Ada', _rev: 1, _project: 'org/proj' });
    expect(annotated['@context']).toEqual(['https://bluebrain.github.io/nexus/contexts/metadata.json']);
  });

  test('compacted (default) and expanded JSON-LD; N-Triples, N-Quads and dot by Accept', async () => {
    await createResource('bob', { '@type': 'Person', name: 'Bob', knows: { '@id': 'ada' } });
    const compacted = (await server.app.inject({ method: 'GET', url: '/v1/resources/org/proj/_/bob' })).json();
    expect(compacted).toMatchObject({ '@id': `${base}bob`, '@type': 'Person', name: 'Bob', knows: { '@id': `${base}ada` }, _rev: 1 });
    const expanded = (await server.app.inject({ method: 'GET', url: '/v1/resources/org/proj/_/bob?format=expanded' })).json();
    expect(expanded[0][`${vocab}name`]).toEqual([{ '@value': 'Bob' }]);
    const nt = await server.app.inject({ method: 'GET', url: '/v1/resources/org/proj/_/bob', headers: { accept: 'application/n-triples' } });
    expect(nt.headers['content-type']).toMatch(/^application\/n-triples/);
    expect(nt.body).toContain(`<${base}bob> <${vocab}knows> <${base}ada> .\n`);
    expect(nt.body).toContain(`<${base}bob> <${vocab}name> "Bob" .\n`);
    const dot = await server.app.inject({ method: 'GET', url: '/v1/resources/org/proj/_/bob', headers: { accept: 'text/vnd.graphviz' } });
    expect(dot.body.startsWith(`digraph "${base}bob" {\n`)).toBe(true);
    expect(dot.body).toContain(`"${base}bob" -> "${base}ada" [label = "${vocab}knows"]`);
    const refused = await server.app.inject({ method: 'GET', url: '/v1/resources/org/proj/_/bob', headers: { accept: 'image/png' } });
    expect(refused.statusCode).toBe(406);
  });

  test('listing pages through the latest revisions', async () => {
    const page = (await server.app.inject({ method: 'GET', url: '/v1/resources/org/proj?from=1&size=2' })).json();
    expect(page._results).toHaveLength(2);
    const all = (await server.app.inject({ method: 'GET', url: '/v1/resources/org/proj?size=1000' })).json();
    expect(all._total).toBe(all._results.length);
    expect(page._results.map((r: { '@id': string }) => r['@id'])).toEqual(all._results.slice(1, 3).map((r: { '@id': string }) => r['@id']));
  });

  test('a page start or size out of bounds (past 1,000,000, past 2^32, infinite) is 400 MalformedQueryParam, not a wrapped or unbounded page', async () => {
    const urls = ['/v1/resources/org/proj?from=1000001', '/v1/resources/org/proj?from=4294967296&size=3', '/v1/resources/org/proj?from=Infinity', '/v1/resources/org/proj?size=Infinity', '/v1/projects?size=Infinity', '/v1/projects?from=1e999'];
    for (const url of urls) {
      const response = await server.app.inject({ method: 'GET', url, headers: alice });
      expect(response.statusCode, url).toBe(400);
      expect(response.json()['@type'], url).toBe('MalformedQueryParam');
    }
    const last = await server.app.inject({ method: 'GET', url: '/v1/resources/org/proj?from=1000000', headers: alice });
    expect(last.json()._results).toEqual([]);
    const rev = await server.app.inject({ method: 'PUT', url: '/v1/acls/org/proj?rev=Infinity', headers: alice, payload: { acl: [] } });
    expect(rev.statusCode).toBe(400);
  });

  test('JSON bodies keep their types: a boolean tag, an array rev or a number description is refused, nothing written', async () => {
    await createResource('typed-body');
    const tag = await server.app.inject({ method: 'POST', url: '/v1/resources/org/proj/_/typed-body/tags?rev=1', headers: alice, payload: { tag: true, rev: [1] } });
    expect(tag.statusCode).toBe(400);
    expect(tag.json()['@type']).toBe('DecodingFailed');
    expect((await server.app.inject({ method: 'GET', url: '/v1/resources/org/proj/_/typed-body', headers: alice })).json()._rev).toBe(1);
    const org = await server.app.inject({ method: 'PUT', url: '/v1/orgs/typed', headers: alice, payload: { description: 5 } });
    expect(org.statusCode).toBe(400);
    expect((await server.app.inject({ method: 'GET', url: '/v1/orgs/typed', headers: alice })).statusCode).toBe(404);
  });
});

describe('the literature project', () => {
  test('articles are schema.org ScholarlyArticle resources', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/v1/resources/literature/articles/_/demo-000' });
    expect(response.statusCode).toBe(200);
    const doc = response.json();
    expect(doc).toMatchObject({
      '@id': `${BASE}/v1/resources/literature/articles/_/demo-000`,
      '@type': 'ScholarlyArticle',
      identifier: 'demo-000',
      name: 'Title of demo-000',
      datePublished: '2020-05-17',
      sameAs: 'https://doi.org/10.5555/demo-000',
      isPartOf: { '@type': 'Periodical', name: 'Hippocampus', issn: '1050-9631' },
      _project: 'literature/articles',
      _rev: 1,
    });
    const nt = await server.app.inject({ method: 'GET', url: '/v1/resources/literature/articles/_/demo-000', headers: { accept: 'application/n-triples' } });
    expect(nt.body).toContain(`<${BASE}/v1/resources/literature/articles/_/demo-000> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <https://schema.org/ScholarlyArticle> .`);
    expect(nt.body).toContain('<https://schema.org/datePublished> "2020-05-17"^^<http://www.w3.org/2001/XMLSchema#date> .');
  });

  test('listing follows the index; unknown articles, revisions and tags are 404', async () => {
    const list = (await server.app.inject({ method: 'GET', url: '/v1/resources/literature/articles' })).json();
    expect(list._total).toBe(2);
    expect(list._results.map((r: { '@id': string }) => r['@id'])).toEqual([
      `${BASE}/v1/resources/literature/articles/_/demo-000`,
      `${BASE}/v1/resources/literature/articles/_/demo-001`,
    ]);
    expect((await server.app.inject({ method: 'GET', url: '/v1/resources/literature/articles/_/nope' })).statusCode).toBe(404);
  });

  test('an article whose id has a scheme, asked for by that id, is not found, and the answer says where it is', async () => {
    const prefixed = await startServer({ articles: [article('scifact:5836')] });
    try {
      const fullId = `${BASE}/v1/resources/literature/articles/_/scifact%3A5836`;
      for (const segment of ['scifact:5836', 'scifact%3A5836']) {
        const response = await prefixed.app.inject({ method: 'GET', url: `/v1/resources/literature/articles/_/${segment}` });
        expect([response.statusCode, response.json()['@type']]).toEqual([404, 'ResourceNotFound']);
        expect([response.json().reason, response.json().details]).toEqual([
          "Resource 'scifact:5836' not found in project 'literature/articles'.",
          `An id with a scheme is read as that IRI, not as a short id: the article 'scifact:5836' is at its full @id, '${fullId}' (percent-encoded in a URL).`,
        ]);
      }
      const full = await prefixed.app.inject({ method: 'GET', url: `/v1/resources/literature/articles/_/${encodeURIComponent(fullId)}` });
      expect([full.statusCode, full.json()['@id']]).toEqual([200, fullId]);
      const other = await prefixed.app.inject({ method: 'GET', url: '/v1/resources/literature/articles/_/scifact:1' });
      expect([other.json().reason, other.json().details]).toEqual(["Resource 'scifact:1' not found in project 'literature/articles'.", undefined]);
      // An archive may name it so (a resource of that IRI may appear later); its download says where the article is.
      await createProject(prefixed.app, 'org', 'proj');
      const resources = [{ '@type': 'Resource', resourceId: 'scifact:5836', project: 'literature/articles' }];
      const created = await prefixed.app.inject({ method: 'PUT', url: '/v1/archives/org/proj/by-scheme', headers: { ...alice, accept: 'application/json' }, payload: { resources } });
      expect(created.statusCode).toBe(201);
      const download = await prefixed.app.inject({ method: 'GET', url: '/v1/archives/org/proj/by-scheme', headers: alice });
      expect([download.statusCode, download.json().reason, download.json().details]).toEqual([
        404,
        "The resource 'scifact:5836' was not found in project 'literature/articles'.",
        `An id with a scheme is read as that IRI, not as a short id: the article 'scifact:5836' is at its full @id, '${fullId}' (percent-encoded in a URL).`,
      ]);
    } finally {
      await prefixed.close();
    }
    expect((await server.app.inject({ method: 'GET', url: '/v1/resources/literature/articles/_/demo-000?rev=2' })).json()['@type']).toBe('RevisionNotFound');
    expect((await server.app.inject({ method: 'GET', url: '/v1/resources/literature/articles/_/demo-000?tag=t' })).json()['@type']).toBe('TagNotFound');
  });
});
