/**
 * Files: uploaded content plus metadata (`_bytes _digest _filename
 * _mediaType`), with revisions, tags and deprecation. Every precondition is
 * checked before the upload is read, so a rejected request stores nothing.
 */
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { BlobStore } from './blobs.ts';
import { rejections } from './errors.ts';
import type { Identity } from './identities.ts';
import type { ProjectService, ProjectState } from './projects.ts';
import { type ProjectRef, projectKey } from './refs.ts';
import type { ResourceService } from './resources.ts';
import type { EntityState, FileAttributes, RevisionSelector, RevisionStore } from './revisions.ts';

export interface Upload {
  filename: string;
  mediaType: string;
  content: Readable;
  /** True once the content stream was cut at the size limit. */
  isTruncated(): boolean;
}

/** The file name becomes a path inside archives and a download name: it must be one plain path segment. */
const UNSAFE_FILENAME = /[/\\\u0000-\u001f\u007f]/;
const MAX_FILENAME_LENGTH = 255;
const MEDIA_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*$/;

export class FileService {
  constructor(
    private readonly revisions: RevisionStore,
    private readonly projects: ProjectService,
    private readonly resources: ResourceService,
    private readonly blobs: BlobStore,
    readonly maxFileBytes: number,
  ) {}

  /** Checks what can be checked before the upload is read; returns the project and id. */
  prepareCreate(ref: ProjectRef, idSegment: string | undefined): { project: ProjectState; id: string } {
    const project = this.projects.forWrite(ref);
    const id = idSegment === undefined ? project.base + randomUUID() : this.resources.expandId(project, idSegment);
    this.revisions.assertCreatable(projectKey(ref), id);
    return { project, id };
  }

  prepareUpdate(ref: ProjectRef, idSegment: string, rev: number): { project: ProjectState; id: string } {
    const project = this.projects.forWrite(ref);
    const id = this.resources.expandId(project, idSegment);
    this.revisions.assertUpdatable(projectKey(ref), id, 'file', rev);
    return { project, id };
  }

  async create(ref: ProjectRef, id: string, upload: Upload, identity: Identity): Promise<EntityState> {
    const file = await this.store(upload);
    return this.revisions.create(projectKey(ref), id, 'file', { source: {}, file }, identity);
  }

  async update(ref: ProjectRef, id: string, rev: number, upload: Upload, identity: Identity): Promise<EntityState> {
    const file = await this.store(upload);
    return this.revisions.update(projectKey(ref), id, 'file', rev, identity, () => ({ file }));
  }

  tag(ref: ProjectRef, idSegment: string, rev: number, tag: string, target: number, identity: Identity): EntityState {
    const project = this.projects.forWrite(ref);
    return this.revisions.tag(projectKey(ref), this.resources.expandId(project, idSegment), 'file', rev, tag, target, identity);
  }

  deprecate(ref: ProjectRef, idSegment: string, rev: number, identity: Identity): EntityState {
    const project = this.projects.forWrite(ref);
    return this.revisions.deprecate(projectKey(ref), this.resources.expandId(project, idSegment), 'file', rev, identity);
  }

  fetch(ref: ProjectRef, idSegment: string, selector: RevisionSelector): { state: EntityState; project: ProjectState } {
    const project = this.projects.forRead(ref);
    return { state: this.fetchById(project, this.resources.expandId(project, idSegment), selector), project };
  }

  /** A file of a readable project by its full id: what archive File entries refer to. */
  fetchById(project: ProjectState, id: string, selector: RevisionSelector): EntityState {
    const key = `${project.org}/${project.label}`;
    if (project.readOnly || this.revisions.kindOf(key, id) !== 'file') throw rejections.fileNotFound(id, key);
    return this.revisions.fetch(key, id, selector);
  }

  /** Throws FileContentNotFound when the bytes are gone, so that a download fails before its first byte rather than mid-stream. */
  assertContent(state: EntityState): void {
    if (!this.blobs.has(state.file!.digest)) throw rejections.fileContentMissing(state.id, state.project);
  }

  content(state: EntityState): Readable {
    this.assertContent(state);
    return this.blobs.open(state.file!.digest);
  }

  /** The first bytes of the content, to judge whether it compresses. */
  contentHead(state: EntityState, length: number): Promise<Buffer> {
    return this.blobs.head(state.file!.digest, length);
  }

  private async store(upload: Upload): Promise<FileAttributes> {
    const filename = upload.filename;
    if (filename === '' || filename === '.' || filename === '..' || UNSAFE_FILENAME.test(filename) || filename.length > MAX_FILENAME_LENGTH) {
      upload.content.resume();
      throw rejections.invalidFile(
        `File name '${filename}' is not allowed: it must be 1 to ${MAX_FILENAME_LENGTH} characters, not '.' or '..', without '/', '\\' or control characters.`,
      );
    }
    const mediaType = MEDIA_TYPE.test(upload.mediaType) ? upload.mediaType.toLowerCase() : 'application/octet-stream';
    const { digest, bytes } = await this.blobs.write(upload.content, upload.isTruncated, () => rejections.fileTooLarge(this.maxFileBytes));
    return { digest, bytes, filename, mediaType };
  }
}
