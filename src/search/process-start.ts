/**
 * When a process started, read from Linux's /proc. Elsewhere (or when /proc
 * cannot be read or does not add up) the answer is null, and callers keep to
 * what the pid alone tells.
 */
import { readFileSync } from 'node:fs';

/**
 * Unit of /proc's process times (USER_HZ, `getconf CLK_TCK`): 100 on every
 * architecture Node runs Linux on. Node cannot ask sysconf, so the guess is
 * checked against this process's own start (see procAgreesWithOwnStart).
 */
const CLOCK_TICKS_PER_SECOND = 100;
/** How far /proc's start of this process may lie from Node's own account of it. */
const OWN_START_TOLERANCE_MS = 5_000;

/** The process's start time in milliseconds since the epoch (on the current clock), or null. */
export function processStartMs(pid: number): number | null {
  if (process.platform !== 'linux' || !procAgreesWithOwnStart()) return null;
  return startFromProc(pid);
}

let ownStartAgrees: boolean | undefined;

/** Whether /proc, read with the assumed tick unit, puts this process's start where Node says it was. */
function procAgreesWithOwnStart(): boolean {
  if (ownStartAgrees === undefined) {
    const fromProc = startFromProc(process.pid);
    const fromNode = Date.now() - process.uptime() * 1000;
    ownStartAgrees = fromProc !== null && Math.abs(fromProc - fromNode) <= OWN_START_TOLERANCE_MS;
  }
  return ownStartAgrees;
}

function startFromProc(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2, the command name, is in parentheses and may itself hold spaces and parentheses:
    // the fields after the last ')' are 3, 4, ... so field 22 (start time, in ticks since boot) is the 20th.
    const startTicks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[22 - 3]);
    const bootSeconds = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1]);
    if (!Number.isFinite(startTicks) || !Number.isFinite(bootSeconds)) return null;
    return bootSeconds * 1000 + (startTicks * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return null; // no /proc, or the process has just exited
  }
}
