/**
 * What the arguments alone decide is printed by one function, the same from a checkout (main.ts) and in the
 * single executable before it writes its carried files (binary-main.ts).
 */
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { printDecision } from '../../src/runtime/start-decision-bundle.js';

describe('printDecision', () => {
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  afterEach(() => vi.clearAllMocks());
  afterAll(() => vi.restoreAllMocks());

  it('writes the output to stdout and answers the exit code', () => {
    expect(printDecision({ exit: 0, stdout: 'litserve 1.0.0\n' })).toBe(0);
    expect(stdout.mock.calls).toEqual([['litserve 1.0.0\n']]);
    expect(stderr).not.toHaveBeenCalled();
  });

  it('writes an error to stderr, and nothing to stdout', () => {
    expect(printDecision({ exit: 2, stderr: 'error: unknown command "srve"\n' })).toBe(2);
    expect(stderr.mock.calls).toEqual([['error: unknown command "srve"\n']]);
    expect(stdout).not.toHaveBeenCalled();
  });
});
