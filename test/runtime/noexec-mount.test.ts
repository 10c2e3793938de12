/**
 * The executable refuses a cache on a file system mounted noexec before writing to it (its libraries could not
 * be loaded there: the start had written 90 MB, then died of an ERR_DLOPEN_FAILED stack). The mount is found in
 * /proc/self/mountinfo; these cases give it their own.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { noexecMountOf } from '../../src/runtime/noexec-mount.js';

const base = mkdtempSync(path.join(tmpdir(), 'noexec-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const line = (point: string, options: string) => `36 35 98:0 / ${point.replace(/ /g, '\\040')} ${options} shared:1 - tmpfs tmpfs rw`;

describe('the mount holding a cache directory', () => {
  it('is found by the longest mount point over the directory, or its nearest existing parent', () => {
    const mountinfo = [line('/', 'rw,relatime'), line(base, 'rw,nosuid,nodev,noexec,relatime')].join('\n');
    expect(noexecMountOf(path.join(base, 'not', 'made', 'yet'), mountinfo)).toBe(base);
    expect(noexecMountOf(base, mountinfo)).toBe(base);
    // A sibling whose name starts alike is not under it.
    expect(noexecMountOf(`${base}-other/cache`, mountinfo)).toBeNull();
  });

  it('is not refused when the mount over it allows execution, even under a noexec one', () => {
    const inner = path.join(base, 'exec ok');
    mkdirSync(inner);
    const mountinfo = [line('/', 'rw'), line(base, 'rw,noexec'), line(inner, 'rw,relatime')].join('\n');
    expect(noexecMountOf(path.join(inner, 'cache'), mountinfo)).toBeNull();
    expect(noexecMountOf(path.join(base, 'cache'), mountinfo)).toBe(base);
  });

  it('reads this machine\'s own mounts without failing', () => {
    expect(() => noexecMountOf(base)).not.toThrow();
  });
});
