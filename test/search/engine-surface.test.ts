/**
 * Engine internals stay inside the engine (issue 15, item 4): code outside
 * src/search reads a loaded index only through the Searcher's methods, never
 * its snapshot, segments or the snapshot module; and the filter validator
 * takes no runtime value from the corpus model.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve('src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(file);
    return entry.name.endsWith('.ts') ? [file] : [];
  });
}

const outsideEngine = sourceFiles(SRC).filter((file) => !file.startsWith(path.join(SRC, 'search') + path.sep));

describe('the engine surface', () => {
  it('finds the files it checks', () => {
    expect(outsideEngine.map((file) => path.relative(SRC, file))).toEqual(expect.arrayContaining(['corpus/library.ts', 'http/literature/retrieval.ts']));
  });

  it('is not bypassed from outside src/search', () => {
    const offending = outsideEngine.flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      const reasons: string[] = [];
      if (/\.snapshot\b/.test(text)) reasons.push('reads .snapshot');
      if (/from '[./]*search\/(snapshot|segment\/)/.test(text)) reasons.push('imports the snapshot or segment modules');
      return reasons.map((reason) => `${path.relative(SRC, file)} ${reason}`);
    });
    expect(offending).toEqual([]);
  });

  it('keeps the filter validator free of runtime imports from the corpus', () => {
    const offending = sourceFiles(path.join(SRC, 'search', 'query')).filter((file) =>
      /^import (?!type )[^;]*from '[./]*corpus\//m.test(readFileSync(file, 'utf8')),
    );
    expect(offending).toEqual([]);
  });
});
