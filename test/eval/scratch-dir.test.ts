/** The scratch index of `eval --corpus` is removed at the signals that end a command: the one list progress.ts keeps. */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withScratchDir } from '../../src/eval/scratch-dir.js';
import { STOPPING_SIGNALS } from '../../src/stopping-signals.js';

describe('withScratchDir', () => {
  it('watches every signal of the list the commands share, and removes its directory after the run', async () => {
    // A signal added to the one list is watched too: a copy of the list had to be kept in step by hand.
    STOPPING_SIGNALS.push('SIGUSR2');
    try {
      const before = STOPPING_SIGNALS.map((signal) => process.listenerCount(signal));
      const scratch = await withScratchDir('litserve-scratch-test-', async (dir) => {
        expect(STOPPING_SIGNALS.map((signal) => process.listenerCount(signal))).toEqual(before.map((count) => count + 1));
        return dir;
      });
      expect(STOPPING_SIGNALS.map((signal) => process.listenerCount(signal))).toEqual(before);
      expect(existsSync(scratch)).toBe(false);
    } finally {
      STOPPING_SIGNALS.pop();
    }
  });

  it('names the temporary directory and TMPDIR when it cannot make the folder there', async () => {
    const saved = process.env['TMPDIR'];
    process.env['TMPDIR'] = '/nowhere/at/all';
    try {
      await expect(withScratchDir('litserve-scratch-test-', async () => 'never run')).rejects.toThrow(
        /^cannot make a scratch folder for the index in \/nowhere\/at\/all \(the temporary directory: TMPDIR\): ENOENT/,
      );
    } finally {
      if (saved === undefined) delete process.env['TMPDIR'];
      else process.env['TMPDIR'] = saved;
    }
  });
});
