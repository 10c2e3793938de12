/**
 * The look at `data.mdb` before LMDB maps it (lmdb-header.ts): a file LMDB would crash the process on
 * (another program's, garbage, cut short) is refused with a sentence, and every store the library
 * writes passes, which also checks the header layout the look assumes against the installed lmdb.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lmdbFileProblem } from '../../../src/platform/store/lmdb-header.js';
import { openLmdbStore } from '../../../src/platform/store/lmdb.js';
import { tempDir } from '../../search/helpers.js';
import { COMPILED_MAIN } from '../../compiled-server.js';

/** A store the library wrote, with `records` records of about 1 KB in one table. */
async function writtenStore(directory: string, records: number): Promise<void> {
  const store = openLmdbStore(directory);
  await store.write(async () => {
    for (let i = 0; i < records; i++) await store.table<string>('orgs').put(`org-${i}`, 'x'.repeat(1000));
  });
  await store.close();
}

describe('the look at the LMDB file', () => {
  it('passes an absent or empty file (LMDB starts a store there) and stores the library wrote', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      expect(lmdbFileProblem(dir)).toBeNull();
      await writeFile(path.join(dir, 'data.mdb'), '');
      expect(lmdbFileProblem(dir)).toBeNull();
      const small = path.join(dir, 'small');
      await writtenStore(small, 1);
      expect(lmdbFileProblem(small)).toBeNull();
      // Many pages and several transactions: the later meta page is the one read.
      const large = path.join(dir, 'large');
      await writtenStore(large, 2000);
      await writtenStore(large, 500);
      expect(lmdbFileProblem(large)).toBeNull();
    } finally {
      await cleanup();
    }
  });

  it('refuses another program\'s file, a damaged second meta page and a file cut short', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const file = path.join(dir, 'data.mdb');
      await writeFile(file, 'hello world\n'.repeat(3000));
      expect(lmdbFileProblem(dir)).toMatch(/data\.mdb is not an LMDB database \(another program's file, or damaged\)$/);
      await writeFile(file, 'abc');
      expect(lmdbFileProblem(dir)).toMatch(/is not an LMDB database/);

      const written = path.join(dir, 'written');
      await writtenStore(written, 2000);
      const whole = await readFile(path.join(written, 'data.mdb'));
      const pageSize = whole.readUInt32LE(48);
      const damaged = Buffer.from(whole);
      damaged.fill(0x5a, pageSize, pageSize + 64);
      await writeFile(file, damaged);
      expect(lmdbFileProblem(dir)).toMatch(/is not a whole LMDB database: its second meta page is missing or damaged/);

      await writeFile(file, whole);
      expect(lmdbFileProblem(dir)).toBeNull();
      await truncate(file, 4 * pageSize);
      expect(lmdbFileProblem(dir)).toMatch(new RegExp(`is cut short: its last transaction needs \\d+ bytes, the file holds ${4 * pageSize}`));
    } finally {
      await cleanup();
    }
  });

  it('makes serve refuse such a store with a message, before building the demo index, where the process died of a segmentation fault', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const data = path.join(dir, 'data');
      const store = path.join(data, 'platform', 'store');
      await writtenStore(store, 1);
      await writeFile(path.join(store, 'data.mdb'), 'not a database\n'.repeat(2000));
      const run = spawnSync(process.execPath, [COMPILED_MAIN, 'serve', '--data', data, '--port', '0', '--search-threads', '0'], { encoding: 'utf8', timeout: 60_000 });
      expect(run.signal).toBeNull();
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`error: cannot open the platform store under --data (DATA_DIR): ${path.join(store, 'data.mdb')} is not an LMDB database`);
      expect(run.stderr).toContain('Restore it from a backup, or move it away to start an empty store');
      expect(existsSync(path.join(data, 'index'))).toBe(false);
    } finally {
      await cleanup();
    }
  }, 90_000);
});
