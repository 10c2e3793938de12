/** The peers report says what a run did not measure, rather than printing a table header over nothing. */
import { describe, expect, it } from 'vitest';
import type { LatencyCell, PeerRun } from '../../bench/peers/lib/measure.js';
import { hitsTable, qualitySection, querySetsText } from '../../bench/peers/lib/report.js';

describe("the peers report's quality section", () => {
  it('says SciFact was not measured when the run left it out', () => {
    // PEERS_CORPORA=generated had printed the table's header with no row under it (the numbers round's finding).
    expect(qualitySection([])).toBe('## Quality: SciFact\n\nNot measured in this run (`PEERS_CORPORA` left SciFact out).');
  });

  it('tables the peers measured, with their differences to the engine', () => {
    const section = qualitySection([
      { peer: 'engine', mode: 'split', ndcg10: 0.6967, recall100: 0.9215 },
      { peer: 'lucene', mode: 'split', ndcg10: 0.7018, recall100: 0.92 },
    ] as Parameters<typeof qualitySection>[0]);
    expect(section).toContain('| engine | title field ×');
    expect(section).toContain('0.7018 (+0.0051)');
  });
});

describe("the peers report's query sets and hits", () => {
  it('says which set held fewer queries than PEERS_QUERIES asked for', () => {
    expect(querySetsText(200, { scifact: 200, '1 term': 200 })).toBe('SciFact claims and seeded 1-, 2- and 4-word queries, 200 each');
    expect(querySetsText(2000, { scifact: 1109, '1 term': 2000, '2 terms': 2000, '4 terms': 2000 })).toBe(
      'SciFact claims and seeded 1-, 2- and 4-word queries, 2,000 each as PEERS_QUERIES asked, except where a set holds fewer (scifact holds 1,109: all of them are used)',
    );
  });

  it('marks the hits of a peer that answered fewer queries than the engine within its budget', () => {
    const cell = (queries: number, hitsPerQuery: number) => ({ set: '4 terms', k: 1000, filter: 'none', p50: 1, p99: 1, queries, hitsPerQuery }) as LatencyCell;
    const run = (peer: string, latency: LatencyCell[]) => ({ peer, corpus: 'generated', latency }) as PeerRun;
    const hits = hitsTable([run('engine', [cell(200, 1000)]), run('engine-http', [cell(37, 1000)]), run('lucene', [cell(200, 1000)])]);
    expect(hits).toContain('| 4 terms | none | 1000 | 1000<sup>37q</sup> | 1000 |');
  });
});
