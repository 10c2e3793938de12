/**
 * Reads the revision of each resource entry when the entry is written (download.ts), once for a run of
 * entries of one revision: the same revision in several formats, named alike, follows itself in path
 * order (`r.json`, `r.nt`). A revision read is kept only while the entry after the one being written is
 * of the same revision, and given up as soon as that entry has it: a download holds at most one payload
 * beside the entry it writes, never a set growing with the archive, and one waiting on a slow reader
 * between two runs holds none. Entries of one revision apart from each other are read once each.
 */
import type { EntityState } from '../platform/revisions.js';
import type { ResolvedEntry } from './resolve.js';

/** Entries pin the same revision when project, id and revision agree. */
function sameRevision(a: ResolvedEntry, b: ResolvedEntry | undefined): boolean {
  return b !== undefined && a.state.project === b.state.project && a.state.id === b.state.id && a.state.rev === b.state.rev;
}

/**
 * `read(entry)` reads the revision `entry` was pinned to; the function returned reads it for each entry in
 * turn, in the order of `entries`, sharing one read along a run of entries of the same revision.
 */
export function revisionReads(entries: readonly ResolvedEntry[], read: (entry: ResolvedEntry) => Promise<EntityState>): (entry: ResolvedEntry) => Promise<EntityState> {
  const following = new Map(entries.map((entry, position) => [entry, entries[position + 1]]));
  // The revision read for an entry, kept for the entry after it.
  let kept: { entry: ResolvedEntry; state: EntityState } | null = null;
  return async (entry) => {
    const shared = kept !== null && sameRevision(kept.entry, entry) ? kept.state : null;
    kept = null;
    const state = shared ?? (await read(entry));
    if (sameRevision(entry, following.get(entry))) kept = { entry, state };
    return state;
  };
}
