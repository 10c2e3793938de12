/** The report of `npm run bench:fuzz` (FUZZ_REPORT): the cases tried and the statuses seen per route, and the verdict. */

/** Statuses seen per route: route → status → how many answers had it. */
export type StatusesByRoute = Map<string, Map<number, number>>;

/** The report's markdown; `held` says whether both properties held for every route. */
export function routeReport(runs: number, tried: StatusesByRoute, held: boolean): string {
  const rows = [...tried.entries()].map(([route, statuses]) => {
    const total = [...statuses.values()].reduce((a, b) => a + b, 0);
    const seen = [...statuses.entries()].sort(([a], [b]) => a - b).map(([status, count]) => `${status}×${count}`).join(', ');
    return `| \`${route}\` | ${total} | ${seen} |`;
  });
  const total = [...tried.values()].flatMap((s) => [...s.values()]).reduce((a, b) => a + b, 0);
  return [
    '# Fuzzing every route (`npm run bench:fuzz`)',
    '',
    `${new Date().toISOString()}, Node ${process.version}. ${runs} random cases per route (random path segments, query strings, headers, content types and bodies, as every kind of caller): ${total} requests in all.`,
    verdict(total, held),
    '',
    '| route | cases | statuses seen |',
    '| --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');
}

/** A failure is reported whatever was tried; that nothing failed says something only once requests were made. */
function verdict(requests: number, held: boolean): string {
  if (!held) return '**Verdict: the property FAILED; see the test output for the counterexample.**';
  if (requests === 0) return '**No verdict: no request was made.**';
  return 'Verdict: every answer was a documented status in its API vocabulary, no 5xx, and no rejected request changed the store or the file contents.';
}
