/**
 * The two ways an interrupted ingest ends without waiting for its safe point (src/index-write-interruption.ts): a second
 * signal, and the 5 s deadline. The command tests (ingest-interrupt.test.ts) cannot time a signal into the window
 * before a safe point; here the watch runs in this process, signals are handed to its own listeners (emitting them
 * would reach the test runner's too), the deadline runs on fake timers, and `process.kill` (how the watch ends the
 * process as the signal would) is recorded instead.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { watchInterruption } from '../../src/index-write-interruption.js';
import { STOP_DEADLINE_MS } from '../../src/stopping-signals.js';
import { MANIFEST_FILE } from '../../src/search/manifest.js';
import { STOPPING_SIGNALS } from '../../src/stopping-signals.js';
import { tempDir } from '../search/helpers.js';

const LEFT_BEHIND = '; it stopped before removing its unpublished files and write lock, which the next run removes';

describe('an interrupted ingest that cannot wait for its safe point', () => {
  let indexDir: string;
  let cleanup: () => Promise<void>;
  let kill: MockInstance<typeof process.kill>;
  let stderr: MockInstance<typeof process.stderr.write>;
  const signalListeners = () => STOPPING_SIGNALS.map((signal) => process.listeners(signal));
  let listenersBefore: ReturnType<typeof signalListeners>;
  /** Hands `signal` to the listeners added since the test began: the watch's. */
  const deliver = (signal: NodeJS.Signals) => {
    const before = listenersBefore[STOPPING_SIGNALS.indexOf(signal)]!;
    for (const listener of process.listeners(signal)) if (!before.includes(listener)) listener(signal);
  };

  beforeEach(async () => {
    ({ dir: indexDir, cleanup } = await tempDir());
    await writeFile(path.join(indexDir, MANIFEST_FILE), JSON.stringify({ generation: 3 }));
    kill = vi.spyOn(process, 'kill').mockImplementation(() => true);
    stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    listenersBefore = signalListeners();
  });
  afterEach(async () => {
    kill.mockRestore();
    stderr.mockRestore();
    vi.useRealTimers();
    await cleanup();
  });

  const written = () => stderr.mock.calls.map(([text]) => String(text)).join('');

  it('ends at a second signal, as the first would, saying it left its files for the next run', () => {
    const interruption = watchInterruption('ingest', indexDir);
    deliver('SIGINT');
    expect(interruption.signal.aborted).toBe(true);
    expect(kill).not.toHaveBeenCalled();

    deliver('SIGTERM');
    expect(kill.mock.calls).toEqual([[process.pid, 'SIGINT']]);
    expect(written()).toBe(`ingest: interrupted (SIGINT); the index is unchanged (generation 3)${LEFT_BEHIND}\n`);
    // No longer listening: the signal it sends itself ends the process.
    expect(signalListeners()).toEqual(listenersBefore);
  });

  it(`ends ${STOP_DEADLINE_MS} ms after the signal when the run has not reached its safe point, naming the generation published meanwhile`, async () => {
    vi.useFakeTimers();
    watchInterruption('serve', indexDir);
    deliver('SIGTERM');
    await writeFile(path.join(indexDir, MANIFEST_FILE), JSON.stringify({ generation: 4 }));
    vi.advanceTimersByTime(STOP_DEADLINE_MS - 1);
    expect(kill).not.toHaveBeenCalled();

    vi.advanceTimersByTime(1);
    expect(kill.mock.calls).toEqual([[process.pid, 'SIGTERM']]);
    expect(written()).toBe(`serve: interrupted (SIGTERM); the index is at generation 4 (generation 3 when the run started)${LEFT_BEHIND}\n`);
    expect(signalListeners()).toEqual(listenersBefore);
  });

  it('ends once, without the deadline, when the run reaches its safe point in time', () => {
    vi.useFakeTimers();
    const interruption = watchInterruption('ingest', indexDir);
    deliver('SIGHUP');
    interruption.end();
    expect(kill.mock.calls).toEqual([[process.pid, 'SIGHUP']]);
    expect(written()).toBe('ingest: interrupted (SIGHUP); the index is unchanged (generation 3)\n');

    vi.advanceTimersByTime(STOP_DEADLINE_MS);
    expect(kill).toHaveBeenCalledTimes(1);
    expect(signalListeners()).toEqual(listenersBefore);
  });

  it('without a signal, ends nothing and stops listening', () => {
    watchInterruption('ingest', indexDir).end();
    expect(kill).not.toHaveBeenCalled();
    expect(written()).toBe('');
    expect(signalListeners()).toEqual(listenersBefore);
  });
});
