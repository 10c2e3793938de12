/**
 * Every character a renderer shows as nothing (Unicode's Default_Ignorable_Code_Point, and the braille
 * blank) makes one name look like another: refused in file names, archive paths and ACL names. The
 * joiners and variation selectors that real names (scripts, emoji sequences) need stay accepted, and so
 * do the tag characters of the subdivision flags vendors draw (🏴 + tag letters + CANCEL TAG for England,
 * Scotland and Wales), but nowhere else: not even in another well-formed flag, shown as a plain 🏴.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { TOKENS, type TestServer, bearer, createProject, multipart, startServer } from './helpers.js';

let server: TestServer;
const alice = bearer(TOKENS.alice);

beforeAll(async () => {
  server = await startServer();
  await createProject(server.app, 'org', 'proj');
  await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/r1', headers: alice, payload: { name: 'r1' } });
});
afterAll(() => server.close());

/** Invisible characters the check once let through, each as its code point. */
const INVISIBLE = [
  0x2061, 0x2062, 0x2063, 0x2064, // invisible operators
  0x3164, 0x115f, 0x1160, 0xffa0, // Hangul fillers
  0x180e, 0x034f, 0x17b4, 0x1d173, // Mongolian vowel separator, grapheme joiner, Khmer vowel, musical formatting
  0xe0001, 0xe0041, 0xe007f, // tag characters
  0x2800, // braille blank
];
const cases = INVISIBLE.map((codePoint) => {
  const hex = codePoint.toString(16).toUpperCase().padStart(4, '0');
  return [`U+${hex}`, String.fromCodePoint(codePoint)] as const;
});

const fileCount = async () => (await server.app.inject({ method: 'GET', url: '/v1/files/org/proj', headers: alice })).json()._total;
const aclRev = async () => (await server.app.inject({ method: 'GET', url: '/v1/acls/org/proj?self=false', headers: alice })).json()._results[0]?._rev ?? 0;

async function upload(filename: string) {
  const body = await multipart(filename, 'content', 'text/plain');
  return server.app.inject({ method: 'POST', url: '/v1/files/org/proj', headers: { ...alice, ...body.headers }, payload: body.payload });
}

function postArchive(path: string) {
  return server.app.inject({
    method: 'POST',
    url: '/v1/archives/org/proj',
    headers: { ...alice, accept: 'application/json' },
    payload: { resources: [{ '@type': 'Resource', resourceId: 'r1', path }] },
  });
}

function grantTo(subject: string, rev: number) {
  return server.app.inject({
    method: 'PATCH',
    url: `/v1/acls/org/proj?rev=${rev}`,
    headers: alice,
    payload: { '@type': 'Append', acl: [{ identity: { '@type': 'User', realm: 'local', subject }, permissions: ['resources/read'] }] },
  });
}

describe('invisible characters are refused', () => {
  test.each(cases)('%s in a file name: 400 InvalidFile, nothing stored', async (_codePoint, character) => {
    const before = await fileCount();
    const response = await upload(`invoice${character}.pdf`);
    expect(response.statusCode).toBe(400);
    expect(response.json()['@type']).toBe('InvalidFile');
    expect(response.json().reason).toContain('invisible characters');
    expect(await fileCount()).toBe(before);
  });

  test.each(cases)('%s in an archive path: 400 DecodingFailed', async (_codePoint, character) => {
    const response = await postArchive(`/in${character}voice.json`);
    expect(response.statusCode).toBe(400);
    expect(response.json()['@type']).toBe('DecodingFailed');
    expect(response.json().reason).toContain('invisible characters');
  });

  test.each(cases)('%s in an ACL subject: 400 DecodingFailed naming it, the ACL unchanged', async (codePoint, character) => {
    const rev = await aclRev();
    const response = await grantTo(`ali${character}ce`, rev);
    expect(response.statusCode).toBe(400);
    expect(response.json()['@type']).toBe('DecodingFailed');
    expect(response.json().reason).toContain(`holds ${codePoint}`);
    expect(await aclRev()).toBe(rev);
  });
});

describe('joiners and variation selectors stay accepted', () => {
  const names = [
    ['an emoji sequence with a zero-width joiner and a variation selector', 'team-\u{1F3F3}\uFE0F\u200D\u{1F308}.png'],
    ['a zero-width non-joiner (Persian)', 'می\u200cخواهم.txt'],
    ['an ideographic variation selector', '\u845B\u{E0100}.txt'],
  ];

  test.each(names)('%s in a file name', async (_kind, filename) => {
    const response = await upload(filename);
    expect(response.statusCode).toBe(201);
    expect(response.json()._filename).toBe(filename);
  });

  test.each(names)('%s in an archive path', async (_kind, name) => {
    expect((await postArchive(`/${name}`)).statusCode).toBe(201);
  });

  test.each(names)('%s in an ACL subject', async (_kind, name) => {
    expect((await grantTo(name, await aclRev())).statusCode).toBe(200);
  });
});

/** A text in tag characters: the invisible twin of each ASCII character. */
const inTags = (text: string) => Array.from(text, (c) => String.fromCodePoint(0xe0000 + c.codePointAt(0)!)).join('');
const BLACK_FLAG = '\u{1F3F4}';
const CANCEL_TAG = '\u{E007F}';
const subdivisionFlag = (id: string) => `${BLACK_FLAG}${inTags(id)}${CANCEL_TAG}`;

describe('subdivision flags are accepted', () => {
  const flags = ['gbsct', 'gbwls', 'gbeng'].map((id) => [id, `team-${subdivisionFlag(id)}.png`] as const);

  test.each(flags)('%s in a file name', async (_id, filename) => {
    const response = await upload(filename);
    expect(response.statusCode).toBe(201);
    expect(response.json()._filename).toBe(filename);
  });

  test.each(flags)('%s in an archive path', async (_id, name) => {
    expect((await postArchive(`/${name}`)).statusCode).toBe(201);
  });

  test.each(flags)('%s in an ACL subject', async (_id, name) => {
    expect((await grantTo(name, await aclRev())).statusCode).toBe(200);
  });
});

describe('tag characters outside a subdivision flag stay refused', () => {
  const misplaced = [
    ['stray tag letters', `scot${inTags('gbsct')}land`, 'U+E0067'],
    ['a stray CANCEL TAG', `scot${CANCEL_TAG}land`, 'U+E007F'],
    ['an unterminated flag', `${BLACK_FLAG}${inTags('gbsct')}land`, 'U+E0067'],
    ['tags after another base than the black flag', `\u{1F3F3}${inTags('gbsct')}${CANCEL_TAG}`, 'U+E0067'],
    ['tags after a whole flag', `${subdivisionFlag('gbsct')}${inTags('x')}`, 'U+E0078'],
    ['a flag whose id is longer than a subdivision id', subdivisionFlag('gbsctxyz'), 'U+E0067'],
    ['a well-formed flag no vendor draws (California), shown as a plain black flag', subdivisionFlag('usca'), 'U+E0075'],
    ['a well-formed flag whose id holds digits (Paris)', subdivisionFlag('fr75'), 'U+E0066'],
    ['a drawn flag\'s id cut short', subdivisionFlag('gbsc'), 'U+E0067'],
  ];

  test.each(misplaced)('%s in a file name: 400 InvalidFile, nothing stored', async (_kind, name) => {
    const before = await fileCount();
    const response = await upload(`${name}.txt`);
    expect(response.statusCode).toBe(400);
    expect(response.json()['@type']).toBe('InvalidFile');
    expect(response.json().reason).toContain('invisible characters');
    expect(await fileCount()).toBe(before);
  });

  test.each(misplaced)('%s in an archive path: 400 DecodingFailed', async (_kind, name) => {
    const response = await postArchive(`/${name}.json`);
    expect(response.statusCode).toBe(400);
    expect(response.json()['@type']).toBe('DecodingFailed');
    expect(response.json().reason).toContain('invisible characters');
  });

  test.each(misplaced)('%s in an ACL subject: 400 naming the tag character, the ACL unchanged', async (_kind, name, codePoint) => {
    const rev = await aclRev();
    const response = await grantTo(name, rev);
    expect(response.statusCode).toBe(400);
    expect(response.json()['@type']).toBe('DecodingFailed');
    expect(response.json().reason).toContain(`holds ${codePoint}`);
    expect(await aclRev()).toBe(rev);
  });
});
