/** Every benchmark's results say which commit was measured, and on which CPU. */
import { describe, expect, it } from 'vitest';
import { stampedResults } from '../../bench/lib/stats.js';

describe('stampedResults', () => {
  const measured = { commit: '0123456789ab', cpu: 'Some CPU @ 2.00GHz' };

  it('adds the commit and CPU model to the JSON and as the last line of the report', () => {
    const stamped = stampedResults({ rows: [1] }, '# A benchmark\n\n| a |\n', measured);
    expect(stamped.json).toEqual({ rows: [1], measured });
    expect(stamped.markdown).toBe('# A benchmark\n\n| a |\n\nMeasured at commit 0123456789ab, on Some CPU @ 2.00GHz.\n');
  });

  it('takes them from this checkout and machine by default', () => {
    const { measured } = stampedResults({}, '').json as { measured: { commit: string; cpu: string } };
    expect(measured.commit).toMatch(/^[0-9a-f]{12}( with uncommitted changes)?$|^unknown/);
    expect(measured.cpu).not.toBe('');
  });
});
