/**
 * Paths of entries inside an archive. Explicit paths must be absolute; they
 * are normalised (duplicate and trailing slashes), and `.`/`..` segments,
 * backslashes and control characters are refused so no entry can land outside
 * the directory it is extracted to. Inside the ZIP the leading `/` is dropped:
 * ZIP entry names must be relative.
 *
 * The length limits are the old ustar ones the reference keeps for
 * compatibility: file name at most 99 characters, parent at most 154.
 *
 * Names must also extract everywhere: no segment that Windows refuses or
 * rewrites (drive letters and other `:`, `<>"|?*`, reserved device names
 * such as `CON` or `LPT1.txt`, trailing dots or spaces), none longer than
 * Linux and macOS file systems take (255 bytes of UTF-8: the limits above
 * count characters, and 99 emoji are 396 bytes), and no two names of one
 * archive that a case-insensitive, normalisation-insensitive file system
 * (Windows, macOS) would take for the same file.
 */
import type { Format } from '../platform/rendering.js';
import { UNSAFE_IN_NAMES } from '../platform/unsafe-characters.js';
import { codePointCount, hasLoneSurrogate } from '../text/unicode.js';

export const MAX_FILE_NAME_LENGTH = 99;
const MAX_PARENT_LENGTH = 154;
/** The longest file or folder name ext4, XFS, Btrfs and APFS take, in bytes of UTF-8. */
const MAX_SEGMENT_BYTES = 255;

type PathCheck = { path: string } | { problem: string };

export function normalizeArchivePath(raw: string): PathCheck {
  if (!raw.startsWith('/')) return { problem: `The provided path '${raw}' is not absolute.` };
  if (UNSAFE_IN_NAMES.test(raw)) return { problem: `The provided path '${raw}' must not contain backslashes, control, bidirectional or invisible characters.` };
  if (hasLoneSurrogate(raw)) return { problem: `The provided path '${raw}' is not well-formed Unicode: it holds a lone surrogate.` };
  const segments = raw.split('/').filter((segment) => segment !== '');
  if (segments.length === 0) return { problem: `The provided path '${raw}' does not name a file.` };
  if (segments.some((segment) => segment === '.' || segment === '..')) {
    return { problem: `The provided path '${raw}' must not contain '.' or '..' segments.` };
  }
  const unportable = segments.find((segment) => !isPortableSegment(segment));
  if (unportable !== undefined) return { problem: unportableMessage(raw, unportable) };
  return { path: `/${segments.join('/')}` };
}

const WINDOWS_FORBIDDEN = /[<>:"|?*]/;
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$)(\.|$)/i;

/** True when Windows and macOS can create a file or folder of exactly this name. */
function isPortableSegment(segment: string): boolean {
  return !WINDOWS_FORBIDDEN.test(segment) && !WINDOWS_RESERVED.test(segment) && !/[. ]$/.test(segment);
}

/** Says which rule the segment breaks, rather than listing every possible reason for the user to find the one. */
function unportableMessage(path: string, segment: string): string {
  const forbidden = WINDOWS_FORBIDDEN.exec(segment)?.[0];
  const reason =
    forbidden !== undefined ? `it contains '${forbidden}', which Windows does not allow in names (nor < > : " | ? *)`
    : WINDOWS_RESERVED.test(segment) ? `'${WINDOWS_RESERVED.exec(segment)![1]}' is a device name Windows reserves, with or without an extension`
    : `it ends with ${segment.endsWith(' ') ? 'a space' : 'a dot'}, which Windows removes`;
  return `The path '${path}' cannot be extracted on every system: '${segment}': ${reason}.`;
}

/** Messages for the names of a layout that some system cannot extract (names derived from ids and file names included). */
export function unportableNameMessages(names: readonly string[]): string[] {
  return names.flatMap((name) => {
    const segment = name.split('/').find((s) => !isPortableSegment(s));
    // Shown as the entry's name: a default name has no leading '/' (only a path given in a definition has).
    if (segment !== undefined) return [unportableMessage(name, segment)];
    const overlong = segmentBytesProblem(name);
    return overlong === null ? [] : [overlong];
  });
}

/**
 * The refusal of a path with a segment over MAX_SEGMENT_BYTES, or null. Checked after the length limits,
 * whose message (the reference's) a name of too many characters gets first.
 */
export function segmentBytesProblem(path: string): string | null {
  const segment = path.split('/').find((s) => Buffer.byteLength(s) > MAX_SEGMENT_BYTES);
  if (segment === undefined) return null;
  return `The path '${path}' cannot be extracted on every system: '${segment}' takes ${Buffer.byteLength(segment)} bytes in UTF-8, more than the ${MAX_SEGMENT_BYTES} a file or folder name may take.`;
}

/**
 * The refusal of an explicit (normalised) path beyond the ustar-derived limits, in characters (code points),
 * as they are stated; null when it is within them.
 */
export function lengthLimitProblem(path: string, shown = path): string | null {
  const cut = path.lastIndexOf('/');
  const [parent, name] = [codePointCount(path.slice(0, cut)), codePointCount(path.slice(cut + 1))];
  if (name <= MAX_FILE_NAME_LENGTH && parent <= MAX_PARENT_LENGTH) return null;
  // The reference's sentence, then which part is over its limit.
  const over = name > MAX_FILE_NAME_LENGTH ? `its file name has ${name} characters` : `its folders have ${parent} characters`;
  return `The paths '${shown}' must have a file path prefix at most ${MAX_PARENT_LENGTH} characters long and a file path name at most ${MAX_FILE_NAME_LENGTH} characters long: ${over}.`;
}

/**
 * Messages for the names of a layout beyond the length limits: a file's default name follows its
 * `_filename`, which may be longer (up to 255 characters) than an entry's file name may be.
 */
export function overlongNameMessages(names: readonly string[]): string[] {
  return names.flatMap((name) => {
    // Counted as a path given in a definition would be (its folders with the leading '/'), shown as the entry's name.
    const problem = lengthLimitProblem(`/${name}`, name);
    return problem === null ? [] : [`${problem} Please define a path for it.`];
  });
}

/** The entry name inside the ZIP for a normalised explicit path. */
export function entryNameOf(path: string): string {
  return path.slice(1);
}

/** `%XX` for each byte value: flatEncode's escapes. */
const BYTE_ESCAPES = Array.from({ length: 256 }, (_, byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`);

/** Percent-encodes everything but letters, digits, `.`, `_` and `-`: an id becomes one flat, portable file name. */
export function flatEncode(text: string): string {
  // Only the other characters are encoded, each byte of their UTF-8 escaped (a lone surrogate as U+FFFD's bytes):
  // a 10,000-entry archive names each entry by its id several times, and a string per byte took most of a second.
  return text.replace(/[^A-Za-z0-9._-]/gu, (character) => {
    const code = character.charCodeAt(0);
    if (code < 0x80) return BYTE_ESCAPES[code]!;
    let escaped = '';
    for (const byte of Buffer.from(character, 'utf8')) escaped += BYTE_ESCAPES[byte];
    return escaped;
  });
}

const FORMAT_EXTENSIONS: Record<Format, string> = {
  source: '.json',
  'annotated-source': '.json',
  compacted: '.json',
  expanded: '.json',
  'n-triples': '.nt',
  'n-quads': '.nq',
  dot: '.dot',
};

/** `{org}/{project}/{format}/{flat id}{ext}`, where the id carries `?rev=N` or `?tag=t` when one was asked for. */
export function defaultResourceName(project: string, format: Format, original: string): string {
  return `${project}/${format}/${defaultResourceFileName(format, original)}`;
}

function defaultResourceFileName(format: Format, original: string): string {
  return `${flatEncode(original)}${FORMAT_EXTENSIONS[format]}`;
}

/** `{org}/{project}/file/{filename}`; file names are single safe segments (checked at upload). */
export function defaultFileName(project: string, filename: string): string {
  return `${project}/file/${filename}`;
}

/** The name a case-insensitive, normalisation-insensitive file system sees (upper then lower case folds `ß` with `SS`). */
function folded(name: string): string {
  // ASCII, most names, is left as it is by NFC and folded by lower-casing alone.
  if (ASCII.test(name)) return name.toLowerCase();
  return name.normalize('NFC').toUpperCase().toLowerCase().normalize('NFC');
}

const ASCII = /^[\x00-\x7f]*$/;

/**
 * Entry names that would make an ambiguous archive: used twice, equal once
 * case and Unicode normalisation are ignored, or used both as a file and as
 * a directory (`a/b` and `a/B/c`), which no extractor can honour.
 */
export function findPathConflicts(names: readonly string[]): PathConflicts {
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) duplicates.add(name);
    seen.add(name);
  }
  const byFolded = new Map<string, string[]>();
  for (const name of seen) {
    const key = folded(name);
    const group = byFolded.get(key);
    if (group) group.push(name);
    else byFolded.set(key, [name]);
  }
  const lookAlike = [...byFolded.values()].filter((group) => group.length > 1).map((group) => group.sort());
  // Each directory folded once, however many names it holds, with the first name (in order) inside it.
  const firstInside = new Map<string, string>();
  for (const name of [...seen].sort()) {
    for (let cut = name.indexOf('/'); cut !== -1; cut = name.indexOf('/', cut + 1)) {
      const prefix = name.slice(0, cut);
      if (!firstInside.has(prefix)) firstInside.set(prefix, name);
    }
  }
  const insideByFolded = new Map<string, string>();
  for (const [prefix, inside] of firstInside) if (!insideByFolded.has(folded(prefix))) insideByFolded.set(folded(prefix), inside);
  const fileAndDirectory = [...seen]
    .sort()
    .flatMap((name) => {
      // A folder of the very same name first, then one a case-insensitive file system would take for it.
      const inside = firstInside.get(name) ?? insideByFolded.get(folded(name));
      return inside === undefined ? [] : [{ name, inside }];
    });
  return { duplicates: [...duplicates].sort(), lookAlike: lookAlike.sort(), fileAndDirectory };
}

interface PathConflicts {
  duplicates: string[];
  lookAlike: string[][];
  /** A name used as a file, and a name inside the folder it also is (`a` and `a/b`, or `a/B/c` for `a/b`). */
  fileAndDirectory: { name: string; inside: string }[];
}

/**
 * The conflicts of findPathConflicts, one per name or group, with the indexes of the entries each
 * concerns: for a name used both as a file and as a directory, the entries inside that directory too.
 */
export function findEntryConflicts(named: readonly { name: string; index: number }[]): { indexes: number[]; message: string }[] {
  const conflicts = findPathConflicts(named.map(({ name }) => name));
  // A valid layout, the usual one, needs no index of its entries.
  if (conflicts.duplicates.length + conflicts.lookAlike.length + conflicts.fileAndDirectory.length === 0) return [];
  // Indexes by name and by folded directory, so that thousands of conflicts do not each go through every entry;
  // directories only when some name is also one (folding every directory of every name takes time).
  const byName = new Map<string, number[]>();
  const insideDirectory = new Map<string, number[]>();
  const add = (map: Map<string, number[]>, key: string, index: number) => {
    const indexes = map.get(key);
    if (indexes) indexes.push(index);
    else map.set(key, [index]);
  };
  for (const { name, index } of named) {
    add(byName, name, index);
    if (conflicts.fileAndDirectory.length === 0) continue;
    for (let cut = name.indexOf('/'); cut !== -1; cut = name.indexOf('/', cut + 1)) add(insideDirectory, folded(name.slice(0, cut)), index);
  }
  const sorted = (indexes: number[]) => [...new Set(indexes)].sort((a, b) => a - b);
  const one = (kind: Partial<PathConflicts>) => conflictMessages({ duplicates: [], lookAlike: [], fileAndDirectory: [], ...kind })[0]!;
  return [
    ...conflicts.duplicates.map((name) => ({ indexes: byName.get(name)!, message: one({ duplicates: [name] }) })),
    ...conflicts.lookAlike.map((group) => ({ indexes: sorted(group.flatMap((name) => byName.get(name)!)), message: one({ lookAlike: [group] }) })),
    ...conflicts.fileAndDirectory.map((conflict) => ({
      indexes: sorted([...byName.get(conflict.name)!, ...(insideDirectory.get(folded(conflict.name)) ?? [])]),
      message: one({ fileAndDirectory: [conflict] }),
    })),
  ];
}

export function conflictMessages(conflicts: PathConflicts): string[] {
  const quoted = (names: string[]) => names.map((n) => `'${n}'`).join(', ');
  return [
    ...(conflicts.duplicates.length > 0 ? [`The paths ${quoted(conflicts.duplicates)} have been used multiple times in the archive.`] : []),
    ...conflicts.lookAlike.map(
      (group) => `The paths ${quoted(group)} differ only in letter case or Unicode normalisation: they would be one file on Windows and macOS.`,
    ),
    ...conflicts.fileAndDirectory.map(
      ({ name, inside }) => `The path '${name}' is used both as a file and as a directory (holding '${inside}') in the archive.`,
    ),
  ];
}
