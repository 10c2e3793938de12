/**
 * FileSelf entries name a file by its `_self`:
 * `{base}/v1/files/{org}/{project}/{encoded id}[?rev=N | ?tag=t]`.
 */
import { type ProjectRef, parseProjectRef } from '../platform/refs.js';
import type { RevisionSelector } from '../platform/revisions.js';

export interface ParsedFileSelf {
  project: ProjectRef;
  /** The id segment, percent-decoded, still to be expanded with the project's mappings. */
  idSegment: string;
  selector: RevisionSelector;
}

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
  const rev = url.searchParams.get('rev');
  const tag = url.searchParams.get('tag');
  if (rev !== null && tag !== null) return { problem: `'${value}' cannot use both 'rev' and 'tag'.` };
  if (rev !== null) {
    if (!/^[1-9]\d{0,9}$/.test(rev)) return { problem: `'${value}' has an invalid revision '${rev}'.` };
    return { project, idSegment, selector: { rev: Number(rev) } };
  }
  if (tag !== null) return tag === '' ? { problem: `'${value}' has an empty tag.` } : { project, idSegment, selector: { tag } };
  return { project, idSegment, selector: {} };
}
