/** A file's revision always holds the file's attributes: one missing is named as a damaged store, not a TypeError further on. */
import { expect, test } from 'vitest';
import { asFileRevision } from '../../../src/platform/files.js';

test('a revision of a file without its attributes is said so by revision, id and project; one with them is the same object', () => {
  const stored = { id: 'https://example.org/f1', rev: 3, project: 'org/proj' };
  expect(() => asFileRevision(stored)).toThrow('revision 3 of file https://example.org/f1 in org/proj holds no file attributes');
  const withFile = { ...stored, file: { digest: 'd', bytes: 1, filename: 'a.txt', mediaType: 'text/plain' } };
  expect(asFileRevision(withFile)).toBe(withFile);
});
