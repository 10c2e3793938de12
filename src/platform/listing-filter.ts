/**
 * The filters of the resource and file listings, as Nexus names them: `deprecated`, `type`,
 * `createdBy` and `updatedBy`. Each is a test of a listed revision's metadata; none reads a payload.
 */
import { principalIri } from './identities.js';
import { NXV } from './contexts.js';
import { PlatformError } from './errors.js';
import { type ApiMapping, isAbsoluteIri, isRelativeIri, mappedExpansion } from './iri.js';
import type { ProjectState } from './projects.js';
import { type ListedState, sourceTypeOf } from './revisions.js';

interface ListingFilters {
  deprecated?: boolean;
  /** A type IRI, a compact IRI of a mapped prefix, or a term of the project's vocab. */
  type?: string;
  /** Subject IRIs, as `_createdBy` and `_updatedBy` render them. */
  createdBy?: string;
  updatedBy?: string;
}

/** A listing's filters as a request gives them, with the public base URI its subject IRIs are under. */
export interface FilterRequest {
  filters: ListingFilters;
  baseUri: string;
}

/** Where the filters are read: the project's terms for types, the public base URI for subjects. */
interface FilterContext {
  project: ProjectState;
  mappings: readonly ApiMapping[];
  baseUri: string;
}

const FILE_TYPE = `${NXV}File`;

export function hasFilters(filters: ListingFilters): boolean {
  return Object.values(filters).some((value) => value !== undefined);
}

/** The test every listed entity of `project` must pass; undefined without filters (the listing pages through its index). */
export function listingPredicate(
  request: FilterRequest | undefined,
  project: ProjectState,
  mappings: readonly ApiMapping[],
): ((state: ListedState) => boolean) | undefined {
  if (request === undefined || !hasFilters(request.filters)) return undefined;
  const { filters, baseUri } = request;
  const context: FilterContext = { project, mappings, baseUri };
  const { deprecated } = filters;
  const type = filters.type === undefined ? undefined : expandType(filters.type, context);
  const createdBy = subjectFilter('createdBy', filters.createdBy);
  const updatedBy = subjectFilter('updatedBy', filters.updatedBy);
  const subjectIri = (subject: ListedState['createdBy']) => principalIri(context.baseUri, subject);
  return (state) =>
    (deprecated === undefined || state.deprecated === deprecated) &&
    (type === undefined || typesOf(state, context.project.vocab).includes(type)) &&
    (createdBy === undefined || subjectIri(state.createdBy) === createdBy) &&
    (updatedBy === undefined || subjectIri(state.updatedBy) === updatedBy);
}

/** A subject filter's IRI: one that is not an IRI could only match nothing, which would read as "nobody wrote any". */
function subjectFilter(name: 'createdBy' | 'updatedBy', value: string | undefined): string | undefined {
  if (value !== undefined && !isAbsoluteIri(value)) {
    throw new PlatformError(400, 'MalformedQueryParam', `The '${name}' filter '${value}' is not an Iri: subjects are named as _${name} shows them.`);
  }
  return value;
}

/** `prefix:rest` of a mapped prefix as `namespace + rest`, another IRI as it is, a term after the project's vocab. */
function expandType(type: string, { project, mappings }: FilterContext): string {
  const expanded = mappedExpansion(type, mappings) ?? (isRelativeIri(type) ? project.vocab + type : type);
  if (!isAbsoluteIri(expanded)) throw new PlatformError(400, 'MalformedQueryParam', `The 'type' filter '${type}' cannot be expanded to an Iri.`);
  return expanded;
}

/**
 * The entity's types as IRIs: a file's is nxv:File; a resource's were recorded when written. A revision
 * written before they were has them read from its payload's `@type` as written, a term after the
 * project's vocab: what JSON-LD makes of them unless the payload's own context defines the term.
 */
function typesOf(state: ListedState, vocab: string): readonly string[] {
  if (state.kind === 'file') return [FILE_TYPE];
  if (state.types) return state.types;
  const written = sourceTypeOf(state);
  const values = Array.isArray(written) ? written : [written];
  return values.filter((value): value is string => typeof value === 'string').map((value) => (isRelativeIri(value) ? vocab + value : value));
}
