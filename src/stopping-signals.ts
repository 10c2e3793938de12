/**
 * The signals that end a command: a progress bar stops itself at them (progress.ts), ingest says what it left
 * (index-write-interruption.ts, ingest-start-interruption.ts), eval removes its scratch folder. A module of its own,
 * importing nothing: the start decision's watch needs it, and progress.ts would load cli-progress with it.
 */
export const STOPPING_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** How long a stopped run may take to reach a safe point and clean up: about what `docker stop` waits before SIGKILL, less a margin. */
export const STOP_DEADLINE_MS = 5_000;
