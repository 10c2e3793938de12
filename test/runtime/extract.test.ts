/**
 * The single executable's cache of carried files, without building it:
 * written once, checked by hash on every call, repaired when damaged, refused
 * with the setting to change when it cannot be written.
 */
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, truncateSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ABANDONED_AFTER_MS, CacheNotWritableError, contentId, defaultCacheDir, extractCarried, otherBuilds, type CarriedManifest } from '../../src/runtime/extract.js';
import { tempDir } from '../search/helpers.js';
import { describeFile } from '../../scripts/binary/carried-files.js';

const contents: Record<string, Buffer> = {
  'node_modules/pkg/addon.node': Buffer.alloc(3 << 20, 7), // several hash chunks
  'node_modules/pkg/libcompanion.so.1': Buffer.from('library'),
  'data/demo/articles.jsonl': Buffer.from('{"article_id":"a"}\n'),
};
const manifest: CarriedManifest = {
  files: Object.entries(contents).map(([file, bytes]) => ({
    path: file,
    size: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    mode: file.endsWith('.node') ? 0o755 : 0o644,
  })),
};
const readAsset = (key: string) => contents[key]!;

describe('extractCarried', () => {
  it('writes every file once, then only checks them', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const first = extractCarried(dir, manifest, readAsset);
      expect(first.root).toBe(path.join(dir, contentId(manifest)));
      expect(first.written.sort()).toEqual(Object.keys(contents).sort());
      for (const [file, bytes] of Object.entries(contents)) expect(readFileSync(path.join(first.root, file)).equals(bytes)).toBe(true);
      expect(statSync(path.join(first.root, 'node_modules/pkg/addon.node')).mode & 0o777).toBe(0o755);
      expect(extractCarried(dir, manifest, readAsset).written).toEqual([]);
    } finally {
      await cleanup();
    }
  });

  it('rewrites a truncated, an altered (same size) and a missing file', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const { root } = extractCarried(dir, manifest, readAsset);
      truncateSync(path.join(root, 'node_modules/pkg/addon.node'), 100);
      writeFileSync(path.join(root, 'node_modules/pkg/libcompanion.so.1'), 'LIBRARY');
      unlinkSync(path.join(root, 'data/demo/articles.jsonl'));
      expect(extractCarried(dir, manifest, readAsset).written.sort()).toEqual(Object.keys(contents).sort());
      for (const [file, bytes] of Object.entries(contents)) expect(readFileSync(path.join(root, file)).equals(bytes)).toBe(true);
    } finally {
      await cleanup();
    }
  });

  it('deletes temporaries abandoned by a start killed mid-write, and keeps one still being written', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const { root } = extractCarried(dir, manifest, readAsset);
      const abandoned = path.join(root, 'node_modules/pkg/addon.node.4242.tmp');
      const inProgress = path.join(root, 'node_modules/pkg/libcompanion.so.1.4243.tmp');
      writeFileSync(abandoned, contents['node_modules/pkg/addon.node']!);
      writeFileSync(inProgress, 'lib');
      const before = (Date.now() - ABANDONED_AFTER_MS - 1000) / 1000;
      utimesSync(abandoned, before, before);
      expect(extractCarried(dir, manifest, readAsset)).toMatchObject({ written: [], removed: ['node_modules/pkg/addon.node.4242.tmp'] });
      expect(existsSync(abandoned)).toBe(false);
      expect(existsSync(inProgress)).toBe(true);
      for (const [file, bytes] of Object.entries(contents)) expect(readFileSync(path.join(root, file)).equals(bytes)).toBe(true);
    } finally {
      await cleanup();
    }
  });

  it('finds the trees other builds left beside its own, with their size', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const { root } = extractCarried(dir, manifest, readAsset);
      expect(otherBuilds(root)).toEqual([]);
      const old = path.join(dir, '0123456789abcdef');
      mkdirSync(path.join(old, 'node_modules', 'pkg'), { recursive: true });
      writeFileSync(path.join(old, 'node_modules', 'pkg', 'addon.node'), Buffer.alloc(5000));
      writeFileSync(path.join(old, 'package.json'), '{}');
      mkdirSync(path.join(dir, 'not-a-build')); // an operator's own folder is none of its business
      expect(otherBuilds(root)).toEqual([{ dir: old, bytes: 5002 }]);
    } finally {
      await cleanup();
    }
  });

  it('gives each build its own folder', () => {
    const other: CarriedManifest = { files: manifest.files.map((f, i) => (i === 0 ? { ...f, sha256: '0'.repeat(64) } : f)) };
    expect(contentId(other)).not.toBe(contentId(manifest));
  });

  it('refuses a cache it cannot write, naming the setting, and leaves no partial file', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const blocker = path.join(dir, 'not-a-directory');
      writeFileSync(blocker, '');
      const attempt = () => extractCarried(blocker, manifest, readAsset);
      expect(attempt).toThrow(CacheNotWritableError);
      expect(attempt).toThrow(/cannot write the native libraries .*; point --cache-dir \/ LITSERVE_CACHE_DIR at a writable directory/);
      expect(attempt).toThrow(/\(ENOTDIR: not a directory/); // the code once, as the system says it
      expect(readFileSync(blocker, 'utf8')).toBe('');
    } finally {
      await cleanup();
    }
  });

  it('replaces a folder where a carried file goes', async () => {
    // It had been refused (EISDIR), asking the operator to remove the folder by hand.
    const { dir, cleanup } = await tempDir();
    try {
      const { root } = extractCarried(dir, manifest, readAsset);
      const replaced = path.join(root, 'data', 'demo', 'articles.jsonl');
      unlinkSync(replaced);
      mkdirSync(path.join(replaced, 'inner'), { recursive: true });
      const repair = extractCarried(dir, manifest, readAsset);
      expect(repair.written).toEqual(['data/demo/articles.jsonl']);
      expect(readFileSync(replaced).equals(contents['data/demo/articles.jsonl']!)).toBe(true);
    } finally {
      await cleanup();
    }
  });

  it('replaces a symbolic link to a folder inside the tree instead of writing through it', async () => {
    // The repair had written the package's files wherever the link pointed, outside the cache.
    const { dir, cleanup } = await tempDir();
    try {
      const { root } = extractCarried(dir, manifest, readAsset);
      const elsewhere = path.join(dir, 'elsewhere');
      mkdirSync(elsewhere);
      writeFileSync(path.join(elsewhere, 'keep.txt'), 'not the cache');
      rmSync(path.join(root, 'node_modules', 'pkg'), { recursive: true });
      symlinkSync(elsewhere, path.join(root, 'node_modules', 'pkg'));
      const repair = extractCarried(dir, manifest, readAsset);
      expect(repair.written.sort()).toEqual(['node_modules/pkg/addon.node', 'node_modules/pkg/libcompanion.so.1']);
      expect(lstatSync(path.join(root, 'node_modules', 'pkg')).isDirectory()).toBe(true);
      expect(readdirSync(elsewhere)).toEqual(['keep.txt']);
    } finally {
      await cleanup();
    }
  });

  it('replaces a folder link holding intact copies, and a file link to an intact copy, rather than loading through them', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const { root } = extractCarried(dir, manifest, readAsset);
      const copy = path.join(dir, 'copy');
      cpSync(path.join(root, 'node_modules', 'pkg'), copy, { recursive: true });
      rmSync(path.join(root, 'node_modules', 'pkg'), { recursive: true });
      symlinkSync(copy, path.join(root, 'node_modules', 'pkg'));
      const articles = path.join(root, 'data', 'demo', 'articles.jsonl');
      const articlesCopy = path.join(dir, 'articles-copy.jsonl');
      cpSync(articles, articlesCopy);
      unlinkSync(articles);
      symlinkSync(articlesCopy, articles);
      const repair = extractCarried(dir, manifest, readAsset);
      expect(repair.written.sort()).toEqual(['data/demo/articles.jsonl', 'node_modules/pkg/addon.node', 'node_modules/pkg/libcompanion.so.1']);
      expect(lstatSync(path.join(root, 'node_modules', 'pkg')).isDirectory()).toBe(true);
      expect(lstatSync(articles).isFile()).toBe(true);
      expect(existsSync(articlesCopy) && existsSync(path.join(copy, 'addon.node'))).toBe(true);
    } finally {
      await cleanup();
    }
  });

  it('removes what the tree holds besides the carried files (a planted module, a stray link), and says so', async () => {
    // A module planted beside a carried package (node_modules/pkg/node_modules/dep) is what Node's resolution loads first.
    const { dir, cleanup } = await tempDir();
    try {
      const { root } = extractCarried(dir, manifest, readAsset);
      mkdirSync(path.join(root, 'node_modules', 'pkg', 'node_modules', 'dep'), { recursive: true });
      writeFileSync(path.join(root, 'node_modules', 'pkg', 'node_modules', 'dep', 'index.js'), 'planted');
      writeFileSync(path.join(root, 'index.js'), 'planted');
      const outside = path.join(dir, 'outside');
      mkdirSync(outside);
      writeFileSync(path.join(outside, 'kept.txt'), 'kept');
      symlinkSync(outside, path.join(root, 'data', 'link'));
      const tidy = extractCarried(dir, manifest, readAsset);
      expect(tidy.written).toEqual([]);
      expect(tidy.removed.sort()).toEqual(['data/link', 'index.js', 'node_modules/pkg/node_modules']);
      expect(existsSync(path.join(root, 'node_modules', 'pkg', 'node_modules'))).toBe(false);
      expect(readdirSync(outside)).toEqual(['kept.txt']);
      expect(extractCarried(dir, manifest, readAsset).removed).toEqual([]);
    } finally {
      await cleanup();
    }
  });

  it('refuses an asset whose size disagrees with the manifest (a damaged executable)', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      expect(() => extractCarried(dir, manifest, (key) => readAsset(key).subarray(1))).toThrow(/the executable is damaged/);
    } finally {
      await cleanup();
    }
  });

  it('refuses a manifest naming a path outside its tree, before writing anything', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const cache = path.join(dir, 'cache');
      for (const escaping of ['../escaped.so', 'node_modules/../../escaped.so', '/tmp/escaped.so', 'node_modules//x', './x']) {
        const damaged: CarriedManifest = { files: [...manifest.files, { ...manifest.files[2]!, path: escaping }] };
        expect(() => extractCarried(cache, damaged, (key) => contents[key] ?? contents['data/demo/articles.jsonl']!)).toThrow(/the executable is damaged: it names .* outside its tree/);
      }
      expect(existsSync(cache)).toBe(false);
      expect(existsSync(path.join(dir, 'escaped.so'))).toBe(false);
    } finally {
      await cleanup();
    }
  });
});

describe('defaultCacheDir', () => {
  const account = () => '/home/account';

  it('is under an absolute XDG_CACHE_HOME, else under HOME', () => {
    expect(defaultCacheDir({ XDG_CACHE_HOME: '/var/cache', HOME: '/home/h' }, account)).toBe('/var/cache/litserve');
    expect(defaultCacheDir({ HOME: '/home/h' }, account)).toBe('/home/h/.cache/litserve');
    expect(defaultCacheDir({}, account)).toBe('/home/account/.cache/litserve');
  });

  it('ignores a relative or empty XDG_CACHE_HOME or HOME instead of writing under the working directory', () => {
    expect(defaultCacheDir({ XDG_CACHE_HOME: 'cache', HOME: '/home/h' }, account)).toBe('/home/h/.cache/litserve');
    expect(defaultCacheDir({ HOME: '' }, account)).toBe('/home/account/.cache/litserve');
    expect(defaultCacheDir({ XDG_CACHE_HOME: '', HOME: 'home' }, account)).toBe('/home/account/.cache/litserve');
  });

  it('asks for --cache-dir when no absolute directory is known', () => {
    expect(() => defaultCacheDir({ HOME: '' }, () => undefined)).toThrow(/XDG_CACHE_HOME and HOME are unset or relative; set --cache-dir \/ LITSERVE_CACHE_DIR/);
  });
});

describe('describeFile (the build)', () => {
  it('refuses a file found outside the checkout, as a symlinked node_modules gives', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const checkout = path.join(dir, 'checkout');
      mkdirSync(checkout);
      writeFileSync(path.join(dir, 'addon.node'), 'x');
      expect(() => describeFile(checkout, '../addon.node')).toThrow(/lies outside .* symbolic link/);
      writeFileSync(path.join(checkout, 'inside.node'), 'x');
      expect(describeFile(checkout, 'inside.node')).toMatchObject({ path: 'inside.node', size: 1 });
    } finally {
      await cleanup();
    }
  });
});
