import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { type DecodeContext, MAX_REPORTED_PROBLEMS, boundedProblems, decodeEntries } from '../../src/archive/definition.js';
import { layoutProblems } from '../../src/archive/layout.js';
import { findPathConflicts, flatEncode, normalizeArchivePath, lengthLimitProblem } from '../../src/archive/paths.js';

const BASE = 'http://h.test';
const context: DecodeContext = {
  archiveProject: { org: 'org', project: 'proj' },
  baseOf: (p) => `${BASE}/v1/resources/${p.org}/${p.project}/_/`,
  expandsToFileId: () => true,
  baseUri: BASE,
};
const decode = (resources: unknown) => decodeEntries({ resources }, context);
type FileOf = Parameters<typeof layoutProblems>[2];
/** The problems a creation reports, as the archives service gathers them: the entries', then the layout's. */
function problemsOf(resources: unknown, fileOf: FileOf = () => null): string[] {
  const { entries, indexes, problems } = decode(resources);
  return boundedProblems([...problems, ...layoutProblems(entries, indexes, fileOf)]);
}

describe('decoding', () => {
  test('a valid definition: defaults, relative ids resolved against the entry project base, originalSource as format, the largest revision', () => {
    const { entries, problems } = decode([
      { '@type': 'Resource', resourceId: 'r1' },
      { '@type': 'Resource', resourceId: 'demo-000', project: 'literature/articles', originalSource: true, rev: 1 },
      { '@type': 'File', resourceId: 'https://elsewhere.test/f', path: '//a//b/c.bin/', tag: 'v1' },
      { '@type': 'FileSelf', value: `${BASE}/v1/files/org/proj/f1?rev=2` },
      { '@type': 'Resource', resourceId: 'r2', rev: 2 ** 31 },
    ]);
    expect(problems).toEqual([]);
    expect(entries).toEqual([
      { type: 'Resource', resourceId: `${BASE}/v1/resources/org/proj/_/r1`, project: 'org/proj', format: 'compacted' },
      { type: 'Resource', resourceId: `${BASE}/v1/resources/literature/articles/_/demo-000`, project: 'literature/articles', rev: 1, format: 'source', given: { project: 'literature/articles', originalSource: true } },
      { type: 'File', resourceId: 'https://elsewhere.test/f', project: 'org/proj', path: '/a/b/c.bin', tag: 'v1' },
      { type: 'FileSelf', value: `${BASE}/v1/files/org/proj/f1?rev=2` },
      { type: 'Resource', resourceId: `${BASE}/v1/resources/org/proj/_/r2`, project: 'org/proj', rev: 2 ** 31, format: 'compacted' },
    ]);
  });

  test('identical entries are one entry', () => {
    const entry = { '@type': 'Resource', resourceId: 'r1', path: '/x.json' };
    expect(decode([entry, { ...entry }]).entries).toHaveLength(1);
  });

  test('entries are one when they differ only in defaults spelt out, spelling or field order, and two otherwise', () => {
    const r1 = `${BASE}/v1/resources/org/proj/_/r1`;
    const same: [object, object][] = [
      [{ '@type': 'Resource', resourceId: 'r1' }, { resourceId: r1, '@type': 'Resource', project: 'org/proj', format: 'compacted' }],
      [{ '@type': 'Resource', resourceId: 'r1', originalSource: false }, { '@type': 'Resource', resourceId: 'r1' }],
      [{ '@type': 'Resource', resourceId: 'r1', originalSource: true }, { '@type': 'Resource', resourceId: 'r1', format: 'source' }],
      [{ '@type': 'Resource', resourceId: 'r1' }, { '@type': 'Resource', resourceId: 'r1', path: `/org/proj/compacted/${flatEncode(r1)}.json` }],
      [{ '@type': 'File', resourceId: 'f1', path: '//a//b.bin/' }, { '@id': '_:f', '@type': 'File', resourceId: 'f1', path: '/a/b.bin' }],
      [{ '@type': 'FileSelf', value: `${BASE}/v1/files/org/proj/f1` }, { value: `${BASE}/v1/files/org/proj/f1`, '@type': 'FileSelf' }],
    ];
    for (const [first, second] of same) expect(decode([first, second]).entries, JSON.stringify([first, second])).toHaveLength(1);
    const two: [object, object][] = [
      [{ '@type': 'Resource', resourceId: 'r1', rev: 1 }, { '@type': 'Resource', resourceId: 'r1', tag: '1' }],
      [{ '@type': 'Resource', resourceId: 'r1', rev: 1 }, { '@type': 'Resource', resourceId: 'r1' }],
      [{ '@type': 'Resource', resourceId: 'r1', tag: '\u00e9' }, { '@type': 'Resource', resourceId: 'r1', tag: 'e\u0301' }],
      [{ '@type': 'File', resourceId: 'f1', path: '/\u00e9.bin' }, { '@type': 'File', resourceId: 'f1', path: '/e\u0301.bin' }],
      [{ '@type': 'Resource', resourceId: 'r1', format: 'expanded' }, { '@type': 'Resource', resourceId: 'r1' }],
      [{ '@type': 'Resource', resourceId: 'r1' }, { '@type': 'File', resourceId: 'r1' }],
      [{ '@type': 'File', resourceId: 'f1' }, { '@type': 'File', resourceId: 'f1', path: '/f1.bin' }],
      [{ '@type': 'File', resourceId: r1 }, { '@type': 'File', resourceId: r1, project: 'org/other' }],
      // Fields that, written one after the other without their lengths, would read the same.
      [{ '@type': 'Resource', resourceId: 'r1', tag: 't compacted /p' }, { '@type': 'Resource', resourceId: 'r1', tag: 't', path: '/p compacted -' }],
    ];
    for (const [first, second] of two) expect(decode([first, second]).entries, JSON.stringify([first, second])).toHaveLength(2);
  });

  test('an entry written again keeps the place and index of the first, with the fields echoed as written last', () => {
    const { entries, indexes } = decode([
      { '@type': 'Resource', resourceId: 'r1' },
      { '@type': 'Resource', resourceId: 'r2' },
      { '@type': 'Resource', resourceId: 'r1', format: 'compacted' },
    ]);
    expect(indexes).toEqual([0, 1]);
    expect(entries.map((entry) => (entry.type === 'FileSelf' ? undefined : entry.given))).toEqual([{ format: 'compacted' }, undefined]);
  });

  test('every problem of the payload is reported at once', () => {
    const { problems } = decode([
      'not an object',
      { '@type': 'Folder' },
      { '@type': 'Resource' },
      { '@type': 'Resource', resourceId: 'a', rev: 1, tag: 't' },
      { '@type': 'Resource', resourceId: 'a', originalSource: true, format: 'source' },
      { '@type': 'Resource', resourceId: 'a', format: 'turtle' },
      { '@type': 'Resource', resourceId: 'a', rev: 0 },
      { '@type': 'Resource', resourceId: 'a', path: false },
      { '@type': 'File', resourceId: 'a', path: 'some/other' },
      { '@type': 'File', resourceId: 'a', path: '' },
      { '@type': 'File', resourceId: 'a', path: '/a/../../etc/passwd' },
      { '@type': 'File', resourceId: 'a', path: '/a/./b' },
      { '@type': 'File', resourceId: 'a', path: '/a\\b' },
      { '@type': 'File', resourceId: 'a', path: '/' },
      { '@type': 'File', resourceId: 'a', project: 'not-a-project' },
      { '@type': 'File', resourceId: 'bad:<x>' },
      { '@type': 'FileSelf', value: 'https://other.test/v1/files/org/proj/f' },
      { '@type': 'FileSelf', value: 'relative/link' },
      { '@type': 'FileSelf', value: `${BASE}/v1/files/org/f` },
      { '@type': 'FileSelf' },
      { '@type': 'Resource', resourceId: 'a', rev: 2 ** 31 + 1 },
      { '@type': 'File', resourceId: 'a', rev: 1.5 },
    ]);
    expect(problems).toEqual([
      'resources[0]: each entry must be an object.',
      "resources[1]: '@type' must be one of Resource, File, FileSelf.",
      "resources[2]: 'resourceId' must be a non-empty string (an IRI, or relative to the project base).",
      "resources[3]: An archive resource reference cannot use both 'rev' and 'tag' fields.",
      "resources[4]: An archive resource reference cannot use both 'originalSource' and 'format' fields.",
      "resources[5]: 'format' must be one of source, annotated-source, compacted, expanded, n-triples, n-quads, dot.",
      "resources[6]: 'rev' must be a positive integer, at most 2147483648.",
      "resources[7]: 'path' must be a string.",
      "resources[8]: The provided path 'some/other' is not absolute.",
      "resources[9]: The provided path '' is not absolute.",
      "resources[10]: The provided path '/a/../../etc/passwd' must not contain '.' or '..' segments.",
      "resources[11]: The provided path '/a/./b' must not contain '.' or '..' segments.",
      "resources[12]: The provided path '/a\\b' must not contain backslashes, control, bidirectional or invisible characters.",
      "resources[13]: The provided path '/' does not name a file.",
      `resources[14]: 'project' must be of the form 'org/project', got "not-a-project".`,
      "resources[15]: 'resourceId' 'bad:<x>' is not a valid IRI.",
      "resources[16]: 'https://other.test/v1/files/org/proj/f' has been resolved as an external link.",
      "resources[17]: 'relative/link' is not an absolute link.",
      `resources[18]: '${BASE}/v1/files/org/f' does not provide the expected path.`,
      "resources[19]: 'value' must be the '_self' of a file, as a string.",
      "resources[20]: 'rev' must be a positive integer, at most 2147483648.",
      "resources[21]: 'rev' must be a positive integer, at most 2147483648.",
    ]);
  });

  test('a field of no entry type is refused, named; one of the other type is ignored, as in the reference', () => {
    const long = `x${'é'.repeat(99)}`;
    const { problems } = decode([
      { '@type': 'Resource', resourceId: 'r1', pth: '/a.json' },
      { '@type': 'File', resourceId: 'f1', fromat: 'source', [long]: 1 },
      { '@typ': 'FileSelf', value: `${BASE}/v1/files/org/proj/f1` },
    ]);
    expect(problems).toEqual([
      "resources[0]: unknown field 'pth'.",
      "resources[1]: unknown field 'fromat'.",
      `resources[1]: unknown field '${long.slice(0, 64)}… (100 characters)'.`,
      "resources[2]: unknown field '@typ'.",
      "resources[2]: '@type' must be one of Resource, File, FileSelf.",
    ]);
    const { entries, problems: none } = decode([
      { '@type': 'File', resourceId: 'f1', format: 'source', originalSource: true, value: 'ignored' },
      { '@type': 'FileSelf', value: `${BASE}/v1/files/org/proj/f1`, resourceId: 'ignored', project: 'ignored', rev: 'ignored', format: 'turtle' },
      { '@context': { x: 'http://x.test/' }, '@id': '_:entry', '@index': 'first', '@type': 'Resource', resourceId: 'r1' },
    ]);
    expect(none).toEqual([]);
    expect(entries).toEqual([
      { type: 'File', resourceId: `${BASE}/v1/resources/org/proj/_/f1`, project: 'org/proj' },
      { type: 'FileSelf', value: `${BASE}/v1/files/org/proj/f1` },
      { type: 'Resource', resourceId: `${BASE}/v1/resources/org/proj/_/r1`, project: 'org/proj', format: 'compacted' },
    ]);
  });

  test('path conflicts among the valid entries come with the entry problems, each line naming its entries', () => {
    const problems = problemsOf([
      { '@type': 'Resource', resourceId: 'r1', path: '/same.json' },
      { '@type': 'Resource', resourceId: 'r1', pth: '/x' },
      { '@type': 'Resource', resourceId: 'r2', path: '/same.json' },
      { '@type': 'Resource', resourceId: 'r3', path: '/Same.json' },
      { '@type': 'Resource', resourceId: 'r4', path: '/dir' },
      { '@type': 'Resource', resourceId: 'r5', path: '/dir/inside.json' },
      { '@type': 'Resource', resourceId: 'r6', path: '/Dir/other.json' },
      { '@type': 'Resource', resourceId: 'r7', path: `/${'n'.repeat(100)}` },
      { '@type': 'Resource', resourceId: `r${'x'.repeat(60)}` },
      { '@type': 'Resource', resourceId: 'r1' },
      { '@type': 'Resource', resourceId: 'r8', path: '/org/proj/compacted' },
      { '@type': 'Resource', resourceId: 'r1', path: '/same.json' },
    ]);
    expect(problems).toEqual([
      "resources[1]: unknown field 'pth'.",
      `resources[7]: The paths '/${'n'.repeat(100)}' must have a file path prefix at most 154 characters long and a file path name at most 99 characters long: its file name has 100 characters.`,
      `resources[8]: The resource ids '${BASE}/v1/resources/org/proj/_/r${'x'.repeat(60)}' generate a file name exceeding 99 characters, please define a path for each of them.`,
      // resources[11] is resources[0] written again: one entry, no conflict.
      "resources[0], resources[2]: The paths 'same.json' have been used multiple times in the archive.",
      "resources[0], resources[2], resources[3]: The paths 'Same.json', 'same.json' differ only in letter case or Unicode normalisation: they would be one file on Windows and macOS.",
      "resources[4], resources[5], resources[6]: The path 'dir' is used both as a file and as a directory (holding 'dir/inside.json') in the archive.",
      `resources[9], resources[10]: The path 'org/proj/compacted' is used both as a file and as a directory (holding 'org/proj/compacted/${flatEncode(`${BASE}/v1/resources/org/proj/_/r1`)}.json') in the archive.`,
    ]);
  });

  test('the list of problems is bounded; so are the entries a conflict line names', () => {
    const many = Array.from({ length: MAX_REPORTED_PROBLEMS + 50 }, (_, i) => ({ '@type': 'Resource', resourceId: `r${i}`, path: '/same.json' }));
    expect(problemsOf(many)).toEqual([
      `${Array.from({ length: 10 }, (_, i) => `resources[${i}]`).join(', ')} and ${MAX_REPORTED_PROBLEMS + 40} more entries: The paths 'same.json' have been used multiple times in the archive.`,
    ]);
    const problems = problemsOf(many.map((entry) => ({ ...entry, pth: 'x' })));
    expect(problems).toHaveLength(MAX_REPORTED_PROBLEMS + 1);
    expect(problems[MAX_REPORTED_PROBLEMS - 1]).toBe(`resources[${MAX_REPORTED_PROBLEMS - 1}]: unknown field 'pth'.`);
    expect(problems[MAX_REPORTED_PROBLEMS]).toBe('… and 50 more problems.');
  });

  test('resources must be a non-empty array', () => {
    expect(decode([]).problems).toEqual(["The 'resources' field must be a non-empty array of entries."]);
    expect(decodeEntries({}, context).problems).toEqual(["The 'resources' field must be a non-empty array of entries."]);
  });
});

describe('paths', () => {
  test('ustar limits: file name at most 99 characters, parent at most 154', () => {
    const name = (n: number) => 'n'.repeat(n);
    expect(lengthLimitProblem(`/${name(99)}`)).toBeNull();
    expect(lengthLimitProblem(`/${name(100)}`)).toMatch(/ at most 99 characters long: its file name has 100 characters\.$/);
    const parent154 = `/${name(153)}`; // the leading slash counts
    expect(lengthLimitProblem(`${parent154}/f`)).toBeNull();
    expect(lengthLimitProblem(`${parent154}x/f`)).toMatch(/ at most 99 characters long: its folders have 155 characters\.$/);
    // Characters, not bytes, nor UTF-16 units: an emoji is one character.
    expect(lengthLimitProblem(`/${'é'.repeat(99)}`)).toBeNull();
    expect(lengthLimitProblem(`/${'\u{1F9E0}'.repeat(99)}`)).toBeNull();
    expect(lengthLimitProblem(`/${'\u{1F9E0}'.repeat(100)}`)).toMatch(/^The paths '\/\u{1F9E0}{100}' must have a file path prefix at most 154 characters long and a file path name at most 99 characters long: its file name has 100 characters\.$/u);
  });

  test('normalised paths never escape: always absolute, no empty, "." or ".." segment', () => {
    const segment = fc.oneof(fc.constantFrom('', '.', '..', 'a', 'b.txt', '...'), fc.string({ maxLength: 5 }));
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 8 }), (segments) => {
        const checked = normalizeArchivePath(`/${segments.join('/')}`);
        if ('problem' in checked) return;
        expect(checked.path.startsWith('/')).toBe(true);
        for (const part of checked.path.slice(1).split('/')) expect(['', '.', '..']).not.toContain(part);
      }),
    );
  });

  test('a name no system may hold is refused for the rule it breaks, named (a list of every rule had been given)', () => {
    const problemOf = (path: string) => (normalizeArchivePath(path) as { problem: string }).problem;
    expect(problemOf('/data/a?b.txt')).toBe(
      `The path '/data/a?b.txt' cannot be extracted on every system: 'a?b.txt': it contains '?', which Windows does not allow in names (nor < > : " | ? *).`,
    );
    expect(problemOf('/data/AUX.txt')).toBe("The path '/data/AUX.txt' cannot be extracted on every system: 'AUX.txt': 'AUX' is a device name Windows reserves, with or without an extension.");
    expect(problemOf('/data./x')).toBe("The path '/data./x' cannot be extracted on every system: 'data.': it ends with a dot, which Windows removes.");
    expect(problemOf('/x/name ')).toBe("The path '/x/name ' cannot be extracted on every system: 'name ': it ends with a space, which Windows removes.");
  });

  test('flat encoding keeps letters, digits, dot, underscore and hyphen only', () => {
    expect(flatEncode('https://h.test/v1/x?rev=1')).toBe('https%3A%2F%2Fh.test%2Fv1%2Fx%3Frev%3D1');
    expect(flatEncode('é')).toBe('%C3%A9');
    fc.assert(
      fc.property(fc.string(), (text) => {
        expect(flatEncode(text)).toMatch(/^[A-Za-z0-9._%-]*$/);
      }),
    );
  });

  test('flat encoding escapes exactly the UTF-8 bytes of every other character, a lone surrogate as U+FFFD', () => {
    const anyUnit = fc.oneof(fc.constantFrom('\uD800', '\uDFFF', '%', '/'), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }));
    const escapedBytes = (flat: string) => [...flat.matchAll(/%([0-9A-F]{2})/g)].map(([, hex]) => parseInt(hex!, 16));
    fc.assert(
      fc.property(fc.string({ unit: anyUnit }), (text) => {
        const flat = flatEncode(text);
        const bytes = Buffer.from(flat.replace(/%([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1');
        expect(bytes).toEqual(Buffer.from(new TextEncoder().encode(text)));
        expect(escapedBytes(flat).filter((byte) => /[A-Za-z0-9._-]/.test(String.fromCharCode(byte)))).toEqual([]);
      }),
    );
  });

  test('conflicts: duplicates, and names used both as a file and as a directory', () => {
    expect(findPathConflicts(['a/b', 'a/b', 'c', 'c/d', 'e/f'])).toEqual({ duplicates: ['a/b'], lookAlike: [], fileAndDirectory: [{ name: 'c', inside: 'c/d' }] });
    expect(findPathConflicts(['x/Y', 'x/y', 'X/y/z'])).toEqual({
      duplicates: [],
      lookAlike: [['x/Y', 'x/y']],
      fileAndDirectory: [
        { name: 'x/Y', inside: 'X/y/z' },
        { name: 'x/y', inside: 'X/y/z' },
      ],
    });
  });
});

describe('layout', () => {
  test("files' default names are checked with the other names, each line naming its entries", () => {
    const id = (name: string) => `${BASE}/v1/resources/org/proj/_/${name}`;
    // f1 and f2 are two files both named "same.txt"; f3's name holds a character Windows refuses.
    const fileOf: FileOf = (entry) => ({ project: 'org/proj', filename: entry.type === 'File' && entry.resourceId === id('f3') ? 'a?b.txt' : 'same.txt' });
    const problems = problemsOf(
      [
        { '@type': 'Resource', resourceId: 'r1', path: '/org/proj/file/same.txt' },
        { '@type': 'Resource', resourceId: 'r2', pth: '/x' },
        { '@type': 'File', resourceId: 'f1' },
        { '@type': 'File', resourceId: 'f2' },
        { '@type': 'File', resourceId: 'f3' },
      ],
      fileOf,
    );
    expect(problems).toHaveLength(3);
    expect(problems[0]).toBe("resources[1]: unknown field 'pth'.");
    expect(problems[1]).toMatch(/^resources\[4\]: The path 'org\/proj\/file\/a\?b\.txt' cannot be extracted on every system/);
    expect(problems[2]).toBe("resources[0], resources[2], resources[3]: The paths 'org/proj/file/same.txt' have been used multiple times in the archive.");
  });

  test('default names of files that cannot be looked up yet are left to the download', () => {
    expect(
      problemsOf([
        { '@type': 'File', resourceId: 'f1' },
        { '@type': 'File', resourceId: 'f2' },
      ]),
    ).toEqual([]);
  });
});
