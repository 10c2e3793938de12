/** The write a `PUT` names: a creation without `?rev`, a change of that revision with it. */
export function createOrUpdate(rev: number | undefined): { kind: 'create' } | { kind: 'update'; rev: number } {
  return rev === undefined ? { kind: 'create' } : { kind: 'update', rev };
}
