/** The peers report says what a run did not measure, rather than printing a table header over nothing. */
import { describe, expect, it } from 'vitest';
import { qualitySection } from '../../bench/peers/lib/report.js';

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
