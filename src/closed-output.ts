/**
 * A command whose output is piped into a reader that stops early (`litserve ingest ... | head -1`): the next
 * write to the closed pipe fails with EPIPE, which Node raises as an error event on process.stdout or stderr,
 * and without a listener the process ended there: an ingest part-way with its write lock left behind, eval's
 * scratch folder never removed, a first `serve` after building its index but before listening. The command goes
 * on to its end instead; what it would still have printed to that stream is dropped.
 */
export function keepRunningWhenOutputCloses(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
    });
  }
}
