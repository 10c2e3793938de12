/**
 * esbuild plugins that make a bundle load native addons and file-bound
 * packages from the executable's extracted tree (src/runtime/carried.ts)
 * instead of from node_modules, without patching any package.
 */
import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Plugin } from 'esbuild';

/** Collects, while bundling, the native files the bundle will load. */
export type NativeFiles = Set<string>;

const toPosix = (file: string) => file.split(path.sep).join('/');

function packageDirOf(file: string): string {
  let dir = path.dirname(file);
  while (!existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return dir;
}

/** An addon and the shared libraries beside it that it links through RUNPATH $ORIGIN (libonnxruntime.so.1). */
function withCompanions(root: string, addon: string): string[] {
  const dir = path.dirname(addon);
  const libraries = readdirSync(dir).filter((name) => /^lib.*\.so(\.\d+)*$/.test(name));
  return [addon, ...libraries.map((name) => path.join(dir, name))].map((file) => toPosix(path.relative(root, file)));
}

const loadFromTree = (carriedModule: string, addon: string) =>
  `require(${JSON.stringify(carriedModule)}).loadCarriedAddon(${JSON.stringify(addon)})`;

/**
 * - `node-gyp-build-optional-packages(dir)` (lmdb, msgpackr-extract) picks a
 *   prebuilt addon at run time; the build asks it which one it would pick
 *   here, and the bundle loads that file from the tree.
 * - `require('x.node')` (onnxruntime-node names its addon by platform and
 *   architecture): the addon for this platform is carried with its
 *   libraries; the others would fail to load anyway and say so.
 */
export function nativeAddons(root: string, carriedModule: string, found: NativeFiles): Plugin {
  return {
    name: 'native-addons',
    setup(build) {
      build.onResolve({ filter: /^node-gyp-build(-optional-packages)?$/ }, (args) => ({
        path: packageDirOf(args.importer),
        namespace: 'prebuilt-addon',
        pluginData: { loader: args.path, importer: args.importer },
      }));
      build.onLoad({ filter: /.*/, namespace: 'prebuilt-addon' }, (args) => {
        const { loader, importer } = args.pluginData as { loader: string; importer: string };
        const pick = createRequire(importer)(loader) as { path: (dir: string) => string };
        const files = withCompanions(root, pick.path(args.path));
        for (const file of files) found.add(file);
        return { contents: `module.exports = () => ${loadFromTree(carriedModule, files[0]!)};`, resolveDir: root, loader: 'js' };
      });
      build.onLoad({ filter: /\.node$/ }, (args) => {
        const here = `${process.platform}/${process.arch}/`;
        if (!toPosix(args.path).includes(here)) {
          return { contents: `throw new Error(${JSON.stringify(`this executable carries no ${path.basename(args.path)} for this platform`)});`, loader: 'js' };
        }
        const files = withCompanions(root, args.path);
        for (const file of files) found.add(file);
        return { contents: `module.exports = ${loadFromTree(carriedModule, files[0]!)};`, resolveDir: root, loader: 'js' };
      });
    },
  };
}

/** A filter matching these package names and nothing else. */
const exactly = (names: string[]) => new RegExp(`^(${names.map((n) => n.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|')})$`);

/** Packages that must stay files on disk (piscina starts its workers from its own worker.js): required from the tree. */
export function carriedPackages(names: string[], carriedModule: string): Plugin {
  const filter = exactly(names);
  return {
    name: 'carried-packages',
    setup(build) {
      build.onResolve({ filter }, (args) => ({ path: args.path, namespace: 'carried-package' }));
      build.onLoad({ filter: /.*/, namespace: 'carried-package' }, (args) => ({
        contents: `module.exports = require(${JSON.stringify(carriedModule)}).requireCarried(${JSON.stringify(args.path)});`,
        resolveDir: path.dirname(carriedModule),
        loader: 'js',
      }));
    },
  };
}

/**
 * Imports of dual packages resolve to their CommonJS build (lmdb's ES build
 * finds its addon through import.meta.url, which a CommonJS bundle lacks).
 * ES-only packages keep esbuild's own resolution.
 */
export function preferRequireBuilds(external: string[]): Plugin {
  return {
    name: 'prefer-require-builds',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.kind !== 'import-statement' || args.path.startsWith('node:') || !args.importer || external.includes(args.path)) return undefined;
        try {
          const resolved = createRequire(args.importer).resolve(args.path);
          return path.isAbsolute(resolved) ? { path: resolved } : undefined;
        } catch {
          return undefined;
        }
      });
    },
  };
}

/**
 * In our own modules, `import.meta.url` (which a CommonJS bundle lacks) becomes
 * the URL of the module's path in the extracted tree, where the other files of
 * src/ are carried: `new URL('../ui/', import.meta.url)` finds the same
 * folder inside the executable as in src/ or dist/.
 */
export function sourceUrlsInTree(root: string, carriedModule: string): Plugin {
  const sources = path.join(root, 'src') + path.sep;
  return {
    name: 'source-urls-in-tree',
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, async (args) => {
        if (!args.path.startsWith(sources) || args.path === carriedModule) return undefined;
        const text = await readFile(args.path, 'utf8');
        if (!text.includes('import.meta.url')) return undefined;
        const url = `require(${JSON.stringify(carriedModule)}).carriedUrl(${JSON.stringify(toPosix(path.relative(root, args.path)))})`;
        return { contents: text.replaceAll('import.meta.url', url), loader: 'ts' };
      });
    },
  };
}
