/**
 * The table of a bench/served-probe.ts run, shared by the probe's own result
 * file (PROBE_RESULT) and bench:served's last section (SERVED_PROBE): per
 * cell the in-process engine, GET /retrieval/ to the last byte, the client's
 * JSON.parse, and the floor no server can go under as bench:peers' engine-http
 * measures it. That measurement includes the client's parse, so a server that
 * cost nothing at all (no HTTP, no assembly) would still take the search plus
 * the parse: where that alone is over issue 9's ratio, no server meets it.
 */

/** One cell: p50s in ms, the body's p50 size in KiB. */
export interface ProbeRow {
  set: string;
  k: number;
  filter: string;
  engine: number;
  served: number;
  parse: number;
  kib: number;
}

export interface ProbeRun {
  date: string;
  queryCount: number;
  rounds: number;
  rows: ProbeRow[];
}

/** Issue 9's served targets: engine-http p50 ÷ the in-process engine's, per k. */
export const SERVED_TARGETS: Record<number, number> = { 100: 2, 1000: 4 };

/** The markdown table of a probe run and, per target k, how many cells meet the target three ways. */
export function probeTable(run: ProbeRun): string {
  const count = (k: number, pass: (row: ProbeRow) => boolean) => run.rows.filter((r) => r.k === k && pass(r)).length;
  const within = (ratio: number, row: ProbeRow) => ratio <= SERVED_TARGETS[row.k]!;
  const lines = run.rows.map((r) => {
    const target = SERVED_TARGETS[r.k];
    const [served, parsed, floor] = [r.served / r.engine, (r.served + r.parse) / r.engine, (r.engine + r.parse) / r.engine];
    const reachable = target ? (floor <= target ? 'yes' : '**no**') : '';
    return (
      `| ${r.set} | ${r.k} | ${r.filter} | ${r.engine.toFixed(2)} | ${r.served.toFixed(2)} | **${served.toFixed(2)}×** | ${r.parse.toFixed(2)} | ` +
      `${parsed.toFixed(2)}× | ${floor.toFixed(2)}× | ${r.kib.toFixed(0)} | ${target ? `≤ ${target}×` : ''} | ${reachable} |`
    );
  });
  const summary = Object.keys(SERVED_TARGETS)
    .map(Number)
    .map((k) => {
      const cells = count(k, () => true);
      const served = count(k, (r) => within(r.served / r.engine, r));
      const parsed = count(k, (r) => within((r.served + r.parse) / r.engine, r));
      const reachable = count(k, (r) => within((r.engine + r.parse) / r.engine, r));
      return `- k=${k}: served alone ${served} of ${cells}; with the client's parse ${parsed} of ${cells}; reachable by any server with the parse counted: ${reachable} of ${cells}.`;
    });
  return `| queries | k | filter | engine | served (to last byte) | served ÷ engine | JSON.parse | (served + parse) ÷ engine | floor: (engine + parse) ÷ engine | body KiB | target | reachable |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
${lines.join('\n')}

Target cells met (${run.queryCount} queries per set, ${run.rounds} round${run.rounds === 1 ? '' : 's'}, ${run.date.slice(0, 16)}):
${summary.join('\n')}

"served" is what the server costs a client that does not parse (HTTP both ways, search, response
assembly, sending); "+ parse" is what bench:peers' engine-http measures. The floor is the search and
the client's parse alone, with no HTTP and no assembly at all: a cell whose floor is over its target
("reachable: no") cannot be met by any server, as engine-http measures it, on this machine.
`;
}
