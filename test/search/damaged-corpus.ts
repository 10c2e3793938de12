/** The two-segment corpus the tests of an index damaged after its load share, and how they await its errors. */
import { expect } from 'vitest';
import { article } from './helpers.js';

// Frequencies vary, so the postings take bytes of the file (equal gaps and frequencies pack to none).
export const ZEBRAFISH = Array.from({ length: 150 }, (_, i) =>
  article(`zebrafish-${i}`, [`Zebrafish lateral line hair cells regenerate after damage ${i}.${' Zebrafish again.'.repeat(i % 3)}`]),
);
export const OCTOPUS = Array.from({ length: 150 }, (_, i) => article(`octopus-${i}`, [`Octopus arm suckers taste the chemicals they touch ${i}.`]));

/** The error `promise` rejects with (failing if it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail('expected a rejection'),
    (error: unknown) => error,
  );
}
