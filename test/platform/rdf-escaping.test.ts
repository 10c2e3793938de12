/**
 * N-Triples, N-Quads and dot cannot be split by a payload: IRIs holding characters an IRIREF forbids
 * are written with UCHAR escapes (and decode back to the same IRI), literals with the N-Triples
 * escapes, ill-formed language tags are dropped, and every line is exactly one statement. Ordinary
 * resources render byte for byte as they did before escaping was added.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { OPERATOR } from '../../src/platform/identities.js';
import { RevisionStore } from '../../src/platform/revisions.js';
import { unzip } from '../archive/unzip.js';
import { BASE, TOKENS, type TestServer, bearer, createProject, startServer } from './helpers.js';

const alice = bearer(TOKENS.alice);
const base = `${BASE}/v1/resources/org/proj/_/`;
const vocab = `${BASE}/v1/vocabs/org/proj/`;
const NXV = 'https://bluebrain.github.io/nexus/vocabulary/';
const XSD = 'http://www.w3.org/2001/XMLSchema#';
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
const NOW = Date.UTC(2024, 0, 2, 3, 4, 5);

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ clock: () => NOW });
  await createProject(server.app, 'org', 'proj');
});
afterAll(() => server.close());

async function put(id: string, payload: object): Promise<void> {
  const response = await server.app.inject({ method: 'PUT', url: `/v1/resources/org/proj/_/${id}`, headers: alice, payload });
  expect(response.statusCode, response.body).toBe(201);
}

/**
 * Stores a payload whose types are no IRIs, as servers stored them before such types were refused at write:
 * the revisions they left must still render to well-formed statements.
 */
async function plant(id: string, payload: object, types: string[]): Promise<void> {
  const revisions = await RevisionStore.open(server.platform.store, () => NOW);
  await revisions.create('org/proj', `${base}${id}`, 'resource', { source: payload as Record<string, unknown>, types, processing: { base, vocab } }, OPERATOR);
}

async function render(id: string, accept: string): Promise<string> {
  const response = await server.app.inject({ method: 'GET', url: `/v1/resources/org/proj/_/${id}`, headers: { ...alice, accept } });
  expect(response.statusCode, response.body).toBe(200);
  return response.body;
}

// The N-Triples / N-Quads grammar, one statement per line (blank node labels in their ASCII subset).
const UCHAR = String.raw`\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8}`;
const IRIREF = String.raw`<(?:[^\u0000-\u0020<>"{}|^\x60\\]|${UCHAR})*>`;
const BLANK_NODE = String.raw`_:[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_-])?`;
const LITERAL = String.raw`"(?:[^"\\\n\r]|\\[tbnrf"'\\]|${UCHAR})*"(?:\^\^${IRIREF}|@[a-zA-Z]+(?:-[a-zA-Z0-9]+)*)?`;
const STATEMENT = new RegExp(`^(${IRIREF}|${BLANK_NODE}) (${IRIREF}) (${IRIREF}|${BLANK_NODE}|${LITERAL})(?: (${IRIREF}|${BLANK_NODE}))? \\.$`);

type Statement = string[];

/** Each line as its decoded terms; fails unless every line is one well-formed statement (a graph only in N-Quads). */
function parse(text: string, quads: boolean): Statement[] {
  expect(text.endsWith('\n')).toBe(true);
  return text
    .slice(0, -1)
    .split('\n')
    .map((line) => {
      const match = STATEMENT.exec(line);
      expect(match, line).not.toBeNull();
      if (!quads) expect(match![4], line).toBeUndefined();
      return match!.slice(1).filter((t) => t !== undefined).map(decodeTerm);
    });
}

function decodeTerm(term: string): string {
  if (term.startsWith('<')) return decodeUchars(term.slice(1, -1));
  if (term.startsWith('_:')) return term;
  const [, body, suffix] = /^"(.*)"(.*)$/s.exec(term)!;
  const value = decodeUchars(body.replace(/\\([tbnrf"'\\])/g, (_, c: string) => ({ t: '\t', b: '\b', n: '\n', r: '\r', f: '\f' })[c] ?? c));
  return `"${value}"${suffix.startsWith('^^') ? `^^${decodeUchars(suffix.slice(3, -1))}` : suffix}`;
}

function decodeUchars(text: string): string {
  return text.replace(/\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})/g, (_, short?: string, long?: string) => String.fromCodePoint(parseInt(short ?? long!, 16)));
}

/** Leaves out the platform's metadata statements. */
const own = (statements: Statement[]) => statements.filter(([, predicate]) => !predicate.startsWith(NXV));

describe('IRIs a payload chooses', () => {
  const id = `${base}hostile`;
  // Each would end its IRIREF early and write statements of its own if printed raw.
  const HOSTILE_VOCAB = 'http://x/v>.<http://evil/s><http://evil/p><http://evil/o>.<';
  const LINK = 'http://x/a>.<http://evil/s><http://evil/p><http://evil/o';
  // No IRI, refused at write now; a revision stored before may hold it.
  const TYPE = 'http://x/T>"{}|^`\\';
  // A type cannot hold a control character (refused at write, as the type filter could never find it); a datatype can.
  const DATATYPE = 'http://x/dt\u0001>.<http://evil/s';
  const GRAPH = 'http://x/graph>"';
  const TEXT = 'a "q" \\ b\nc\rd';
  const payload = {
    '@context': { '@vocab': HOSTILE_VOCAB, g: { '@id': 'http://x/g', '@container': ['@graph', '@id'] } },
    '@type': TYPE,
    link: { '@id': LINK },
    'q"\\{}|^`': 1,
    typed: { '@value': 'v', '@type': DATATYPE },
    tagged: [
      { '@value': 'bad', '@language': 'en .<http://evil/s> <http://evil/p> <http://evil/o' },
      { '@value': 'good', '@language': 'en-GB' },
    ],
    text: TEXT,
    node: { '@id': '_:a>b', name: 'blank' },
    g: { [GRAPH]: { '@id': 'http://x/n', 'http://x/p': 1 } },
  };
  const triples: Statement[] = [
    [id, RDF_TYPE, TYPE],
    [id, `${HOSTILE_VOCAB}link`, LINK],
    [id, `${HOSTILE_VOCAB}q"\\{}|^\``, `"1"^^${XSD}integer`],
    [id, `${HOSTILE_VOCAB}typed`, `"v"^^${DATATYPE}`],
    [id, `${HOSTILE_VOCAB}tagged`, '"good"@en-gb'],
    [id, `${HOSTILE_VOCAB}text`, `"${TEXT}"`],
    [id, `${HOSTILE_VOCAB}node`, '_:b0'],
    ['_:b0', `${HOSTILE_VOCAB}name`, '"blank"'],
    [id, 'http://x/g', GRAPH],
  ];
  const sorted = (statements: Statement[]) => statements.map((s) => JSON.stringify(s)).sort();
  beforeAll(() => plant('hostile', payload, [TYPE]));

  test('N-Triples: one well-formed statement per line, IRIs decoding back to the payload', async () => {
    const statements = parse(await render('hostile', 'application/n-triples'), false);
    expect(sorted(own(statements))).toEqual(sorted([...triples, ['http://x/n', 'http://x/p', `"1"^^${XSD}integer`]]));
    expect(statements.filter((s) => s.some((t) => t.startsWith('http://evil/')))).toEqual([]);
  });

  test('N-Quads: the same, graph names included', async () => {
    const statements = parse(await render('hostile', 'application/n-quads'), true);
    expect(sorted(own(statements))).toEqual(sorted([...triples, ['http://x/n', 'http://x/p', `"1"^^${XSD}integer`, GRAPH]]));
  });

  test('the exact characters an IRIREF forbids are escaped, as upper-case \\u escapes', async () => {
    const text = await render('hostile', 'application/n-triples');
    expect(text).toContain(`<${RDF_TYPE}> <http://x/T\\u003E\\u0022\\u007B\\u007D\\u007C\\u005E\\u0060\\u005C> .\n`);
    expect(text).toContain('"v"^^<http://x/dt\\u0001\\u003E.\\u003Chttp://evil/s> .\n');
    expect(text).toContain(`"${TEXT.replace(/["\\]/g, '\\$&').replace('\n', '\\n').replace('\r', '\\r')}" .\n`);
  });

  test('archive .nt and .nq entries are the same escaped renderings', async () => {
    const resources = [
      { '@type': 'Resource', resourceId: 'hostile', format: 'n-triples', path: '/hostile.nt' },
      { '@type': 'Resource', resourceId: 'hostile', format: 'n-quads', path: '/hostile.nq' },
    ];
    const created = await server.app.inject({ method: 'PUT', url: '/v1/archives/org/proj/escaped', headers: { ...alice, accept: 'application/json' }, payload: { resources } });
    expect(created.statusCode, created.body).toBe(201);
    const zip = await server.app.inject({ method: 'GET', url: '/v1/archives/org/proj/escaped', headers: { ...alice, accept: 'application/zip' } });
    const { entries } = await unzip(zip.rawPayload);
    expect(entries.get('hostile.nt')!.toString()).toBe(await render('hostile', 'application/n-triples'));
    expect(entries.get('hostile.nq')!.toString()).toBe(await render('hostile', 'application/n-quads'));
  });

  test('dot: every edge is one line of three closed strings that decode back to the terms', async () => {
    const lines = (await render('hostile', 'text/vnd.graphviz')).split('\n');
    expect(lines[0]).toBe(`digraph "${id}" {`);
    expect(lines.slice(-2)).toEqual(['}', '']);
    const string = String.raw`"((?:[^"\\\n]|\\.)*)"`;
    const edge = new RegExp(`^  ${string} -> ${string} \\[label = ${string}\\]$`);
    const edges = lines.slice(1, -2).map((line) => {
      const match = edge.exec(line);
      expect(match, line).not.toBeNull();
      return match!.slice(1).map((quoted) => quoted.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c)));
    });
    expect(edges).toContainEqual([id, LINK, `${HOSTILE_VOCAB}link`]);
    expect(edges).toContainEqual([id, TYPE, RDF_TYPE]);
    expect(edges).toContainEqual([id, TEXT, `${HOSTILE_VOCAB}text`]);
    expect(edges).not.toContainEqual([id, 'bad', `${HOSTILE_VOCAB}tagged`]);
  });
});

describe('IRIs holding white space', () => {
  // jsonld.js takes them for relative IRIs: it kept them in the expanded form, and dropped every statement naming one.
  const id = `${base}spaced`;
  const payload = {
    // No IRI once expanded, refused at write now; a revision stored before may hold it.
    '@type': 'Lab Member',
    link: { '@id': 'http://x/a\tb' },
    see: { '@id': 'http://x/no\u00a0break' },
    member: { '@id': 'http://x/s p', name: 'n' },
    // A key is no property once it expands to an IRI with white space: JSON-LD drops it from every processed form.
    'first name': 'Ada',
  };
  const triples: Statement[] = [
    [id, RDF_TYPE, `${vocab}Lab Member`],
    [id, `${vocab}link`, 'http://x/a\tb'],
    [id, `${vocab}see`, 'http://x/no\u00a0break'],
    [id, `${vocab}member`, 'http://x/s p'],
    ['http://x/s p', `${vocab}name`, '"n"'],
  ];
  const sorted = (statements: Statement[]) => statements.map((s) => JSON.stringify(s)).sort();
  beforeAll(() => plant('spaced', payload, [`${vocab}Lab Member`]));

  test('N-Triples and N-Quads state what the expanded form holds, the white space escaped where an IRIREF forbids it', async () => {
    const read = await server.app.inject({ method: 'GET', url: '/v1/resources/org/proj/_/spaced?format=expanded', headers: alice });
    const expanded = read.json<Record<string, unknown>[]>();
    expect(expanded[0]!['@type']).toEqual([`${vocab}Lab Member`]);
    expect(Object.keys(expanded[0]!).filter((key) => key.includes('first'))).toEqual([]);
    const text = await render('spaced', 'application/n-triples');
    expect(sorted(own(parse(text, false)))).toEqual(sorted(triples));
    expect(sorted(own(parse(await render('spaced', 'application/n-quads'), true)))).toEqual(sorted(triples));
    expect(text).toContain(`<${id}> <${RDF_TYPE}> <${vocab}Lab\\u0020Member> .\n`);
    expect(text).toContain(`<${id}> <${vocab}link> <http://x/a\\u0009b> .\n`);
    // A no-break space is no character an IRIREF forbids: written as it is.
    expect(text).toContain(`<${id}> <${vocab}see> <http://x/no\u00a0break> .\n`);
  });

  test('dot keeps their edges', async () => {
    const text = await render('spaced', 'text/vnd.graphviz');
    expect(text).toContain(`  "${id}" -> "http://x/s p" [label = "${vocab}member"]\n`);
    expect(text).toContain(`  "http://x/s p" -> "n" [label = "${vocab}name"]\n`);
  });
});

describe('an ordinary resource', () => {
  // Rendered by the server before IRIs were escaped: the output must not change.
  const ada = `<${base}ada>`;
  const v = (term: string) => `<${vocab}${term}>`;
  const nxv = (term: string) => `<${NXV}${term}>`;
  const xsd = (type: string) => `<${XSD}${type}>`;
  const at = `"2024-01-02T03:04:05.000Z"^^${xsd('dateTime')}`;
  const alicesId = `${BASE}/v1/realms/local/users/alice`;
  const BEFORE = [
    `${ada} ${v('address')} _:b0 .`,
    `${ada} ${v('age')} "36"^^${xsd('integer')} .`,
    `${ada} ${v('alive')} "false"^^${xsd('boolean')} .`,
    `${ada} ${v('born')} "1815-12-10"^^${xsd('date')} .`,
    `${ada} ${v('knows')} <https://example.org/people/babbage> .`,
    `${ada} ${v('label')} "bonjour"@fr .`,
    `${ada} ${v('name')} "Ada \\"the first\\" \\\\ Lovelace\\nline two\ttab" .`,
    `${ada} ${v('ratio')} "1.5E0"^^${xsd('double')} .`,
    `${ada} <${RDF_TYPE}> ${v('Person')} .`,
    `${ada} <${RDF_TYPE}> <https://schema.org/Person> .`,
    `${ada} ${nxv('constrainedBy')} <https://bluebrain.github.io/nexus/schemas/unconstrained.json> .`,
    `${ada} ${nxv('createdAt')} ${at} .`,
    `${ada} ${nxv('createdBy')} <${alicesId}> .`,
    `${ada} ${nxv('deprecated')} "false"^^${xsd('boolean')} .`,
    `${ada} ${nxv('project')} "org/proj" .`,
    `${ada} ${nxv('rev')} "1"^^${xsd('long')} .`,
    `${ada} ${nxv('self')} <${base}${encodeURIComponent(`${base}ada`)}> .`,
    `${ada} ${nxv('updatedAt')} ${at} .`,
    `${ada} ${nxv('updatedBy')} <${alicesId}> .`,
    `_:b0 ${v('city')} "London" .`,
    '',
  ].join('\n');

  const edge = (to: string, label: string, from = `${base}ada`) => `  "${from}" -> "${to}" [label = "${label}"]`;
  const DOT_BEFORE = [
    `digraph "${base}ada" {`,
    edge('London', `${vocab}city`, '_:b0'),
    edge('1', `${NXV}rev`),
    edge('1.5E0', `${vocab}ratio`),
    edge('1815-12-10', `${vocab}born`),
    edge('2024-01-02T03:04:05.000Z', `${NXV}createdAt`),
    edge('2024-01-02T03:04:05.000Z', `${NXV}updatedAt`),
    edge('36', `${vocab}age`),
    edge('Ada \\"the first\\" \\\\ Lovelace\\nline two\ttab', `${vocab}name`),
    edge('_:b0', `${vocab}address`),
    edge('bonjour', `${vocab}label`),
    edge('false', `${vocab}alive`),
    edge('false', `${NXV}deprecated`),
    edge(alicesId, `${NXV}createdBy`),
    edge(alicesId, `${NXV}updatedBy`),
    edge(`${base}${encodeURIComponent(`${base}ada`)}`, `${NXV}self`),
    edge(`${vocab}Person`, RDF_TYPE),
    edge('https://bluebrain.github.io/nexus/schemas/unconstrained.json', `${NXV}constrainedBy`),
    edge('https://example.org/people/babbage', `${vocab}knows`),
    edge('https://schema.org/Person', RDF_TYPE),
    edge('org/proj', `${NXV}project`),
    '}',
    '',
  ].join('\n');

  test('renders N-Triples, N-Quads and dot exactly as before', async () => {
    await put('ada', {
      '@context': { schema: 'https://schema.org/' },
      '@type': ['Person', 'schema:Person'],
      name: 'Ada "the first" \\ Lovelace\nline two\ttab',
      label: { '@value': 'bonjour', '@language': 'fr' },
      born: { '@value': '1815-12-10', '@type': `${XSD}date` },
      age: 36,
      ratio: 1.5,
      alive: false,
      knows: { '@id': 'https://example.org/people/babbage' },
      address: { city: 'London' },
    });
    expect(await render('ada', 'application/n-triples')).toBe(BEFORE);
    expect(await render('ada', 'application/n-quads')).toBe(BEFORE);
    expect(await render('ada', 'text/vnd.graphviz')).toBe(DOT_BEFORE);
  });
});
