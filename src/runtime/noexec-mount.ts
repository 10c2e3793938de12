/**
 * Whether the executable's cache lies on a file system mounted `noexec` (a hardened /tmp, a home on such a
 * mount): the carried native libraries written there cannot be loaded (dlopen cannot map them executable). Asked
 * before they are written, so that a start does not write 90 MB, then die of an ERR_DLOPEN_FAILED stack naming
 * the build machine's paths.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';

/** The mount point holding `dir` (or its nearest existing parent) when that mount is noexec, else null. */
export function noexecMountOf(dir: string, mountinfo: string = readMountinfo()): string | null {
  let existing = path.resolve(dir);
  while (!existsSync(existing) && path.dirname(existing) !== existing) existing = path.dirname(existing);
  const real = realpathSync(existing);
  let holder: { point: string; noexec: boolean } | null = null;
  for (const line of mountinfo.split('\n')) {
    // "36 35 98:0 /root /mnt/point rw,noexec,relatime shared:1 - ext4 /dev/sda1 rw": the fifth field, then the sixth.
    const fields = line.split(' ');
    if (fields.length < 6) continue;
    const point = unescapeMountPath(fields[4]!);
    const within = real === point || real.startsWith(point === '/' ? '/' : `${point}/`);
    // The last mount listed over a path is the one in force (a later mount hides the earlier).
    if (within && (holder === null || point.length >= holder.point.length)) holder = { point, noexec: fields[5]!.split(',').includes('noexec') };
  }
  return holder?.noexec ? holder.point : null;
}

function readMountinfo(): string {
  try {
    return readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return ''; // not Linux, or no /proc: nothing to say
  }
}

/** Mount points in mountinfo write a space, tab, newline and backslash as octal escapes (`\040`). */
function unescapeMountPath(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}
