/**
 * The web page's static files (src/ui), read once at start into memory with
 * their gzip form. This is the one place that knows where they live: a build
 * that embeds them (the single binary) replaces `loadUiAssets`' source.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

export const UI_ASSETS_DIR = fileURLToPath(new URL('../../ui/', import.meta.url));

export interface Asset {
  body: Buffer;
  gzip: Buffer;
  contentType: string;
  /** The tag of `body`. */
  etag: string;
  /** The tag of `gzip`: another representation, so another tag (RFC 9110 §8.8.3), or a cache would take one for the other. */
  gzipEtag: string;
}

/** Asset path relative to the folder, with forward slashes (`js/main.js`) -> its content. */
export type UiAssets = ReadonlyMap<string, Asset>;

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

export function assetOf(name: string, body: Buffer): Asset {
  const contentType = CONTENT_TYPES[path.extname(name)] ?? 'application/octet-stream';
  const digest = createHash('sha256').update(body).digest('base64url').slice(0, 22);
  return { body, gzip: gzipSync(body, { level: 9 }), contentType, etag: `"${digest}"`, gzipEtag: `"${digest}-gzip"` };
}

export async function loadUiAssets(dir: string = UI_ASSETS_DIR): Promise<UiAssets> {
  const assets = new Map<string, Asset>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    const name = path.relative(dir, full).split(path.sep).join('/');
    assets.set(name, assetOf(name, await readFile(full)));
  }
  return assets;
}
