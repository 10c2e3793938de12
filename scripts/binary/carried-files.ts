/**
 * What the single executable carries besides its JavaScript bundle, as files
 * of the checkout: whole package trees (a package and everything it depends
 * on, as npm installed them) and plain folders. Each becomes one node:sea
 * asset named by its path in the checkout; the manifest records size, hash
 * and mode so the executable can write and check its cache (src/runtime/extract.ts).
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { type CarriedFile, isTreePath } from '../../src/runtime/extract.js';

/** Files no package needs at run time: sources of other tools, docs, typings, source maps. */
const USELESS = [/\.d\.[cm]?ts$/, /\.map$/, /\.md$/i, /\.markdown$/i, /(^|\/)\.github\//, /(^|\/)test\//, /(^|\/)docs?\//];

export interface TreeOptions {
  /** Package directories (relative to the checkout) never carried, e.g. other platforms' binaries. */
  skipPackages?: (dir: string) => boolean;
  /** Files never carried, by path relative to the checkout. */
  skipFiles?: (file: string) => boolean;
}

function packageJson(dir: string): { dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> } {
  return JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
}

/** Where Node would find `name` required from the package at `fromDir`: the nearest node_modules up the tree. */
function resolvePackageDir(root: string, fromDir: string, name: string): string | null {
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (dir === root || dir === path.dirname(dir)) return null;
  }
}

/** The package directories (relative to `root`) of `names` and of all they depend on; absent optional ones are left out. */
export function packageClosure(root: string, names: string[], options: TreeOptions = {}): string[] {
  const found = new Set<string>();
  const visit = (fromDir: string, name: string) => {
    const dir = resolvePackageDir(root, fromDir, name);
    if (dir === null) return;
    const relative = path.relative(root, dir).split(path.sep).join('/');
    if (found.has(relative) || options.skipPackages?.(relative)) return;
    found.add(relative);
    const pkg = packageJson(dir);
    for (const dependency of Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies })) visit(dir, dependency);
  };
  for (const name of names) visit(root, name);
  return [...found].sort();
}

/** Every file under `dir` (relative to `root`), without nested packages (node_modules) and useless files. */
export function filesUnder(root: string, dir: string, options: TreeOptions = {}): string[] {
  const out: string[] = [];
  const walk = (relative: string) => {
    for (const entry of readdirSync(path.join(root, relative), { withFileTypes: true })) {
      const child = `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') walk(child);
      } else if (entry.isFile() && !USELESS.some((pattern) => pattern.test(child.slice(dir.length + 1))) && !options.skipFiles?.(child)) {
        out.push(child);
      }
    }
  };
  walk(dir);
  return out;
}

export function describeFile(root: string, relative: string): CarriedFile {
  if (!isTreePath(relative)) {
    throw new Error(`${relative} lies outside ${root} (is node_modules a symbolic link?); build from a checkout with its own node_modules (npm ci)`);
  }
  const absolute = path.join(root, relative);
  const info = statSync(absolute);
  return {
    path: relative,
    size: info.size,
    sha256: createHash('sha256').update(readFileSync(absolute)).digest('hex'),
    mode: info.mode & 0o777,
  };
}
