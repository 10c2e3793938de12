/**
 * bench/results/peers.{json,md}: every figure next to its ratio to this engine
 * measured in the same run (peer ÷ engine: above 1 means the peer takes longer,
 * is larger or - for throughput - answers more queries per second).
 */
import { machine, writeResults } from '../../lib/stats.js';
import { writeCharts } from './charts.js';
import { BM25, FILTER, K_VALUES, MIN_THROUGHPUT_SECONDS, throughputWindow, type BenchConfig, type PeerName } from './config.js';
import { LATENCY_WARM_UP, THROUGHPUT_WARM_UP, type FilterName, type LatencyCell, type PeerRun, type QualityRun, type ThroughputCell } from './measure.js';
import { WARM_UP, describeWarmUp, type WarmUp } from './warm-up.js';
import { luceneTargetsSection } from './lucene-targets.js';

export interface Report {
  date: string;
  minutes: number;
  machine: ReturnType<typeof machine>;
  /** Commit of the checkout measured (runs before it was recorded have none). */
  commit?: string;
  /** Peers asked for but not installed on this machine, and why. */
  skipped?: { peer: PeerName; reason: string }[];
  config: BenchConfig;
  quality: QualityRun[];
  speed: PeerRun[];
  /** Set when figures of an earlier run were kept (PEERS_MERGE=1): its date and corpora. */
  merged?: { from: string; corpora: string[] };
  /** Queries in each set: PEERS_QUERIES, or fewer where the set holds fewer (runs before it was recorded have none). */
  querySetSizes?: Record<string, number>;
}

/** What each peer was set to: the closest each offers to the engine's analysis and BM25. */
export const PEER_SETTINGS: Record<PeerName, string> = {
  engine: `in-process (no HTTP); analysis: Unicode folding, the 33 Lucene stopwords, possessives, Porter; BM25 k1 ${BM25.k1}, b ${BM25.b}, Lucene idf; title field weight ${BM25.titleWeight}; latency on the calling thread, throughput on its worker pool`,
  'engine-http': 'the same index behind `GET /retrieval/` of the real server (a search pool of PEERS_THREADS threads, otherwise default settings); client on the same machine, keep-alive, full JSON answers (paragraph text + metadata)',
  lucene: `Lucene 8.8.1 (Debian liblucene8-java 8.8.1; its jars are named 8.7.0), single-source Java program; EnglishAnalyzer (no diacritic folding); BM25Similarity(k1 ${BM25.k1}, b ${BM25.b}); distinct query terms OR-ed; split layout: each term also in the title field with BoostQuery ${BM25.titleWeight} (exactly the engine's sum of per-field BM25); date IntPoint and type StringField as FILTER clauses; 256 MB indexing buffer, no compound files, default merges; threads share one IndexSearcher`,
  xapian: `Xapian 1.4 (Debian python3-xapian) from /usr/bin/python3; Stem("porter") (original Porter, as the engine), the 33 stopwords, STEM_ALL; BM25Weight(k1 ${BM25.k1}, k2 0, k3 1, b ${BM25.b}, min_normlen 0.5) with Xapian's own idf; no per-field lengths: split layout = title terms with prefix S weighted ${BM25.titleWeight} by OP_SCALE_WEIGHT; date value range + type boolean term via OP_FILTER; throughput with one process per thread`,
  'sqlite-fts5': `SQLite FTS5 (Debian libsqlite3 via Python's sqlite3); tokenizer "porter unicode61 remove_diacritics 2"; bm25() with its fixed k1 1.2, b 0.75 (not settable) and per-row length; split layout: column weights title ${BM25.titleWeight}, text 1; no stopword list in FTS5 (indexed; the driver drops the 33 stopwords from queries); query words quoted and OR-ed; date and type UNINDEXED columns in WHERE; one process per thread`,
  minisearch: `MiniSearch 7 in-process; the engine's analyser as tokenizer (MiniSearch has no stemmer); BM25 k ${BM25.k1}, b ${BM25.b}, d 0 (its default is BM25+); per-field scoring, title boost ${BM25.titleWeight}; no prefix/fuzzy; MiniSearch multiplies a score by the number of query terms matched and scores every match (its design); filter = its filter callback on stored fields; throughput: one index copy per worker thread`,
  orama: `Orama 3 in-process; the engine's analyser as tokenizer; relevance BM25 k ${BM25.k1}, b ${BM25.b}, d 0; title boost ${BM25.titleWeight}; threshold 1 (any term matches; its default keeps documents with all terms), whole terms only (a terminator after every term: Orama looks terms up as prefixes); Orama counts a term once per field (tf = 1/length) and scores every match (its design); date number + type enum in where; throughput: one index copy per worker thread`,
};

/** What the tables cannot say by themselves (true of the design, whatever the run). */
const NOTES = [
  '- Latency is timed inside each peer\'s own process around one search call (query analysis included, result fetching',
  '  excluded except for engine-http, whose client receives and parses the full JSON answer). The time includes what each',
  '  driver adds around its library, not measured separately: the Python code that builds the queries of Xapian and',
  '  FTS5 and calls into their C libraries, the Java code that builds Lucene\'s query, the HTTP round trip of engine-http.',
  '- Throughput: every peer\'s pool is started once, outside any timed part, and kept: the engine\'s worker threads,',
  '  engine-http\'s server pool (PEERS_THREADS search threads), Lucene\'s thread pool, the worker processes of Xapian and',
  '  FTS5, the worker threads of MiniSearch and Orama with their index copies. Threads take queries from one shared',
  '  counter (the Python processes: a counter in shared memory under a lock, taken once per query); the engine\'s pool and',
  '  engine-http\'s server get 2 queries in flight per thread, as their pools queue queries, the others one per thread.',
  '- The engine runs one whole query per worker thread (src/search/pool.ts), as Lucene, Xapian and FTS5 do; it splits a',
  '  long query over the threads only when no other query runs. MiniSearch and Orama run one index copy per worker thread.',
  '- engine-http at k = 1000 is dominated by the JSON of 1,000 contexts (paragraph text and article metadata): the',
  '  cost of the API\'s answer, not of the search.',
  '- Quality differences come from the analysers (Lucene\'s standard tokenizer keeps "5-HT" apart, no diacritic folding),',
  '  the BM25 variants (Xapian\'s idf; FTS5\'s fixed k1 1.2 and per-row length; MiniSearch\'s factor of matched terms;',
  '  Orama\'s tf counted once per field and divided by the field length) and, in the split layout, per-field lengths',
  '  (exact in the engine, Lucene and MiniSearch only).',
  '- Peak RSS of the Python peers\' throughput runs leaves out their worker processes; that of MiniSearch and Orama',
  '  includes the index copies of their worker threads.',
].join('\n');

const fmt = (value: number | null | undefined, digits = 2) =>
  value === null || value === undefined || !Number.isFinite(value) ? 'n/a' : value >= 100 ? value.toFixed(0) : value.toFixed(digits);
const ratio = (value: number | null | undefined, base: number | null | undefined) =>
  value === null || value === undefined || !base || !Number.isFinite(value) ? '' : ` (${(value / base).toFixed(value / base >= 10 ? 0 : 2)}×)`;
const withRatio = (value: number | null | undefined, base: number | null | undefined, digits = 2) => `${fmt(value, digits)}${ratio(value, base)}`;

function table(header: string[], rows: string[][]): string {
  return [`| ${header.join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

export function reproduceSection(): string {
  return [
    '## How to reproduce',
    '',
    'The peers are installed beside the server, never as its dependencies (Debian packages and `bench/peers/node_modules`):',
    '',
    '```sh',
    'bench/peers/install.sh                               # liblucene8-java, xapian-tools, python3-xapian, sqlite3; minisearch, @orama/orama, vega-lite',
    'npm run bench:peers                                  # SciFact + 1M generated paragraphs, every peer (hours on 2 cores)',
    'PEERS_REPORT=peers-quick PEERS_PARAGRAPHS=20000 PEERS_QUERIES=50 PEERS_REPEATS=2 npm run bench:peers   # a quick run (about 10 minutes), beside the published results',
    'PEERS=engine,lucene PEERS_CORPORA=generated PEERS_REPORT=peers-lucene npm run bench:peers',
    '```',
    '',
    'Settings (environment): `PEERS_PARAGRAPHS` (generated corpus size, default 1,000,000), `PEERS` (subset of',
    '`engine,engine-http,lucene,xapian,sqlite-fts5,minisearch,orama`), `PEERS_CORPORA` (`scifact,generated`),',
    '`PEERS_QUERIES` (queries per set, default 200), `PEERS_REPEATS` (default 3, medians reported),',
    '`PEERS_SECONDS` (time budget of one repetition of one cell, default 5: a slow peer answers a prefix of the',
    `query list; a throughput repetition cycles its list for at least ${MIN_THROUGHPUT_SECONDS} s, or the budget when smaller),`,
    '`PEERS_THREADS` (throughput threads, default the core count), `PEERS_REPORT` (base name of the results,',
    'default `peers`; `PEERS_REPORT=peers-200k PEERS_PARAGRAPHS=200000` keeps a 200,000-paragraph run beside the full one),',
    '`PEERS_MERGE=1` (keep the figures of the results file being replaced for the corpora this run does not measure; its',
    'settings must be the same). Bad settings are refused before any work; a peer not installed here is skipped, with the reason;',
    'a run that replaces a results file of another corpus size, or one holding corpora it does not measure, says so at its start.',
    'SciFact must be in `../shared/data/scifact`.',
    'Results: `bench/results/peers.md`, `peers.json` and the `peers-*.svg` charts (or the `PEERS_REPORT` name); corpora and indexes stay in `bench/.work/peers/`.',
  ].join('\n');
}

export function qualitySection(quality: QualityRun[]): string {
  // A run without the SciFact corpus (PEERS_CORPORA=generated) had printed the table's header over no rows.
  if (quality.length === 0) return ['## Quality: SciFact', '', 'Not measured in this run (`PEERS_CORPORA` left SciFact out).'].join('\n');
  const rows: string[][] = [];
  for (const mode of ['split', 'merged'] as const) {
    const base = quality.find((q) => q.peer === 'engine' && q.mode === mode);
    const lucene = quality.find((q) => q.peer === 'lucene' && q.mode === mode);
    for (const q of quality.filter((x) => x.mode === mode)) {
      const diff = (a: number, b: number | undefined) => (b === undefined || !Number.isFinite(a) ? '' : ` (${a - b >= 0 ? '+' : ''}${(a - b).toFixed(4)})`);
      rows.push([
        q.peer,
        mode === 'split' ? `title field ×${BM25.titleWeight} + text` : 'title + text, one field',
        `${fmt(q.ndcg10, 4)}${q.peer === 'engine' ? '' : diff(q.ndcg10, base?.ndcg10)}`,
        `${fmt(q.recall100, 4)}${q.peer === 'engine' ? '' : diff(q.recall100, base?.recall100)}`,
        q.peer === 'engine' && lucene ? `engine − Lucene: ${(q.ndcg10 - lucene.ndcg10).toFixed(4)}` : q.error ? `error: ${q.error.slice(0, 80)}` : '',
      ]);
    }
  }
  return [
    '## Quality: SciFact',
    '',
    'BEIR SciFact, 5,183 abstracts, the 809 judged train queries (`qrels/train.tsv`); top-100 paragraphs per query, ranked as articles.',
    'Differences in brackets are to this engine in the same layout. Two layouts: the engine\'s own (title as a second field',
    `weighted ${BM25.titleWeight}; Lucene reproduces it exactly, Xapian and FTS5 approximately, see the settings), and BEIR's usual one`,
    '(title and text concatenated into one field; the engine is then fed the concatenated text with an empty title). The',
    'like-for-like comparison with Lucene is the split layout (same formula) and the merged layout (same input).',
    '',
    table(['peer', 'layout', 'nDCG@10', 'Recall@100', 'note'], rows),
  ].join('\n');
}

function buildSection(runs: PeerRun[]): string {
  const engine = runs.find((r) => r.peer === 'engine');
  const rows = runs.map((r) => [
    r.peer,
    r.build ? withRatio(r.build.seconds, engine?.build?.seconds) : r.peer === 'engine-http' ? '(engine\'s)' : 'n/a',
    withRatio(r.indexMiB, engine?.indexMiB, 1),
    r.build ? withRatio(r.build.peakRssMiB, engine?.build?.peakRssMiB, 0) : '',
    withRatio(r.load?.seconds, engine?.load?.seconds, 3),
    withRatio(r.load?.rssMiB, engine?.load?.rssMiB, 0),
    withRatio(r.queryPeakRssMiB, engine?.queryPeakRssMiB, 0),
    r.error ? `error: ${r.error.slice(0, 100)}` : '',
  ]);
  return table(['peer', 'build s', 'index MiB', 'build peak RSS MiB', 'load s', 'RSS after load MiB', 'query peak RSS MiB', 'note'], rows);
}

const cellKey = (c: { k: number; filter: FilterName }) => `${c.k}|${c.filter}`;

/** A superscript giving the queries a peer answered in a cell, when fewer than the engine's (its time budget ran out). */
const fewerQueries = (cell: LatencyCell, engineCell: LatencyCell | undefined) => (cell.queries < (engineCell?.queries ?? 0) ? `<sup>${cell.queries}q</sup>` : '');

function latencyTable(runs: PeerRun[], pick: (c: LatencyCell) => number): string {
  const engine = runs.find((r) => r.peer === 'engine');
  const rows = (engine?.latency ?? runs.find((r) => r.latency.length)?.latency ?? []).map((base) => {
    const find = (run: PeerRun) => run.latency.find((c) => c.set === base.set && cellKey(c) === cellKey(base));
    return [
      base.set,
      String(base.k),
      base.filter,
      ...runs.map((run) => {
        const cell = find(run);
        if (!cell) return 'n/a';
        const e = engine ? find(engine) : undefined;
        return `${withRatio(pick(cell), e ? pick(e) : undefined)}${fewerQueries(cell, e)}`;
      }),
    ];
  });
  return table(['queries', 'k', 'filter', ...runs.map((r) => r.peer)], rows);
}

function throughputTable(runs: PeerRun[]): string {
  const engine = runs.find((r) => r.peer === 'engine');
  const rows: string[][] = [];
  for (const k of K_VALUES) {
    for (const filter of ['none', 'date+type'] as FilterName[]) {
      const find = (run: PeerRun | undefined): ThroughputCell | undefined => run?.throughput.find((c) => c.k === k && c.filter === filter);
      rows.push([String(k), filter, ...runs.map((run) => withRatio(find(run)?.qps, find(engine)?.qps, 1))]);
    }
  }
  return table(['k', 'filter', ...runs.map((r) => r.peer)], rows);
}

/** Average hits per query at k = 1000, each cell marked when the peer answered fewer queries than the engine. */
export function hitsTable(runs: PeerRun[]): string {
  const engine = runs.find((r) => r.peer === 'engine');
  return table(
    ['queries', 'filter', ...runs.map((r) => r.peer)],
    (runs[0]?.latency ?? []).filter((c) => c.k === 1000).map((base) => [
      base.set,
      base.filter,
      ...runs.map((run) => {
        const find = (r: PeerRun | undefined) => r?.latency.find((c) => c.set === base.set && c.k === 1000 && c.filter === base.filter);
        const cell = find(run);
        return cell ? `${fmt(cell.hitsPerQuery, 0)}${fewerQueries(cell, find(engine))}` : 'n/a';
      }),
    ]),
  );
}

function speedSection(runs: PeerRun[], corpusLabel: string, config: BenchConfig): string {
  return [
    `## Speed and memory: ${corpusLabel}`,
    '',
    'Build (in its own process), index on disk, load (open in a fresh process), resident memory.',
    '',
    buildSection(runs),
    '',
    `Single-thread latency p50, ms (ratio to the engine). Filter = date ${FILTER.dateFrom} to ${FILTER.dateTo} and type ${FILTER.type}.`,
    'A superscript gives the queries timed when a peer\'s time budget ran out before the end of the set.',
    '',
    latencyTable(runs, (c) => c.p50),
    '',
    'Single-thread latency p99, ms (ratio to the engine):',
    '',
    latencyTable(runs, (c) => c.p99),
    '',
    `Throughput on ${config.threads} threads, queries/s over the mixed query list (ratio to the engine; above 1 = the peer answers more). ${throughputRepetition(config)}`,
    '',
    throughputTable(runs),
    '',
    'Average hits returned per query, top-1000, as a check that the peers do the same work (a filter leaves fewer matches);',
    'a superscript gives the queries a peer answered before its time budget ran out, when fewer than the engine\'s: its average is over those.',
    '',
    hitsTable(runs),
  ].join('\n');
}

/** Where the engine stands against the issue's targets, computed from this run. */
function targetsSection(report: Report): string {
  const lines: string[] = ['## Targets of issue 5', ''];
  if (report.config.paragraphs !== 1_000_000) {
    lines.push(`The issue states its targets at 1,000,000 paragraphs; this run has ${report.config.paragraphs.toLocaleString('en')}, so each verdict below is for this size only.`, '');
  }
  for (const mode of ['split', 'merged'] as const) {
    const e = report.quality.find((q) => q.peer === 'engine' && q.mode === mode);
    const l = report.quality.find((q) => q.peer === 'lucene' && q.mode === mode);
    if (e && l && Number.isFinite(l.ndcg10)) {
      const d = e.ndcg10 - l.ndcg10;
      lines.push(`- nDCG@10 within 0.01 of Lucene (${mode} layout): engine ${e.ndcg10.toFixed(4)}, Lucene ${l.ndcg10.toFixed(4)}, difference ${d >= 0 ? '+' : ''}${d.toFixed(4)}: **${Math.abs(d) <= 0.01 || d > 0 ? 'met' : 'missed'}**.`);
    }
  }
  const runs = report.speed.filter((r) => r.corpus === 'generated');
  const engine = runs.find((r) => r.peer === 'engine');
  const compare = (peer: PeerName, factor: number) => {
    const other = runs.find((r) => r.peer === peer);
    if (!engine || !other || !other.latency.length) return null;
    const latency = engine.latency.map((c) => ({ c, o: other.latency.find((x) => x.set === c.set && cellKey(x) === cellKey(c)) })).filter((x) => x.o);
    const latencyMet = latency.filter(({ c, o }) => o!.p50 >= factor * c.p50).length;
    const throughput = engine.throughput.map((c) => ({ c, o: other.throughput.find((x) => cellKey(x) === cellKey(c)) })).filter((x) => x.o);
    const throughputMet = throughput.filter(({ c, o }) => c.qps >= factor * o!.qps).length;
    const worst = latency.reduce((w, x) => (x.o!.p50 / x.c.p50 < w.r ? { r: x.o!.p50 / x.c.p50, label: `${x.c.set} k=${x.c.k} ${x.c.filter}` } : w), { r: Infinity, label: '' });
    return { latencyMet, latencyCells: latency.length, throughputMet, throughputCells: throughput.length, worst };
  };
  const size = report.config.paragraphs.toLocaleString('en');
  const lucene = compare('lucene', 1);
  if (lucene) {
    lines.push(`- p50 latency at least equal to Lucene's (${size} paragraphs): engine faster or equal in ${lucene.latencyMet} of ${lucene.latencyCells} cells (worst cell: ${lucene.worst.label}, Lucene p50 = ${lucene.worst.r.toFixed(2)}× the engine's): **${lucene.latencyMet === lucene.latencyCells ? 'met' : 'missed'}**.`);
    lines.push(`- throughput at least equal to Lucene's: ${lucene.throughputMet} of ${lucene.throughputCells} cells: **${lucene.throughputMet === lucene.throughputCells ? 'met' : 'missed'}**.`);
  }
  for (const peer of ['sqlite-fts5', 'minisearch'] as const) {
    const c = compare(peer, 10);
    if (!c) continue;
    lines.push(`- at least 10× ${peer} (p50 latency): ${c.latencyMet} of ${c.latencyCells} cells (smallest ratio ${c.worst.r.toFixed(1)}×, ${c.worst.label}); throughput: ${c.throughputMet} of ${c.throughputCells} cells: **${c.latencyMet === c.latencyCells && c.throughputMet === c.throughputCells ? 'met' : 'missed'}**.`);
  }
  if (report.config.paragraphs !== 1_000_000) {
    // Why not 1M: what the in-memory peers would need, scaled linearly from this run.
    const scaled = runs
      .filter((r) => r.build && (r.peer === 'minisearch' || r.peer === 'orama'))
      .map((r) => `${r.peer} ~${((r.build!.peakRssMiB * 1_000_000) / report.config.paragraphs / 1024).toFixed(0)} GiB to build, ~${((r.build!.seconds * 1_000_000) / report.config.paragraphs / 60).toFixed(0)} min`);
    // The size is the one PEERS_PARAGRAPHS asked for: the report had called every size "the largest that fits" a 40-minute run.
    lines.push(
      `- The issue's speed targets are stated at 1M paragraphs; this run used ${size} (PEERS_PARAGRAPHS)` +
        `${scaled.length ? ` (at 1M, scaled linearly: ${scaled.join('; ')}, plus one index copy per throughput thread)` : ''}. ` +
        'PEERS_PARAGRAPHS=1000000 runs the full size.',
    );
  }
  return lines.join('\n');
}

/** The query sets and their sizes, saying which set held fewer queries than PEERS_QUERIES asked for. */
export function querySetsText(asked: number, sizes: Record<string, number> | undefined): string {
  const sets = 'SciFact claims and seeded 1-, 2- and 4-word queries';
  const fewer = Object.entries(sizes ?? {}).filter(([, size]) => size < asked);
  if (fewer.length === 0) return `${sets}, ${asked.toLocaleString('en')} each`;
  const held = fewer.map(([set, size]) => `${set} holds ${size.toLocaleString('en')}`).join(', ');
  return `${sets}, ${asked.toLocaleString('en')} each as PEERS_QUERIES asked, except where a set holds fewer (${held}: all of them are used)`;
}

/** How long a throughput repetition lasts: what the budget and the minimum window make of it. */
export function throughputRepetition(config: Pick<BenchConfig, 'secondsPerCell' | 'queriesPerSet'>): string {
  return `Each repetition cycles the mixed list (the four sets interleaved, up to ${(4 * config.queriesPerSet).toLocaleString('en')} queries) ` +
    `until it has taken the whole list and at least ${throughputWindow(config)} s have passed, and stops at the budget of ${config.secondsPerCell} s.`;
}

/** What warming `pick` says each peer got, per corpus; null when the run did not record it. */
function warmUpPerCorpus(speed: PeerRun[], pick: (run: PeerRun) => WarmUp | undefined): string | null {
  const corpora = [...new Set(speed.filter((run) => pick(run)).map((run) => run.corpus))];
  if (corpora.length === 0) return null;
  const peers = (corpus: string) => speed.filter((run) => run.corpus === corpus && pick(run)).map((run) => `${run.peer} ${describeWarmUp(pick(run))}`);
  return corpora.map((corpus) => `${corpus}: ${peers(corpus).join(', ')}`).join('; ');
}

/** What warming each peer got before its first latency and throughput cells; nothing for runs that did not record it. */
export function warmUpText(speed: PeerRun[]): string[] {
  const latency = warmUpPerCorpus(speed, (run) => run.latencyWarmUp);
  const throughput = warmUpPerCorpus(speed, (run) => run.throughputWarmUp);
  const settled = `within ${WARM_UP.tolerance * 100}% of each other (at most ${WARM_UP.maxPasses})`;
  return [
    ...(latency === null ? [] : [
      `Before its first latency cell each peer answered untimed passes over the query sets (k = ${LATENCY_WARM_UP.k}, no filter: the first cells' settings) ` +
        `until the medians of two passes in a row were ${settled}; ${latency}.`,
    ]),
    ...(throughput === null ? [] : [
      `Before its first throughput cell each peer's pool was started, outside any timed part, and answered untimed passes of that cell ` +
        `(repetitions over the mixed list, k = ${THROUGHPUT_WARM_UP.k}, no filter) until the rates of two passes in a row were ${settled}; ${throughput}.`,
    ]),
  ];
}

export async function writeReport(report: Report): Promise<void> {
  const { config } = report;
  const generatedLabel = `Generated corpus (${config.paragraphs.toLocaleString('en')} paragraphs)`;
  const charts = await writeCharts(report.quality, report.speed, config.threads, generatedLabel, config.reportName);
  const versions: Record<string, string> = {};
  for (const run of report.speed) Object.assign(versions, run.versions);
  const markdown = [
    '# This engine beside its peers: quality, speed, memory',
    '',
    reproduceSection(),
    '',
    '## This run',
    '',
    `${report.date}, ${report.minutes.toFixed(0)} minutes. Machine: ${Object.entries(report.machine).map(([k, v]) => `${k} ${v}`).join(', ')}.`,
    ...(report.commit ? [`Commit: ${report.commit}.`] : []),
    ...(report.skipped?.length ? [`Not measured (not installed on this machine): ${report.skipped.map((s) => `${s.peer} (${s.reason})`).join('; ')}.`] : []),
    `Versions: ${Object.entries(versions).map(([k, v]) => `${k} ${v}`).join(', ')}.`,
    `Generated corpus: ${config.paragraphs.toLocaleString('en')} paragraphs of bench/lib/synthetic-corpus.ts (the engine scale benchmark's, sentences resampled from SciFact).`,
    `Query sets: ${querySetsText(config.queriesPerSet, report.querySetSizes)}; k = ${K_VALUES.join(', ')}; ${config.repeats} ${config.repeats === 1 ? 'repetition' : 'repetitions'} per figure, median reported; before each cell, latency or throughput, each peer answered the first 20 queries of the cell's list at its k and filter, untimed; time budget ${config.secondsPerCell} s per repetition; throughput on ${config.threads} threads.`,
    ...warmUpText(report.speed),
    'Every figure is given with its ratio to this engine in the same run: peer ÷ engine.',
    ...(report.merged
      ? [`The ${report.merged.corpora.join(' and ')} figures${report.config.corpora.includes('scifact') ? '' : ' and the quality figures'} come from the run of ${report.merged.from} (same machine and settings; each corpus is measured for all peers in one run).`]
      : []),
    '',
    ...charts.map((file) => `![${file}](${file})`),
    '',
    luceneTargetsSection(report),
    '',
    targetsSection(report),
    '',
    qualitySection(report.quality),
    '',
    ...(['scifact', 'generated'] as const).flatMap((corpus) => {
      const runs = report.speed.filter((r) => r.corpus === corpus);
      return runs.length ? [speedSection(runs, corpus === 'scifact' ? 'SciFact (5,183 abstracts, one paragraph each)' : generatedLabel, config), ''] : [];
    }),
    '## Reading the figures',
    '',
    NOTES,
    '',
    '## Peer settings',
    '',
    table(['peer', 'settings'], config.peers.map((p) => [p, PEER_SETTINGS[p]])),
    '',
  ].join('\n');
  await writeResults(config.reportName, report, markdown, { stamped: false });
}
