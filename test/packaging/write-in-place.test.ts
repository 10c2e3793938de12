/**
 * How the build places dist/litserve (scripts/binary/write-in-place.ts): a build whose last step fails
 * midway leaves no half-written executable under its name, no partial file, and an earlier good
 * executable as it was. (The whole build: test/packaging/binary.test.ts.)
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { partialPathOf, writeInPlace } from '../../scripts/binary/write-in-place.js';
import { tempDir } from '../search/helpers.js';

describe('writeInPlace, the last step of the build', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let target: string;
  /** The build's last steps, as build-binary.ts runs them: a copy of Node, then postject rewriting the copy, which fails midway. */
  const failingInjection = (partial: string) => {
    writeFileSync(partial, 'a copy of node', { mode: 0o755 });
    writeFileSync(partial, 'half of an injected blob', { flag: 'a' });
    throw new Error('postject failed (1)');
  };

  beforeEach(async () => {
    ({ dir, cleanup } = await tempDir());
    target = path.join(dir, 'litserve');
  });
  afterEach(() => cleanup());

  it('puts the file written under its name once complete, and leaves nothing else', () => {
    writeInPlace(target, (partial) => {
      expect(path.dirname(partial)).toBe(dir);
      writeFileSync(partial, 'the executable');
      expect(readdirSync(dir)).toEqual([path.basename(partial)]);
    });
    expect(readFileSync(target, 'utf8')).toBe('the executable');
    expect(readdirSync(dir)).toEqual(['litserve']);
  });

  it('leaves no executable and no partial file when the last step fails', () => {
    expect(() => writeInPlace(target, failingInjection)).toThrow('postject failed (1)');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('leaves an earlier good executable as it was when the last step fails', () => {
    writeFileSync(target, 'the good build', { mode: 0o755 });
    const before = statSync(target);
    expect(() => writeInPlace(target, failingInjection)).toThrow('postject failed (1)');
    expect(readdirSync(dir)).toEqual(['litserve']);
    expect(readFileSync(target, 'utf8')).toBe('the good build');
    expect(statSync(target)).toMatchObject({ ino: before.ino, mode: before.mode, mtimeMs: before.mtimeMs });
  });

  it("starts from an empty partial file where a killed build left one, and replaces the earlier build's file", () => {
    writeFileSync(target, 'the good build');
    writeFileSync(partialPathOf(target), 'left by a build killed midway, and longer than the new one');
    writeInPlace(target, (partial) => writeFileSync(partial, 'rebuilt', { flag: 'a' }));
    expect(readFileSync(target, 'utf8')).toBe('rebuilt');
    expect(readdirSync(dir)).toEqual(['litserve']);
  });
});
