/** A tmpfs of a given size (and at most `inodes` files, when given) mounted for a test (a disk that fills up), or why none can be mounted here. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

export function mountSmallDisk(size: string, inodes?: number): { dir: string; unmount(): void } | string {
  const dir = mkdtempSync(path.join(tmpdir(), 'small-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}${inodes === undefined ? '' : `,nr_inodes=${inodes}`}`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    return `cannot mount a tmpfs here (${(error as Error).message.split('\n')[0]}); run as root`;
  }
  return {
    dir,
    unmount: () => {
      execFileSync('umount', [dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Writes a file in `dir` until the disk has no byte left: whole blocks first, then single bytes. */
export async function fillDisk(dir: string): Promise<void> {
  const filler = await open(path.join(dir, 'filler'), 'w');
  try {
    for (const chunk of [Buffer.alloc(64 * 1024), Buffer.alloc(1)]) {
      for (;;) {
        try {
          await filler.write(chunk);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw error;
        }
      }
    }
  } finally {
    await filler.close();
  }
}
