/** Flushes a file or directory to disk (what rename-into-place durability rests on). */
import { open } from 'node:fs/promises';

export async function fsyncPath(target: string): Promise<void> {
  const handle = await open(target, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
