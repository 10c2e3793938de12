import { randomBytes } from 'node:crypto';
import { expect, test } from 'vitest';
import { isAlreadyCompressedType, sampleCompresses } from '../../src/archive/compressibility.js';

test('random bytes are not worth deflating; text is', () => {
  expect(sampleCompresses(randomBytes(64 * 1024))).toBe(false);
  expect(sampleCompresses(Buffer.from('gene,expression,sample\n'.repeat(3000)))).toBe(true);
  expect(sampleCompresses(Buffer.alloc(0))).toBe(false);
});

test('compressed media types are recognised; raw ones are not', () => {
  for (const type of ['image/jpeg', 'image/png', 'video/mp4', 'audio/mpeg', 'application/zip', 'application/gzip']) expect(isAlreadyCompressedType(type)).toBe(true);
  for (const type of ['image/svg+xml', 'image/tiff', 'audio/wav', 'text/csv', 'application/json', 'application/octet-stream']) expect(isAlreadyCompressedType(type)).toBe(false);
});
