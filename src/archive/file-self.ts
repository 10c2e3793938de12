/**
 * FileSelf entries name a file by its `_self`:
 * `{base}/v1/files/{org}/{project}/{encoded id}[?rev=N | ?tag=t]`.
 * One parser for creation and download: a value accepted when the archive is
 * created is read the same way by every download, so no archive is stored
 * that could only ever answer 400 InvalidFileSelf.
 */
import { expandIdSegment } from '../platform/iri.js';
import { type ProjectRef, parseProjectRef } from '../platform/refs.js';
import { MAX_REVISION, type RevisionSelector } from '../platform/revisions.js';
import { shownName } from '../text/unicode.js';

interface ParsedFileSelf {
  project: ProjectRef;
  /** The id segment, percent-decoded, still to be expanded with the project's mappings. */
  idSegment: string;
  selector: RevisionSelector;
}

/** The query parameters of a file's address, as its route takes them. */
const SELECTOR_PARAMETERS = new Set(['rev', 'tag']);
/**
 * The shortest base a project may have (a one-letter scheme and its colon): an id segment that expands
 * to no IRI even on it, without mappings, expands to none in any project (a character an IRI may not
 * hold, such as a space or NUL, or an id too long for the store). The one segment refused here that a
 * mapping could save, over 1024 bytes and starting with a prefix longer than its namespace, is no
 * `_self` this server writes (those carry whole ids). The project's own base and mappings apply where the
 * project is known: at creation for a creator who may read it (archives.ts), and at download.
 */
const SHORTEST_BASE = 'x:';

export function parseFileSelf(value: string, baseUri: string): ParsedFileSelf | { problem: string } {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { problem: `'${value}' is not an absolute link.` };
  }
  const prefix = `${baseUri}/v1/files/`;
  if (!value.startsWith(prefix)) return { problem: `'${value}' has been resolved as an external link.` };
  const expectedPath = { problem: `'${value}' does not provide the expected path.` };
  const pathPart = value.slice(prefix.length).split(/[?#]/, 1)[0]!;
  const segments = pathPart.split('/');
  if (segments.length !== 3 || segments[2] === '') return expectedPath;
  const project = parseProjectRef(`${segments[0]}/${segments[1]}`);
  if (project === null) return expectedPath;
  let idSegment: string;
  try {
    idSegment = decodeURIComponent(segments[2]!);
  } catch {
    return expectedPath;
  }
  if (expandIdSegment(idSegment, SHORTEST_BASE, []) === null) return { problem: namesNoFileId(value) };
  const read = fileSelfSelector(value, url.searchParams);
  return 'problem' in read ? read : { project, idSegment, selector: read.selector };
}

/** Why a FileSelf value is refused whose id segment expands to no id: the same words at creation and at download. */
export function namesNoFileId(value: string): string {
  return `'${value}' does not name a file id.`;
}

/** `?rev=N` or `?tag=t`, read as the file routes read them: each at most once, nothing else, `rev` in decimal digits. */
function fileSelfSelector(value: string, query: URLSearchParams): { selector: RevisionSelector } | { problem: string } {
  const names = [...query.keys()];
  const unknown = names.find((name) => !SELECTOR_PARAMETERS.has(name));
  if (unknown !== undefined) return { problem: `'${value}' has the query parameter '${shownName(unknown)}': a file's address takes only 'rev' or 'tag'.` };
  const repeated = names.find((name, index) => names.indexOf(name) !== index);
  if (repeated !== undefined) return { problem: `'${value}' gives the query parameter '${repeated}' more than once.` };
  const rev = query.get('rev');
  const tag = query.get('tag');
  if (rev !== null && tag !== null) return { problem: `'${value}' cannot use both 'rev' and 'tag'.` };
  if (rev !== null) {
    // Leading zeros are digits (`rev=01` is 1), as on every /v1 route (src/http/platform/query-text.ts).
    const number = /^[0-9]+$/.test(rev) ? Number(rev) : NaN;
    if (!(number >= 1 && number <= MAX_REVISION)) {
      return { problem: `'${value}' has an invalid revision '${shownName(rev)}': a revision is written in decimal digits, from 1 to ${MAX_REVISION}.` };
    }
    return { selector: { rev: number } };
  }
  if (tag !== null) return tag === '' ? { problem: `'${value}' has an empty tag.` } : { selector: { tag } };
  return { selector: {} };
}
