/**
 * Setup file of the projects whose files share a worker process (vitest.config.ts). A file there must leave the
 * process as it found it, or it changes the files that run after it in the same worker, which then fail (or pass)
 * for reasons of their own order. After each file this puts back what vitest can put back (stubbed globals and
 * variables, fake timers; vitest itself restores spies between files) and fails the file that left anything else
 * behind, saying what: a server still listening, a child process still running, a file watcher still open, a
 * process listener added, an environment variable or the working directory changed, an exit code set. (Threads
 * left running cannot be seen from here: Node does not list workers among a process's active resources.)
 */
import { afterAll, beforeAll, vi } from 'vitest';

/** Handles a finished file must not leave behind, as `process.getActiveResourcesInfo()` names them. */
const WATCHED_RESOURCES = ['TCPServerWrap', 'PipeServerWrap', 'ProcessWrap', 'FSEventWrap', 'StatWatcher'];
const RESOURCE_MEANING: Record<string, string> = {
  TCPServerWrap: 'a TCP server still listening',
  PipeServerWrap: 'a socket-file server still listening',
  ProcessWrap: 'a child process still running',
  FSEventWrap: 'a file watcher (fs.watch) still open',
  StatWatcher: 'a file watcher (fs.watchFile) still open',
};

/**
 * Process events whose listeners are compared. Not `exit` and the signals: libraries hook those once per process, the
 * first time they are used (the LMDB binding `exit`; node-llama-cpp's lock files every signal, through signal-exit), so
 * a check per file would blame whichever file used them first. A file's own signal handlers are its to remove.
 */
const WATCHED_EVENTS = ['warning', 'uncaughtException', 'unhandledRejection'];

interface ProcessState {
  resources: Map<string, number>;
  listeners: Map<string, Function[]>;
  env: Record<string, string | undefined>;
  cwd: string;
  exitCode: typeof process.exitCode;
}

function resourceCounts(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const name of process.getActiveResourcesInfo()) if (WATCHED_RESOURCES.includes(name)) counts.set(name, (counts.get(name) ?? 0) + 1);
  return counts;
}

function snapshot(): ProcessState {
  return {
    resources: resourceCounts(),
    listeners: new Map(WATCHED_EVENTS.map((event) => [event, process.rawListeners(event)])),
    env: { ...process.env },
    cwd: process.cwd(),
    exitCode: process.exitCode,
  };
}

/** What differs between the state a file found and the one it leaves, in words; empty when nothing does. */
function leftBehind(before: ProcessState, after: ProcessState): string[] {
  const problems: string[] = [];
  for (const [name, count] of after.resources) {
    const added = count - (before.resources.get(name) ?? 0);
    if (added > 0) problems.push(`${added} × ${RESOURCE_MEANING[name]} (${name})`);
  }
  for (const [event, listeners] of after.listeners) {
    const found = before.listeners.get(event) ?? [];
    const added = listeners.filter((listener) => !found.includes(listener)).length;
    if (added > 0) problems.push(`${added} process listener(s) for ${event} added and not removed`);
  }
  const names = new Set([...Object.keys(before.env), ...Object.keys(after.env)]);
  const changed = [...names].filter((name) => before.env[name] !== after.env[name]);
  if (changed.length > 0) problems.push(`environment variable(s) changed: ${changed.join(', ')}`);
  if (after.cwd !== before.cwd) problems.push(`working directory changed from ${before.cwd} to ${after.cwd}`);
  if (after.exitCode !== before.exitCode) problems.push(`process.exitCode set to ${after.exitCode}`);
  return problems;
}

let before: ProcessState;
beforeAll(() => {
  before = snapshot();
});
// Registered before the file's own hooks, so it runs after them (vitest runs afterAll hooks last-registered first).
afterAll(async () => {
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();
  vi.useRealTimers();
  // A handle closed by the file's last step (a watcher, an exited child's process handle) goes in the event loop's
  // close phase, which follows the turn's setImmediate callbacks: wait for the next turn's.
  for (let turn = 0; turn < 2; turn++) await new Promise(setImmediate);
  const problems = leftBehind(before, snapshot());
  if (problems.length > 0) {
    throw new Error(`this file shares its worker process with the files after it, and left behind:\n- ${problems.join('\n- ')}\n(see "The test suite's processes" in docs/DESIGN.md)`);
  }
});
