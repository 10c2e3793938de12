/**
 * Writes the files the single executable carries (native addons and their
 * libraries, packages kept as files, the demo corpus) to a cache directory,
 * once per build of the executable: `<cache>/<content hash>/<path>`.
 *
 * Every start checks each file against the SHA-256 recorded at build time and
 * rewrites what is missing, truncated or altered, so a damaged cache is
 * repaired instead of loaded; a symbolic link inside the tree is replaced, not
 * followed, and whatever else the tree holds is removed (Node would load a
 * module planted beside the carried ones). Files are written beside their target and
 * renamed into place, so two processes starting at once never see a partial
 * file, and a library in use by a running server is replaced, not overwritten.
 */
import { createHash } from 'node:crypto';
import { chmodSync, closeSync, lstatSync, mkdirSync, openSync, readdirSync, readSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import path from 'node:path';
import { makeDirectories } from '../directories.js';

export interface CarriedFile {
  /** Path inside the tree, `/`-separated, as in the checkout (`node_modules/lmdb/...`). */
  path: string;
  size: number;
  sha256: string;
  /** File mode bits to restore (executables stay executable). */
  mode: number;
}

export interface CarriedManifest {
  files: CarriedFile[];
}

/** The asset holding the manifest; every file is the asset named by its path. */
export const MANIFEST_ASSET = 'carried-manifest.json';
const SETTING = '--cache-dir / LITSERVE_CACHE_DIR';
const HASH_CHUNK = 1 << 20;
/** `<target>.<pid>.tmp`: a file being written, renamed to its target once complete. */
const TEMPORARY = /\.\d+\.tmp$/;
/**
 * A temporary untouched this long belongs to no running start (writing the
 * largest library takes about a second), so it was abandoned by a start killed
 * mid-write. Age, not the writer's pid, decides: a process sharing the cache
 * from another pid namespace has pids this one cannot see.
 */
export const ABANDONED_AFTER_MS = 60_000;

export class CacheNotWritableError extends Error {}

/** The home directory of the account (passwd), for a process started without HOME. */
function accountHome(): string | undefined {
  try {
    return userInfo().homedir;
  } catch {
    return undefined; // a uid without a passwd entry
  }
}

/**
 * `$XDG_CACHE_HOME/litserve`, else `$HOME/.cache/litserve`. Relative values are
 * ignored, as the XDG specification asks: an empty HOME (`HOME= litserve`)
 * would make `.cache/litserve` relative to the working directory, so the
 * libraries would be written wherever the server happened to be started.
 */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env, home: () => string | undefined = accountHome): string {
  const xdg = env.XDG_CACHE_HOME;
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, 'litserve');
  const homeDir = [env.HOME, home()].find((dir) => dir && path.isAbsolute(dir));
  if (!homeDir) throw new Error(`no cache directory: XDG_CACHE_HOME and HOME are unset or relative; set ${SETTING}`);
  return path.join(homeDir, '.cache', 'litserve');
}

/** The name of one build's tree: a hash of everything it holds. */
export function contentId(manifest: CarriedManifest): string {
  const listing = manifest.files.map((f) => `${f.path}\0${f.size}\0${f.sha256}\0${f.mode}`).join('\n');
  return createHash('sha256').update(listing).digest('hex').slice(0, 16);
}

const BUILD_NAME = /^[0-9a-f]{16}$/;

/** Hashes a file in chunks (the largest library is tens of MB; reading it whole would inflate RSS). */
function sha256OfFile(file: string): string {
  const hash = createHash('sha256');
  const buffer = Buffer.allocUnsafe(HASH_CHUNK);
  const fd = openSync(file, 'r');
  try {
    for (let read; (read = readSync(fd, buffer, 0, HASH_CHUNK, null)) > 0; ) hash.update(buffer.subarray(0, read));
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}

/**
 * A carried path names a file inside the tree: relative, `/`-separated, with no
 * empty, `.` or `..` segment. A build that resolves a package through a symlink
 * out of the checkout produces `../..` paths, which extraction would otherwise
 * write outside the cache.
 */
export function isTreePath(file: string): boolean {
  return !file.includes('\0') && file.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

function isIntact(target: string, file: CarriedFile): boolean {
  try {
    // lstat: a link to a file of the right bytes elsewhere is loaded from there, where they can change unchecked.
    const info = lstatSync(target);
    return info.isFile() && info.size === file.size && sha256OfFile(target) === file.sha256;
  } catch {
    return false; // absent or unreadable: rewrite it (and report why if that fails)
  }
}

interface ExtractReport {
  root: string;
  /** Files (re)written by this call: all of them on a first start, none on a warm one. */
  written: string[];
  /** What the tree held besides the carried files, removed by this call (paths inside the tree). */
  removed: string[];
}

/** Where extractCarried puts this build's files: known before they are written. */
export function carriedTreeOf(cacheDir: string, manifest: CarriedManifest): string {
  return path.join(path.resolve(cacheDir), contentId(manifest));
}

/**
 * Makes `<cacheDir>/<content id>` hold exactly the carried files; `readAsset`
 * gives a file's bytes by its path (node:sea's getRawAsset in the executable).
 */
export function extractCarried(cacheDir: string, manifest: CarriedManifest, readAsset: (key: string) => Uint8Array): ExtractReport {
  const root = carriedTreeOf(cacheDir, manifest);
  const outside = manifest.files.find((file) => !isTreePath(file.path));
  if (outside) throw new Error(`the executable is damaged: it names ${JSON.stringify(outside.path)}, a path outside its tree`);
  const folders = carriedFolders(manifest);
  try {
    makeDirectories(root);
    for (const folder of folders) ensureRealFolder(path.join(root, ...folder.split('/')));
  } catch (error) {
    throw notWritable(root, error as NodeJS.ErrnoException);
  }
  const written: string[] = [];
  for (const file of manifest.files) {
    const target = path.join(root, ...file.path.split('/'));
    if (isIntact(target, file)) continue;
    const bytes = readAsset(file.path);
    if (bytes.byteLength !== file.size) throw new Error(`the executable is damaged: its copy of ${file.path} has ${bytes.byteLength} bytes, ${file.size} expected`);
    const temporary = `${target}.${process.pid}.tmp`;
    try {
      writeFileSync(temporary, bytes);
      chmodSync(temporary, file.mode);
      // A folder where the file goes cannot be renamed over (a link or a file can, the link itself replaced).
      if (lstatSync(target, { throwIfNoEntry: false })?.isDirectory()) rmSync(target, { recursive: true, force: true });
      renameSync(temporary, target);
    } catch (error) {
      try {
        unlinkSync(temporary);
      } catch {
        // never written
      }
      throw notWritable(root, error as NodeJS.ErrnoException);
    }
    written.push(file.path);
  }
  const removed = removeStrays(root, new Set(manifest.files.map((file) => file.path)), folders);
  return { root, written, removed };
}

/** Every folder of the tree holding a carried file, parents before their children (`node_modules`, `node_modules/pkg`). */
function carriedFolders(manifest: CarriedManifest): string[] {
  const folders = new Set<string>();
  for (const file of manifest.files) {
    const segments = file.path.split('/');
    for (let depth = 1; depth < segments.length; depth++) folders.add(segments.slice(0, depth).join('/'));
  }
  return [...folders].sort((a, b) => a.split('/').length - b.split('/').length);
}

/**
 * Makes `folder` a directory of the tree itself. A symbolic link there (or a file) is removed first: files
 * written through a link would land wherever it points, outside the cache, and files found intact through it
 * would be loaded from there. Removing a link never touches what it points to.
 */
function ensureRealFolder(folder: string): void {
  const info = lstatSync(folder, { throwIfNoEntry: false });
  if (info?.isDirectory()) return;
  if (info !== undefined) rmSync(folder, { force: true });
  try {
    mkdirSync(folder);
  } catch (error) {
    // Made meanwhile by another start: what was wanted.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || !lstatSync(folder).isDirectory()) throw error;
  }
}

/**
 * Removes what the tree holds besides the carried files and their folders: a module planted beside the
 * carried ones would be loaded by Node's resolution (`node_modules/pkg/node_modules/dep`), and temporaries
 * that starts killed while writing left behind (SIGTERM or SIGINT too: no handler is installed that early;
 * each is up to a whole library, 45 MB for onnxruntime's, and a service killed during its first starts would
 * fill the disk one temporary at a time). A temporary younger than ABANDONED_AFTER_MS is another start's,
 * still being written, and is kept. Links are removed as entries, never followed.
 */
function removeStrays(root: string, carried: Set<string>, folders: readonly string[]): string[] {
  const carriedFolder = new Set(folders);
  const removed: string[] = [];
  const now = Date.now();
  const visit = (relative: string): void => {
    let entries;
    try {
      entries = readdirSync(path.join(root, ...relative.split('/').filter(Boolean)), { withFileTypes: true });
    } catch {
      return; // an unreadable folder was refused above; tidying never stops a start
    }
    for (const entry of entries) {
      const inner = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory() && carriedFolder.has(inner)) {
        visit(inner);
        continue;
      }
      if (entry.isFile() && carried.has(inner)) continue;
      const found = path.join(root, ...inner.split('/'));
      try {
        if (TEMPORARY.test(inner) && entry.isFile() && now - lstatSync(found).mtimeMs < ABANDONED_AFTER_MS) continue;
        rmSync(found, { recursive: true, force: true });
        removed.push(inner);
      } catch {
        // renamed or removed meanwhile by its writer or another start
      }
    }
  };
  visit('');
  return removed;
}

interface OtherBuild {
  dir: string;
  bytes: number;
}

/**
 * The trees of other builds beside `root` (each deployment of a new build adds
 * one, about 90 MB). They are not deleted here: a server of an older build may
 * still be running and load files from its tree (workers, the model's
 * binaries), so the operator is told and decides.
 */
export function otherBuilds(root: string): OtherBuild[] {
  const cacheDir = path.dirname(root);
  const own = path.basename(root);
  const sizeOf = (dir: string) =>
    readdirSync(dir, { recursive: true, encoding: 'utf8' }).reduce((sum, entry) => {
      const info = statSync(path.join(dir, entry), { throwIfNoEntry: false });
      return sum + (info?.isFile() ? info.size : 0);
    }, 0);
  try {
    return readdirSync(cacheDir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && BUILD_NAME.test(entry.name) && entry.name !== own)
      .map((entry) => ({ dir: path.join(cacheDir, entry.name), bytes: sizeOf(path.join(cacheDir, entry.name)) }));
  } catch {
    return []; // a note for the operator is not worth failing a start
  }
}

function notWritable(root: string, error: NodeJS.ErrnoException): Error {
  if (!['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT', 'ENOTDIR', 'EEXIST'].includes(error.code ?? '')) {
    if (error.syscall === undefined) return error;
    // Something in the tree that is not what was written (a carried file replaced by a folder: EISDIR; a link to
    // nowhere: ENOENT): the system's words alone name neither the cache nor the setting.
    return new CacheNotWritableError(
      `cannot write the native libraries this executable carries to ${root} (${error.message}): something in that folder is not what ` +
        `was written there; remove the folder to have it written again, or point ${SETTING} at another directory`,
    );
  }
  return new CacheNotWritableError(
    `cannot write the native libraries this executable carries to ${root} (${error.message}); ` +
      `point ${SETTING} at a writable directory`,
  );
}
