/** The `_`-prefixed metadata of resources and files, and the views rendering works on. */
import { auditFields } from './audit.js';
import { FILE_SCHEMA, METADATA_CONTEXT, UNCONSTRAINED_SCHEMA } from './contexts.js';
import { encodeIdSegment } from './iri.js';
import type { JsonObject } from './jsonld.js';
import type { ProjectState } from './projects.js';
import type { ResourceView } from './rendering.js';
import { sourceTypeOf, type EntityState, type ListedState } from './revisions.js';
import { storedJsonOf, withStoredSource } from './stored-json.js';

function selfOf(baseUri: string, state: Pick<EntityState, 'kind' | 'id' | 'project'>): string {
  const segment = encodeIdSegment(state.id);
  return state.kind === 'file'
    ? `${baseUri}/v1/files/${state.project}/${segment}`
    : `${baseUri}/v1/resources/${state.project}/_/${segment}`;
}

function entityMetadata(state: Omit<EntityState, 'source'>, baseUri: string): JsonObject {
  const file = state.file;
  return {
    _self: selfOf(baseUri, state),
    _constrainedBy: state.kind === 'file' ? FILE_SCHEMA : UNCONSTRAINED_SCHEMA,
    _project: state.project,
    _rev: state.rev,
    _deprecated: state.deprecated,
    ...auditFields(state, baseUri),
    ...(file && {
      _bytes: file.bytes,
      _digest: { _algorithm: 'SHA-256', _value: file.digest },
      _filename: file.filename,
      _mediaType: file.mediaType,
    }),
  };
}

/** Files have no payload: their JSON-LD is a typed node carrying the file metadata. */
export function entityView(state: EntityState, project: ProjectState, baseUri: string): ResourceView {
  // A resource renders under the base and vocab it was written under (recorded since they were).
  const { base, vocab } = state.processing ?? project;
  const view = { id: state.id, metadata: entityMetadata(state, baseUri), base, vocab };
  if (state.kind === 'file') return { ...view, source: { '@type': 'File' } };
  // A payload still in its stored text stays so: a render thread parses it.
  const stored = storedJsonOf(state);
  return stored === undefined ? { ...view, source: state.source } : withStoredSource(view, stored);
}

/** An item of a listing: id, type and metadata, without the payload (whose type was recorded apart, so no payload is parsed). */
function listingItem(state: ListedState, baseUri: string): JsonObject {
  const type = state.kind === 'file' ? 'File' : sourceTypeOf(state);
  return { '@id': state.id, ...(type !== undefined && { '@type': type }), ...entityMetadata(state, baseUri) };
}

/** A page of a listing, as the resource and file listings answer it; `next`: the next page's URL, when one follows. */
export function listingPage(page: { total: number; states: readonly ListedState[] }, baseUri: string, next?: string) {
  return {
    '@context': [METADATA_CONTEXT],
    _total: page.total,
    _results: page.states.map((state) => listingItem(state, baseUri)),
    ...(next !== undefined && { _next: next }),
  };
}

/** The answer to a write: id, type and metadata, without the payload. */
export function writeResponse(state: EntityState, baseUri: string): JsonObject {
  const type = state.kind === 'file' ? 'File' : sourceTypeOf(state);
  return {
    '@context': [METADATA_CONTEXT],
    '@id': state.id,
    ...(type !== undefined && { '@type': type }),
    ...entityMetadata(state, baseUri),
  };
}
