/**
 * Waits, polling every 20 ms, until `condition` holds (a log line written, a socket closed, a file
 * removed), for at most 10 s; then asserts it, so a condition never met fails the test where it was awaited.
 */
import { expect } from 'vitest';

export async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(await condition()).toBe(true);
}
