/**
 * Splits an index directory's bytes into the searchable part (what answers a
 * query: postings, norms, dictionary, block metadata, filter columns) and the
 * stored part (text and records returned with hits), for this engine's
 * segments and for Lucene's files, so index sizes compare like with like.
 */
import { open, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { unpack } from 'msgpackr';
import { ELEMENT_BYTES, MAGIC, PREAMBLE_BYTES, type SegmentHeader } from '../../src/search/segment/format.js';
import { mib } from './stats.js';

/** Arrays holding what a hit returns, not what finds it. */
const STORED_PREFIXES = ['paragraph.text.', 'paragraph.section', 'sections.', 'article.record.', 'article.id.', 'journalNames.'];

export interface IndexSizes {
  searchableMiB: number;
  storedMiB: number;
  /** MiB per array-name group (the part before the first dot, or field.part for postings). */
  parts: Record<string, number>;
}

async function segmentHeader(file: string): Promise<SegmentHeader | null> {
  const handle = await open(file, 'r');
  try {
    const preamble = Buffer.alloc(PREAMBLE_BYTES);
    await handle.read(preamble, 0, PREAMBLE_BYTES, 0);
    if (preamble.toString('latin1', 0, 8) !== MAGIC) return null;
    const header = Buffer.alloc(preamble.readUInt32LE(8));
    await handle.read(header, 0, header.length, PREAMBLE_BYTES);
    return unpack(header) as SegmentHeader;
  } finally {
    await handle.close();
  }
}

/** This engine's index: segment arrays classified by name; other files (manifest, deletions) count as searchable. */
export async function segmentSizes(dir: string): Promise<IndexSizes> {
  const sizes: IndexSizes = { searchableMiB: 0, storedMiB: 0, parts: {} };
  for (const name of await readdir(dir)) {
    const file = path.join(dir, name);
    if (name.endsWith('.stored')) {
      // The stored-fields file: pre-rendered JSON returned with hits, read from disk, not held in memory.
      const bytes = mib((await stat(file)).size);
      sizes.storedMiB += bytes;
      sizes.parts['.stored files'] = (sizes.parts['.stored files'] ?? 0) + bytes;
      continue;
    }
    const header = await segmentHeader(file).catch(() => null);
    if (!header) {
      sizes.searchableMiB += mib((await stat(file)).size);
      continue;
    }
    for (const array of header.arrays) {
      const bytes = mib(array.length * ELEMENT_BYTES[array.type]);
      const stored = STORED_PREFIXES.some((prefix) => array.name.startsWith(prefix));
      if (stored) sizes.storedMiB += bytes;
      else sizes.searchableMiB += bytes;
      const group = array.name.startsWith('text.') || array.name.startsWith('title.') ? array.name : array.name.split('.')[0]!;
      sizes.parts[group] = (sizes.parts[group] ?? 0) + bytes;
    }
  }
  return sizes;
}

/** Lucene's index: stored fields (.fdt/.fdx/.fdm) are stored; positions (.pos) are reported apart, as this engine has none. */
export async function luceneSizes(dir: string): Promise<IndexSizes & { positionsMiB: number }> {
  const sizes = { searchableMiB: 0, storedMiB: 0, positionsMiB: 0, parts: {} as Record<string, number> };
  for (const name of await readdir(dir)) {
    const bytes = mib((await stat(path.join(dir, name))).size);
    const ext = path.extname(name) || name;
    sizes.parts[ext] = (sizes.parts[ext] ?? 0) + bytes;
    if (['.fdt', '.fdx', '.fdm'].includes(ext)) sizes.storedMiB += bytes;
    else if (ext === '.pos') sizes.positionsMiB += bytes;
    else sizes.searchableMiB += bytes;
  }
  return sizes;
}
