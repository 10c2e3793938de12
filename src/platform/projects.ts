/**
 * Projects: where resources, files and archives live. A project has a base
 * (prefix of generated ids), a vocab (default term namespace of payloads) and
 * API mappings (prefixes used to expand ids in URLs), merged with the defaults
 * of the reference. The built-in literature project is virtual and read-only.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { AclService } from './acls.js';
import { type Audit, createdBy, updatedBy } from './audit.js';
import { ARCHIVE_SCHEMA, FILE_SCHEMA, NXV, UNCONSTRAINED_SCHEMA } from './contexts.js';
import { rejections } from './errors.js';
import { createOrUpdate } from './put-write.js';
import { loneSurrogatePointer } from '../text/unicode.js';
import type { Identity } from './identities.js';
import type { Permission } from './permissions.js';
import { type ApiMapping, isAbsoluteIri } from './iri.js';
import type { OrgService } from './orgs.js';
import { PastStates } from './past-states.js';
import { type ProjectRef, orgAddress, projectAddress, projectKey, refOf } from './refs.js';
import type { Store, Table } from './store/store.js';

export interface ProjectState extends Audit {
  org: string;
  label: string;
  uuid: string;
  description?: string;
  base: string;
  vocab: string;
  apiMappings: ApiMapping[];
  rev: number;
  deprecated: boolean;
  markedForDeletion: boolean;
  /** True for the built-in literature project, whose resources come from the index. */
  readOnly: boolean;
}

interface ProjectFields {
  description?: string;
  base?: string;
  vocab?: string;
  apiMappings?: ApiMapping[];
}

const NEXUS_SCHEMAS = 'https://bluebrain.github.io/nexus/schemas/';

const DEFAULT_API_MAPPINGS: readonly ApiMapping[] = [
  { prefix: '_', namespace: UNCONSTRAINED_SCHEMA },
  { prefix: 'resource', namespace: UNCONSTRAINED_SCHEMA },
  { prefix: 'nxv', namespace: NXV },
  { prefix: 'schema', namespace: `${NEXUS_SCHEMAS}shacl-20170720.ttl` },
  { prefix: 'resolver', namespace: `${NEXUS_SCHEMAS}resolvers.json` },
  { prefix: 'defaultResolver', namespace: `${NXV}defaultInProject` },
  { prefix: 'view', namespace: `${NEXUS_SCHEMAS}views.json` },
  { prefix: 'graph', namespace: `${NXV}defaultSparqlIndex` },
  { prefix: 'storage', namespace: `${NEXUS_SCHEMAS}storages.json` },
  { prefix: 'defaultStorage', namespace: `${NXV}diskStorageDefault` },
  { prefix: 'file', namespace: FILE_SCHEMA },
  { prefix: 'archive', namespace: ARCHIVE_SCHEMA },
  { prefix: 'search', namespace: `${NXV}searchView` },
];

/** The base of a project that does not set one: where its resources are served. */
export function defaultBase(baseUri: string, ref: ProjectRef): string {
  return `${baseUri}/v1/resources/${ref.org}/${ref.project}/_/`;
}

/** A write of a project, as its checks tell it apart: a creation, or a change of the revision `rev` (`prune`: marking it for deletion). */
export type ProjectWrite = { kind: 'create' } | { kind: ProjectChange; rev: number };
type ProjectChange = 'update' | 'deprecate' | 'prune' | 'undeprecate';

export class ProjectService {
  private readonly db: Table<ProjectState>;
  private readonly past: PastStates<ProjectState>;

  /**
   * Opens the service; the literature project's base and vocab are fixed in the store the first time. Throws
   * (the start fails) when the literature label names a project users created: see literatureShadows.
   */
  static async open(
    store: Store,
    orgs: OrgService,
    acls: AclService,
    baseUri: string,
    literatureRef: ProjectRef,
    literatureAudit: Audit,
    clock: () => number,
  ): Promise<ProjectService> {
    // The literature project is virtual, but its base and vocab are fixed the first time, like any
    // project's: ids stored in archives stay valid when the server later runs under another public URL.
    const literatureDefaults = store.table<{ base: string; vocab: string }>('literature-project');
    const literatureKey = projectKey(literatureRef);
    const fixed = await store.write(async () => {
      // Checked before anything is written, so a refused start leaves the store as it was.
      const userProject = await store.table<ProjectState>('projects').get(literatureKey);
      if (userProject && !userProject.markedForDeletion) throw literatureShadows(literatureKey, userProject);
      const stored = await literatureDefaults.get(literatureKey);
      if (stored) return stored;
      const defaults = projectDefaults(baseUri, literatureRef);
      await literatureDefaults.put(literatureKey, defaults);
      return defaults;
    });
    const literature: ProjectState = {
      ...literatureAudit,
      org: literatureRef.org,
      label: literatureRef.project,
      // Stable across restarts, like the project itself.
      uuid: uuidFrom(literatureKey),
      description: 'The indexed literature articles, as schema.org ScholarlyArticle resources (read-only).',
      ...fixed,
      apiMappings: [],
      rev: 1,
      deprecated: false,
      markedForDeletion: false,
      readOnly: true,
    };
    return new ProjectService(store, orgs, acls, baseUri, literature, clock);
  }

  private constructor(
    private readonly store: Store,
    private readonly orgs: OrgService,
    private readonly acls: AclService,
    private readonly baseUri: string,
    private readonly literature: ProjectState,
    private readonly clock: () => number,
  ) {
    this.db = store.table<ProjectState>('projects');
    this.past = new PastStates(store, 'project-revisions');
  }

  get literatureRef(): ProjectRef {
    return refOf(this.literature);
  }

  /** The base of the literature project's ids, fixed in the store at its first start. */
  get literatureBase(): string {
    return this.literature.base;
  }

  async get(ref: ProjectRef): Promise<ProjectState | undefined> {
    if (ref.org === this.literature.org && ref.project === this.literature.label) return this.literature;
    return this.db.get(projectKey(ref));
  }

  /** Every project, the literature project first, then in key order. */
  async all(): Promise<ProjectState[]> {
    return [this.literature, ...(await this.db.range()).map(({ value }) => value)];
  }

  /** The project for reading: it must exist and not be marked for deletion (deprecated is fine). */
  async forRead(ref: ProjectRef): Promise<ProjectState> {
    const project = await this.get(ref);
    if (!project) throw rejections.projectNotFound(projectKey(ref));
    if (project.markedForDeletion) throw rejections.projectIsMarkedForDeletion(projectKey(ref));
    return project;
  }

  /** The project for writing resources or files into it. */
  async forWrite(ref: ProjectRef): Promise<ProjectState> {
    const project = await this.forRead(ref);
    if (project.readOnly) throw rejections.projectIsReadOnly(projectKey(ref));
    if (project.deprecated) throw rejections.projectIsDeprecated(projectKey(ref));
    await this.requireActiveOrg(ref);
    return project;
  }

  /**
   * Runs `write` in one store write that first checks again that the project takes writes: for a write
   * whose checks came long before its commit (an upload), as the project may have been deprecated,
   * marked for deletion or had its organization deprecated meanwhile. Reading the project inside the
   * write orders it with those changes (LMDB: serialised; PostgreSQL: a conflict, retried).
   */
  async whileWritable<T>(ref: ProjectRef, write: () => Promise<T>): Promise<T> {
    return this.store.write(async () => {
      await this.forWrite(ref);
      return write();
    });
  }

  effectiveMappings(project: ProjectState): ApiMapping[] {
    const own = new Set(project.apiMappings.map((m) => m.prefix));
    return [...project.apiMappings, ...DEFAULT_API_MAPPINGS.filter((m) => !own.has(m.prefix))];
  }

  /**
   * The live projects (not marked for deletion) on which the caller holds
   * `permission`, optionally only the (non-)deprecated ones: a listing that
   * reveals no project the caller could not address anyway.
   */
  async visibleTo(identity: Identity, permission: Permission, deprecated?: boolean): Promise<ProjectState[]> {
    return (await this.all()).filter(
      (project) =>
        !project.markedForDeletion &&
        (deprecated === undefined || project.deprecated === deprecated) &&
        this.acls.has(identity, permission, projectAddress(refOf(project))),
    );
  }

  /** The project (even marked for deletion; at revision `rev`, its latest without), for a caller who may read it. */
  async read(ref: ProjectRef, identity: Identity, rev?: number): Promise<ProjectState> {
    this.acls.require(identity, 'resources/read', projectAddress(ref));
    const project = await this.get(ref);
    if (!project) throw rejections.projectNotFound(projectKey(ref));
    return rev === undefined ? project : this.past.at(projectKey(ref), project, rev);
  }

  /**
   * The project's latest revision, as a write's preconditions see it: for a caller who may perform that write,
   * whether or not they may read it (else the write's 403), and once the write's own checks pass (else its
   * 400, 404 or 409): a write refused anyway answers its refusal, not 412. A creation finds the project even
   * marked for deletion, as `read` does; its organization must take projects.
   */
  async readForWriter(ref: ProjectRef, write: ProjectWrite, identity: Identity): Promise<ProjectState> {
    this.requireWriter(ref, write.kind === 'create' ? 'create' : 'change', identity);
    // A creation reads the project only here: save() needs no more than its organization's check.
    const project = (await this.checkedForWrite(ref, write)) ?? (await this.get(ref));
    if (!project) throw rejections.projectNotFound(projectKey(ref));
    return project;
  }

  /**
   * Once `write`'s checks pass that come before the request's fields are looked at: the project a change
   * changes (checkedForChange's checks), or null for a creation (its organization's check).
   */
  private async checkedForWrite(ref: ProjectRef, write: ProjectWrite): Promise<ProjectState | null> {
    if (write.kind === 'create') {
      await this.requireActiveOrg(ref);
      return null;
    }
    return this.checkedForChange(ref, await this.get(ref), write.rev, write.kind);
  }

  /** Creates the project (rev absent) or updates it (rev = current revision). */
  async save(ref: ProjectRef, fields: ProjectFields, rev: number | undefined, identity: Identity): Promise<ProjectState> {
    this.requireWriter(ref, rev === undefined ? 'create' : 'change', identity);
    // What the write refuses before what its fields may be refused for, as its preconditions see it
    // (readForWriter): the fields are the request's content (RFC 9110 §13.2.1).
    await this.checkedForWrite(ref, createOrUpdate(rev));
    checkIris(fields);
    const surrogate = loneSurrogatePointer(fields);
    if (surrogate !== null) throw rejections.loneSurrogate('project', surrogate);
    const key = projectKey(ref);
    return this.store.write(async () => {
      const current = await this.get(ref);
      const now = this.clock();
      if (rev === undefined) {
        await this.requireActiveOrg(ref);
        if (current) throw rejections.projectAlreadyExists(key);
        const defaults = projectDefaults(this.baseUri, ref);
        const project: ProjectState = {
          ...createdBy(identity, now),
          org: ref.org,
          label: ref.project,
          uuid: randomUUID(),
          description: fields.description,
          base: fields.base ?? defaults.base,
          vocab: fields.vocab ?? defaults.vocab,
          apiMappings: fields.apiMappings ?? [],
          rev: 1,
          deprecated: false,
          markedForDeletion: false,
          readOnly: false,
        };
        checkSchemePrefixes(project, this.baseUri);
        await this.db.put(key, project);
        // In the same transaction: a crash between two would leave a project its creator cannot write to.
        await this.acls.grantOwner(projectAddress(ref), identity);
        return project;
      }
      const project = await this.checkedForChange(ref, current, rev, 'update');
      const updated: ProjectState = {
        ...project,
        ...updatedBy(project, identity, now),
        description: fields.description,
        base: fields.base ?? project.base,
        vocab: fields.vocab ?? project.vocab,
        apiMappings: fields.apiMappings ?? project.apiMappings,
        rev: project.rev + 1,
      };
      checkSchemePrefixes(updated, this.baseUri);
      return this.replace(key, project, updated);
    });
  }

  /**
   * Deprecates the project, or with `prune` marks it for deletion: it then stops answering. Marking for
   * deletion is Nexus's project deletion, which does not look at the organization: a deprecated
   * organization's projects can still be deleted.
   */
  async deprecate(ref: ProjectRef, rev: number, prune: boolean, identity: Identity): Promise<ProjectState> {
    this.requireWriter(ref, 'change', identity);
    return this.store.write(async () => {
      const project = await this.checkedForChange(ref, await this.get(ref), rev, prune ? 'prune' : 'deprecate');
      return this.replace(projectKey(ref), project, {
        ...project,
        ...updatedBy(project, identity, this.clock()),
        deprecated: true,
        markedForDeletion: prune,
        rev: project.rev + 1,
      });
    });
  }

  /** Makes a deprecated project writable again (not one marked for deletion), as Nexus's undeprecate. */
  async undeprecate(ref: ProjectRef, rev: number, identity: Identity): Promise<ProjectState> {
    this.requireWriter(ref, 'change', identity);
    return this.store.write(async () => {
      const project = await this.checkedForChange(ref, await this.get(ref), rev, 'undeprecate');
      return this.replace(projectKey(ref), project, { ...project, ...updatedBy(project, identity, this.clock()), deprecated: false, rev: project.rev + 1 });
    });
  }

  /**
   * Throws the 403 of a write unless the caller holds its permission: to create the project (a write without
   * `rev`) or to change it (any other write). The writes check it themselves; the HTTP layer checks it also
   * before reading a write's body, so that a refused write costs no upload.
   */
  requireWriter(ref: ProjectRef, write: 'create' | 'change', identity: Identity): void {
    if (write === 'create') this.acls.require(identity, 'projects/create', orgAddress(ref.org));
    else this.acls.require(identity, 'projects/write', projectAddress(ref));
  }

  /** Inside `Store.write`: `next` becomes the head, the state it supersedes is kept for `?rev=` reads. */
  private async replace(key: string, current: ProjectState, next: ProjectState): Promise<ProjectState> {
    await this.past.keep(key, current);
    await this.db.put(key, next);
    return next;
  }

  /**
   * As in Nexus (its projects' `fetchActiveOrg`): a deprecated organization takes no new project and no change
   * in the ones it holds, neither of their resources and files nor of the projects themselves (update,
   * deprecation, undeprecation) until it is undeprecated.
   */
  private async requireActiveOrg(ref: ProjectRef): Promise<void> {
    if ((await this.orgs.fetch(ref.org)).deprecated) throw rejections.orgIsDeprecated(ref.org);
  }

  /**
   * The project `change` may change from revision `rev`, or the change's refusal: the project's own checks
   * first, then its organization's. The changes check it in their transaction, and their preconditions before
   * the request's conditional headers (readForWriter).
   */
  private async checkedForChange(ref: ProjectRef, project: ProjectState | undefined, rev: number, change: ProjectChange): Promise<ProjectState> {
    const key = projectKey(ref);
    if (!project) throw rejections.projectNotFound(key);
    if (project.readOnly) throw rejections.projectIsReadOnly(key);
    if (project.markedForDeletion) throw rejections.projectIsMarkedForDeletion(key);
    if (rev !== project.rev) throw rejections.incorrectRev(rev, project.rev);
    // A deprecated project may still be marked for deletion or undeprecated, but not changed otherwise.
    if ((change === 'update' || change === 'deprecate') && project.deprecated) throw rejections.projectIsDeprecated(key);
    if (change === 'undeprecate' && !project.deprecated) throw rejections.projectIsNotDeprecated(key);
    // Marking for deletion is Nexus's project deletion, which does not look at the organization.
    if (change !== 'prune') await this.requireActiveOrg(ref);
    return project;
  }
}

/**
 * Why the server does not start when the literature project is named after a project users created: the
 * virtual project would answer in its place, hiding its resources and files, and the grants its creator
 * holds on its path (every permission) would apply to the literature, index reloads included. An empty
 * project counts as well, for those grants and its own settings. A project marked for deletion does not:
 * it answers nothing under any setting, and deleting it is how the label is handed over.
 */
function literatureShadows(key: string, project: ProjectState): Error {
  return new Error(
    `--literature-project / LITERATURE_PROJECT names '${key}', a project users created (rev ${project.rev}); serving the literature there ` +
      `would hide its resources and files. Choose another label for --literature-project, or delete that project first: start with ` +
      `another label, DELETE /v1/projects/${key}?rev=${project.rev}&prune=true, and review the ACLs on /${key}, which then apply to the literature project`,
  );
}

function projectDefaults(baseUri: string, ref: ProjectRef): { base: string; vocab: string } {
  return { base: defaultBase(baseUri, ref), vocab: `${baseUri}/v1/vocabs/${ref.org}/${ref.project}/` };
}

function uuidFrom(text: string): string {
  const hex = createHash('sha256').update(text).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/**
 * An id in a URL segment (`_self` links hold whole ids: `https%3A%2F%2F…`) is expanded with the API mappings
 * when its scheme is a mapped prefix: a prefix `https` would turn every `https:` id into another IRI, and
 * every link of the project would answer 404. The schemes of the ids and links this server produces are
 * refused as prefixes: http and https, and those of the server's public URL and the project's base and vocab.
 */
function checkSchemePrefixes(project: Pick<ProjectState, 'base' | 'vocab' | 'apiMappings'>, baseUri: string): void {
  const schemeOf = (iri: string) => iri.slice(0, iri.indexOf(':')).toLowerCase();
  const schemes = new Set(['http', 'https', schemeOf(baseUri), schemeOf(project.base), schemeOf(project.vocab)]);
  const problems = project.apiMappings
    .filter((mapping) => schemes.has(mapping.prefix.toLowerCase()))
    .map(
      (mapping) =>
        `The prefix '${mapping.prefix}' is a URI scheme of the project's ids and links ('${mapping.prefix}:…'): mapped, it would expand every such id ` +
        `into another IRI, and their links would no longer answer. Choose another prefix.`,
    );
  if (problems.length > 0) throw rejections.decodingFailed(problems);
}

function checkIris(fields: ProjectFields): void {
  const problems = [
    ...(fields.base !== undefined && !isAbsoluteIri(fields.base) ? [`'base' must be an absolute IRI, got '${fields.base}'.`] : []),
    ...(fields.vocab !== undefined && !isAbsoluteIri(fields.vocab) ? [`'vocab' must be an absolute IRI, got '${fields.vocab}'.`] : []),
    ...(fields.apiMappings ?? []).flatMap((m) =>
      isAbsoluteIri(m.namespace) ? [] : [`The namespace '${m.namespace}' of prefix '${m.prefix}' must be an absolute IRI.`],
    ),
  ];
  const prefixes = (fields.apiMappings ?? []).map((m) => m.prefix);
  const repeated = prefixes.filter((p, i) => prefixes.indexOf(p) !== i);
  if (repeated.length > 0) problems.push(`The prefixes '${[...new Set(repeated)].join("', '")}' are mapped more than once.`);
  if (problems.length > 0) throw rejections.decodingFailed(problems);
}
