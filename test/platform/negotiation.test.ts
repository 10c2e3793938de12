import { expect, test } from 'vitest';
import { negotiate } from '../../src/http/negotiation.js';

const OFFERS = ['application/zip', 'application/ld+json', 'application/json'] as const;

test.each([
  [undefined, 'application/zip'],
  ['', 'application/zip'],
  ['*/*', 'application/zip'],
  ['application/*', 'application/zip'],
  ['application/zip', 'application/zip'],
  ['application/x-zip', 'application/zip'],
  ['application/x-zip-compressed', 'application/zip'],
  ['application/json', 'application/json'],
  ['application/ld+json', 'application/ld+json'],
  // A named type beats a wildcard of the same quality; quality beats everything.
  ['application/json, text/plain, */*', 'application/json'],
  ['application/json;q=0.5, application/zip', 'application/zip'],
  ['application/zip;q=0, */*', 'application/ld+json'],
  ['text/html', null],
  ['garbage', null],
] as const)('Accept %j -> %s', (accept, expected) => {
  expect(negotiate(accept, OFFERS)).toBe(expected);
});
