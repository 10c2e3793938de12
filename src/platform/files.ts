/**
 * Files: uploaded content plus metadata (`_bytes _digest _filename
 * _mediaType`), with revisions, tags and deprecation. Every precondition is
 * checked before the upload is read, so a rejected request stores nothing; the
 * project is checked again where the file is committed, and a write refused
 * then removes the bytes it stored.
 */
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { AclService } from './acls.js';
import { type BlobStore, type ByteRange, NOT_A_REGULAR_FILE, type StoredBlob } from './blobs.js';
import { checkedAgainstDigest } from './content-digest.js';
import { NXV } from './contexts.js';
import { PlatformError, rejections } from './errors.js';
import type { Identity } from './identities.js';
import type { Logger } from './index.js';
import { type FilterRequest, listingPredicate } from './listing-filter.js';
import type { ProjectService, ProjectState } from './projects.js';
import { type ProjectRef, projectAddress, projectKey, refOf } from './refs.js';
import type { ResourceService } from './resources.js';
import type { EntityState, EntityWrite, FileAttributes, ListedState, RevisionSelector, RevisionStore } from './revisions.js';
import { UNSAFE_IN_NAMES } from './unsafe-characters.js';
import { codePointCount } from '../text/unicode.js';

export interface Upload {
  filename: string;
  mediaType: string;
  content: Readable;
  /** True once the content stream was cut at the size limit. */
  isTruncated(): boolean;
}

/**
 * What reading a file revision's content needs: its bytes' digest (`file`), and its id and project to name
 * it when they are gone. No payload: an archive download pins revisions without theirs (archive/resolve.ts).
 */
type FileContentRevision = Pick<FileState, 'id' | 'project' | 'file'>;

/** A file's revision: unlike a resource's, it always holds the file's attributes. */
export type FileState = EntityState & { file: FileAttributes };

/** `state`, a revision of a file, with its attributes (stored with every revision of a file: missing means a damaged store). */
export function asFileRevision<State extends Pick<EntityState, 'id' | 'rev' | 'project' | 'file'>>(state: State): State & { file: FileAttributes } {
  if (state.file === undefined) throw new Error(`revision ${state.rev} of file ${state.id} in ${state.project} holds no file attributes`);
  return state as State & { file: FileAttributes };
}

/** An upload's bytes in the content store, with the metadata they are committed with. */
type StoredUpload = Pick<StoredBlob, 'release' | 'discard'> & { file: FileAttributes };

/** The file name becomes a path inside archives and a download name: it must be one plain path segment. */
const isUnsafeFilename = (name: string) => name.includes('/') || UNSAFE_IN_NAMES.test(name);
/** In characters (code points), as the refusal says: an emoji is one. */
export const MAX_UPLOAD_FILENAME_LENGTH = 255;
const MEDIA_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*$/;
/**
 * RFC 6838 bounds a media type's type and subtype at 127 characters each; with parameters, 255 in all is
 * plenty. The type is echoed as Content-Type: an unbounded one would overflow clients' header limits.
 */
const MAX_MEDIA_TYPE_LENGTH = 255;
const MAX_MEDIA_TYPE_NAME_LENGTH = 127;

/** The only storage: the platform's disk storage, named as in Nexus. */
const STORAGE_NAMES = new Set(['defaultStorage', 'nxv:diskStorageDefault', `${NXV}diskStorageDefault`]);

/** What a content whose bytes no longer match its digest is said to be. */
const CHANGED = 'its bytes no longer match its SHA-256';

export class FileService {
  /**
   * Digests whose content a whole download found changed on disk: refused at once from then on, Range included (else a
   * resumed download, `curl -C -`, is served the changed bytes unchecked and completes with exit 0), until the
   * same bytes are uploaded again or the server restarts.
   */
  private readonly changed = new Set<string>();

  /** `org/project` + id of every file write in progress: a second concurrent write of one id is refused before its bytes are stored. */
  private readonly writing = new Set<string>();

  constructor(
    private readonly revisions: RevisionStore,
    private readonly projects: ProjectService,
    private readonly resources: ResourceService,
    private readonly acls: AclService,
    private readonly blobs: BlobStore,
    readonly maxFileBytes: number,
    private readonly logger: Logger,
  ) {}

  /**
   * Throws the 403 of a write of files in the project unless the caller holds `files/write` there. The writes
   * check it themselves; the HTTP layer checks it also before reading a write's body, so that a refused write
   * costs no upload.
   */
  requireWriter(ref: ProjectRef, identity: Identity): void {
    this.acls.require(identity, 'files/write', projectAddress(ref));
  }

  /**
   * Creates a file under `idSegment` (or a generated id). Every precondition, the id's reservation
   * included, is settled before `upload` is asked for the content, so a refused request stores nothing.
   */
  async create(ref: ProjectRef, idSegment: string | undefined, storage: string | undefined, upload: () => Promise<Upload>, identity: Identity): Promise<EntityState> {
    const project = await this.projectForWriter(ref, storage, identity);
    const id = idSegment === undefined ? project.base + randomUUID() : this.resources.expandId(project, idSegment);
    return this.whileReserved(projectKey(ref), id, rejections.fileCreationInProgress(id, projectKey(ref)), async () => {
      // Checked once the id is reserved: no write of this id can commit between this check and ours.
      await this.revisions.assertCreatable(projectKey(ref), id);
      return this.committed(ref, await this.store(await upload()), (file) =>
        this.revisions.create(projectKey(ref), id, 'file', { source: {}, file }, identity),
      );
    });
  }

  async update(ref: ProjectRef, idSegment: string, rev: number, storage: string | undefined, upload: () => Promise<Upload>, identity: Identity): Promise<EntityState> {
    const project = await this.projectForWriter(ref, storage, identity);
    const id = this.resources.expandId(project, idSegment);
    return this.whileReserved(projectKey(ref), id, updateInProgress(id), async () => {
      await this.revisions.checkedForChange(projectKey(ref), id, 'file', { kind: 'update', rev });
      return this.committed(ref, await this.store(await upload()), (file) =>
        this.revisions.update(projectKey(ref), id, 'file', rev, identity, () => ({ file })),
      );
    });
  }

  /**
   * Commits the stored upload with `write`, once the project is checked again in the same transaction: the
   * upload took its time, and the project may no longer take writes. A refused commit removes the bytes.
   */
  private async committed(ref: ProjectRef, stored: StoredUpload, write: (file: FileAttributes) => Promise<EntityState>): Promise<EntityState> {
    try {
      return await this.projects.whileWritable(ref, () => write(stored.file));
    } catch (error) {
      // A refusal rolled the transaction back: nothing references the bytes. After any other failure the commit may have happened.
      if (error instanceof PlatformError && error.status < 500) await stored.discard();
      throw error;
    } finally {
      stored.release();
    }
  }

  private async whileReserved<T>(project: string, id: string, refusal: PlatformError, write: () => Promise<T>): Promise<T> {
    const key = reservationKey(project, id);
    if (this.writing.has(key)) throw refusal;
    this.writing.add(key);
    try {
      return await write();
    } finally {
      this.writing.delete(key);
    }
  }

  async tag(ref: ProjectRef, idSegment: string, rev: number, tag: string, target: number, identity: Identity): Promise<EntityState> {
    return this.revisions.tag(projectKey(ref), await this.changedId(ref, idSegment, identity), 'file', rev, tag, target, identity);
  }

  async untag(ref: ProjectRef, idSegment: string, rev: number, tag: string, identity: Identity): Promise<EntityState> {
    return this.revisions.untag(projectKey(ref), await this.changedId(ref, idSegment, identity), 'file', rev, tag, identity);
  }

  async deprecate(ref: ProjectRef, idSegment: string, rev: number, identity: Identity): Promise<EntityState> {
    return this.revisions.deprecate(projectKey(ref), await this.changedId(ref, idSegment, identity), 'file', rev, identity);
  }

  async undeprecate(ref: ProjectRef, idSegment: string, rev: number, identity: Identity): Promise<EntityState> {
    return this.revisions.undeprecate(projectKey(ref), await this.changedId(ref, idSegment, identity), 'file', rev, identity);
  }

  /** The full id of the file a tag, tag deletion, deprecation or undeprecation changes, once the caller may write files in a project that takes writes. */
  private async changedId(ref: ProjectRef, idSegment: string, identity: Identity): Promise<string> {
    return this.resources.expandId(await this.projectForWriter(ref, undefined, identity), idSegment);
  }

  async fetch(ref: ProjectRef, idSegment: string, selector: RevisionSelector, identity: Identity): Promise<{ state: FileState; project: ProjectState }> {
    this.acls.require(identity, 'resources/read', projectAddress(ref));
    const project = await this.projects.forRead(ref);
    return { state: await this.fetchById(project, this.resources.expandId(project, idSegment), selector), project };
  }

  /**
   * The project a file is uploaded to, as a POST's preconditions see it: for a caller who may write files
   * there, whether or not they may read them (else the write's 403), to a storage that exists (else the
   * write's 404), and a project that takes writes (else the write's 400: a read-only, deprecated project or
   * organization refuses first).
   */
  async projectForWriter(ref: ProjectRef, storage: string | undefined, identity: Identity): Promise<ProjectState> {
    this.requireWriter(ref, identity);
    assertStorage(storage);
    return this.projects.forWrite(ref);
  }

  /**
   * The file's latest revision, as a write's preconditions see it: for a caller who may write files in the
   * project, whether or not they may read them (else the write's 403), checked as projectForWriter checks an
   * upload's project (`storage`: the one an upload names), and, for a change, once the change's own checks
   * pass (else its 400, 404 or 409: another upload of the file in progress, a stale `rev`, the file's state):
   * a write refused anyway answers its refusal, not 412. A creation finds the file as `fetch` finds it.
   */
  async readForWriter(ref: ProjectRef, idSegment: string, write: EntityWrite, storage: string | undefined, identity: Identity): Promise<EntityState> {
    const project = await this.projectForWriter(ref, storage, identity);
    const id = this.resources.expandId(project, idSegment);
    if (write.kind === 'create') return this.fetchById(project, id, {});
    // As update refuses it first: its revision is about to change.
    if (write.kind === 'update' && this.writing.has(reservationKey(projectKey(ref), id))) throw updateInProgress(id);
    return this.revisions.checkedForChange(projectKey(ref), id, 'file', write);
  }

  /** Latest revisions of the project's files (only files: the resource listing holds both), in id order, only those passing the request's filters (listing-filter.ts). */
  async list(ref: ProjectRef, offset: number, limit: number, identity: Identity, request?: FilterRequest): Promise<{ total: number; states: ListedState[] }> {
    this.acls.require(identity, 'resources/read', projectAddress(ref));
    const project = await this.projects.forRead(ref);
    if (project.readOnly) return { total: 0, states: [] };
    const keep = listingPredicate(request, project, this.projects.effectiveMappings(project));
    return this.revisions.list(projectKey(ref), 'file', offset, limit, keep);
  }

  /** A file of a readable project by its full id: what archive File entries refer to. */
  async fetchById(project: ProjectState, id: string, selector: RevisionSelector): Promise<FileState> {
    const key = projectKey(refOf(project));
    if (project.readOnly || (await this.revisions.kindOf(key, id)) !== 'file') throw rejections.fileNotFound(id, key);
    return asFileRevision(await this.revisions.fetch(key, id, selector));
  }

  /**
   * Throws FileContentNotFound when the bytes are gone, are not as many as were stored (the file cut short or
   * grown on disk), or are not a regular file (a symbolic link, which could lead outside the data directory, a
   * directory, a FIFO), so that a download fails before its first byte rather than mid-stream, where a content
   * cut short would be answered 200 with fewer bytes than its Content-Length.
   */
  assertContent(state: FileContentRevision): void {
    const { digest, bytes } = state.file;
    if (this.changed.has(digest)) throw this.refusedContent(digest, rejections.fileContentDamaged(state.id, state.project, CHANGED));
    const size = this.blobs.sizeOf(digest);
    if (size === null) {
      this.blobs.assertAvailableSync();
      throw this.refusedContent(digest, rejections.fileContentMissing(state.id, state.project));
    }
    if (size === NOT_A_REGULAR_FILE) throw this.refusedContent(digest, rejections.fileContentDamaged(state.id, state.project, NOT_A_REGULAR_FILE));
    if (size !== bytes) throw this.refusedContent(digest, rejections.fileContentDamaged(state.id, state.project, `${size} bytes where ${bytes} were stored`));
  }

  /** Logs the refusal with the content's path, which the answer does not name: an operator has to find it. */
  private refusedContent(digest: string, refusal: PlatformError): PlatformError {
    this.logger.warn(`${refusal.reason} Its content is ${this.blobs.pathOf(digest)}: restore it from a backup (its SHA-256 is its name).`);
    return refusal;
  }

  /** The file's whole bytes, checked against their digest as they stream (see checkedContent). */
  content(state: FileContentRevision): Readable {
    return this.checkedContent(state)();
  }

  /** The file's whole bytes, unchecked: for a reader that checks them otherwise (a stored ZIP entry's second read, archive/zip.ts). */
  uncheckedContent(state: FileContentRevision): Readable {
    this.assertContent(state);
    return this.wholeContent(state);
  }

  /**
   * Checks that the bytes are there (assertContent), then gives what opens them, whole or a range, without
   * checking again: a download settles its range between the check and the read, and looks at the disk once.
   * The whole content is checked against its digest as it streams (content-digest.ts: a mismatch fails the
   * stream before its last chunk, and is logged); a range is not, as that would read the whole file.
   */
  checkedContent(state: FileContentRevision): (range?: ByteRange) => Readable {
    this.assertContent(state);
    const { digest } = state.file;
    return (range) =>
      range === undefined ? checkedAgainstDigest(this.wholeContent(state), digest, () => this.changedContent(state)) : this.blobs.open(digest, range);
  }

  private wholeContent(state: FileContentRevision): Readable {
    const { digest, bytes } = state.file;
    // Bounded even when whole: the stream then ends with its last byte, not at a further read finding the end, and the
    // response ends before a client holding every byte (its Content-Length) closes the connection.
    return this.blobs.open(digest, bytes > 0 ? { start: 0, end: bytes - 1 } : undefined);
  }

  /**
   * The refusal, logged, of a content whose bytes no longer match its digest: a typed 404 as for other damage, so
   * that an archive whose first entry it is (nothing sent yet) is answered so, not with a 500.
   */
  private changedContent(state: FileContentRevision): PlatformError {
    const { digest } = state.file;
    this.logger.error(
      { digest },
      `file content ${this.blobs.pathOf(digest)} does not match its SHA-256: its bytes changed on disk, and its download was cut. ` +
        'Restore it from a backup (its SHA-256 is its name).',
    );
    this.changed.add(digest);
    return rejections.fileContentDamaged(state.id, state.project, CHANGED);
  }

  /** The first bytes of the content, to judge whether it compresses. */
  contentHead(state: FileContentRevision, length: number): Promise<Buffer> {
    return this.blobs.head(state.file.digest, length);
  }

  /** Digests of every revision of every file: what the content store must keep. */
  async referencedDigests(): Promise<Set<string>> {
    const projects = await this.projects.all();
    return this.revisions.fileDigests(projects.filter((project) => !project.readOnly).map((project) => projectKey(refOf(project))));
  }

  private async store(upload: Upload): Promise<StoredUpload> {
    const filename = upload.filename;
    if (filename === '' || filename === '.' || filename === '..' || isUnsafeFilename(filename) || codePointCount(filename) > MAX_UPLOAD_FILENAME_LENGTH) {
      discard(upload.content);
      throw rejections.invalidFile(
        `File name '${filename}' is not allowed: it must be 1 to ${MAX_UPLOAD_FILENAME_LENGTH} characters, not '.' or '..', without '/', '\\', control, bidirectional or invisible characters.`,
      );
    }
    if (filename.includes('\uFFFD')) {
      discard(upload.content);
      // What a name's bytes that were not UTF-8 became: stored, it would name another file than the one sent.
      throw rejections.invalidFile(`File name '${filename}' is not valid UTF-8 (it holds U+FFFD, the replacement for undecodable bytes).`);
    }
    const lengthProblem = mediaTypeLengthProblem(upload.mediaType);
    if (lengthProblem !== null) {
      discard(upload.content);
      throw rejections.invalidFile(lengthProblem);
    }
    const mediaType = MEDIA_TYPE.test(upload.mediaType) ? upload.mediaType.toLowerCase() : 'application/octet-stream';
    const blob = await this.blobs.write(upload.content, upload.isTruncated, () => rejections.fileTooLarge(this.maxFileBytes));
    // The same bytes uploaded again are written over the changed ones: the content is whole again.
    this.changed.delete(blob.digest);
    return { file: { digest: blob.digest, bytes: blob.bytes, filename, mediaType }, release: blob.release, discard: blob.discard };
  }
}

/** What `FileService.writing` holds for a write of `id` in `project` (`org/project`). */
function reservationKey(project: string, id: string): string {
  return `${project}\n${id}`;
}

/** The 409 of an update while another write of the file is in progress. */
function updateInProgress(id: string): PlatformError {
  return new PlatformError(409, 'IncorrectRev', `Another write of '${id}' is in progress: its revision is about to change.`);
}

/**
 * Reads a refused upload to its end, so that the client's request completes. The request is refused
 * already: a later failure of the stream (such as a second file part) has nothing left to change.
 */
function discard(content: Readable): void {
  content.on('error', () => undefined).resume();
}

/** Why the media type sent is too long to keep, or null. */
function mediaTypeLengthProblem(mediaType: string): string | null {
  const [type = '', subtype = ''] = mediaType.split(';', 1)[0]!.split('/');
  const which = "The file's media type (Content-Type of its part)";
  // The bound broken is named with its count: a 128-character subtype is told its own 128, not the whole type's 133 (within their 255).
  if (mediaType.length > MAX_MEDIA_TYPE_LENGTH) return `${which} has ${mediaType.length} characters: at most ${MAX_MEDIA_TYPE_LENGTH} are allowed.`;
  for (const [part, name] of [['type', type], ['subtype', subtype]] as const) {
    if (name.length > MAX_MEDIA_TYPE_NAME_LENGTH) return `${which} has a ${part} of ${name.length} characters: at most ${MAX_MEDIA_TYPE_NAME_LENGTH} are allowed (RFC 6838).`;
  }
  return null;
}

function assertStorage(storage: string | undefined): void {
  if (storage !== undefined && !STORAGE_NAMES.has(storage)) throw rejections.storageNotFound(storage);
}
