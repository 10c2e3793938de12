/**
 * Writes the files the single executable carries (native addons and their
 * libraries, packages kept as files, the demo corpus) to a cache directory,
 * once per build of the executable: `<cache>/<content hash>/<path>`.
 *
 * Every start checks each file against the SHA-256 recorded at build time and
 * rewrites what is missing, truncated or altered, so a damaged cache is
 * repaired instead of loaded. Files are written beside their target and
 * renamed into place, so two processes starting at once never see a partial
 * file, and a library in use by a running server is replaced, not overwritten.
 */
import { createHash } from 'node:crypto';
import { chmodSync, closeSync, openSync, readSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
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

export class CacheNotWritableError extends Error {}

export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.XDG_CACHE_HOME || path.join(homedir(), '.cache'), 'litserve');
}

/** The name of one build's tree: a hash of everything it holds. */
export function contentId(manifest: CarriedManifest): string {
  const listing = manifest.files.map((f) => `${f.path}\0${f.size}\0${f.sha256}\0${f.mode}`).join('\n');
  return createHash('sha256').update(listing).digest('hex').slice(0, 16);
}

/** Hashes a file in chunks (the largest library is tens of MB; reading it whole would inflate RSS). */
export function sha256OfFile(file: string): string {
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
 * empty, `.` or `..` segment. A build that resolved a package through a symlink
 * out of the checkout had produced `../..` paths, which extraction then wrote
 * outside the cache.
 */
export function isTreePath(file: string): boolean {
  return !file.includes('\0') && file.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

function isIntact(target: string, file: CarriedFile): boolean {
  try {
    const info = statSync(target);
    return info.isFile() && info.size === file.size && sha256OfFile(target) === file.sha256;
  } catch {
    return false; // absent or unreadable: rewrite it (and report why if that fails)
  }
}

export interface ExtractReport {
  root: string;
  /** Files (re)written by this call: all of them on a first start, none on a warm one. */
  written: string[];
}

/**
 * Makes `<cacheDir>/<content id>` hold exactly the carried files; `readAsset`
 * gives a file's bytes by its path (node:sea's getRawAsset in the executable).
 */
export function extractCarried(cacheDir: string, manifest: CarriedManifest, readAsset: (key: string) => Uint8Array): ExtractReport {
  const root = path.join(path.resolve(cacheDir), contentId(manifest));
  const outside = manifest.files.find((file) => !isTreePath(file.path));
  if (outside) throw new Error(`the executable is damaged: it names ${JSON.stringify(outside.path)}, a path outside its tree`);
  const written: string[] = [];
  for (const file of manifest.files) {
    const target = path.join(root, ...file.path.split('/'));
    if (isIntact(target, file)) continue;
    const bytes = readAsset(file.path);
    if (bytes.byteLength !== file.size) throw new Error(`the executable is damaged: its copy of ${file.path} has ${bytes.byteLength} bytes, ${file.size} expected`);
    const temporary = `${target}.${process.pid}.tmp`;
    try {
      makeDirectories(path.dirname(target));
      writeFileSync(temporary, bytes);
      chmodSync(temporary, file.mode);
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
  return { root, written };
}

function notWritable(root: string, error: NodeJS.ErrnoException): Error {
  if (!['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT', 'ENOTDIR', 'EEXIST'].includes(error.code ?? '')) return error;
  return new CacheNotWritableError(
    `cannot write the native libraries this executable carries to ${root} (${error.code}: ${error.message}); ` +
      `point ${SETTING} at a writable directory`,
  );
}
