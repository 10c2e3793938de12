/** Settings and start-up checks of the peer comparison (bench/peers): bad settings are refused before any work. */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BenchSettingError, countsFromEnv, positiveFromEnv } from '../../bench/lib/settings.js';
import { missingPrerequisite, type Probe } from '../../bench/peers/lib/availability.js';
import { loadBenchConfig, type BenchConfig } from '../../bench/peers/lib/config.js';
import { mergeMismatches, mergeReports, replacementLosses } from '../../bench/peers/lib/merge.js';
import { PeerProcess } from '../../bench/peers/lib/peer-process.js';
import type { Report } from '../../bench/peers/lib/report.js';

const refused = (env: Record<string, string>) => {
  try {
    loadBenchConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(BenchSettingError);
    return (error as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
};

describe('settings', () => {
  it('take the documented defaults and whole numbers', () => {
    const config = loadBenchConfig({ PEERS_PARAGRAPHS: '5000', PEERS: 'engine, lucene', PEERS_SECONDS: '0.5' });
    expect(config).toMatchObject({ paragraphs: 5000, peers: ['engine', 'lucene'], corpora: ['scifact', 'generated'], queriesPerSet: 200, repeats: 3, secondsPerCell: 0.5, reportName: 'peers' });
  });

  it('refuse counts that are not positive whole numbers (a fraction used to floor to 0)', () => {
    expect(refused({ PEERS_PARAGRAPHS: '0' })).toBe('PEERS_PARAGRAPHS must be a positive whole number, got "0"');
    expect(refused({ PEERS_REPEATS: '-1' })).toMatch(/PEERS_REPEATS must be a positive whole number/);
    expect(refused({ PEERS_REPEATS: '0.5' })).toMatch(/PEERS_REPEATS must be a positive whole number, got "0.5"/);
    expect(refused({ PEERS_PARAGRAPHS: '0.5' })).toMatch(/PEERS_PARAGRAPHS/);
    expect(refused({ PEERS_QUERIES: '2.5' })).toMatch(/PEERS_QUERIES/);
    expect(refused({ PEERS_THREADS: 'abc' })).toMatch(/PEERS_THREADS/);
    expect(refused({ PEERS_SECONDS: '-2' })).toMatch(/PEERS_SECONDS must be a positive number/);
  });

  it('refuse unknown, empty and repeated names', () => {
    expect(refused({ PEERS: 'lucen' })).toMatch(/PEERS: unknown "lucen" \(known: engine, engine-http, lucene/);
    expect(refused({ PEERS: ',' })).toMatch(/PEERS names nothing/);
    expect(refused({ PEERS_CORPORA: ' , ' })).toMatch(/PEERS_CORPORA names nothing/);
    expect(refused({ PEERS: 'engine,lucene,engine' })).toMatch(/"engine" is named twice/);
    expect(refused({ PEERS_REPORT: '../peers' })).toMatch(/PEERS_REPORT must be a file base name/);
  });

  it('refuse engine-http without the engine, whose index it serves', () => {
    expect(refused({ PEERS: 'engine-http,lucene' })).toMatch(/engine-http serves the index the engine peer builds in this run: add engine/);
  });
});

describe('peers not installed', () => {
  const machine = (missing: { commands?: string[]; jars?: string[]; files?: boolean } = {}): Probe => ({
    runs: (command, args) => !(missing.commands ?? []).some((m) => m === command || args.join(' ').includes(m)),
    exists: () => !missing.files,
    javaLibraries: () => ['lucene-core-8.7.0.jar', 'lucene-analyzers-common-8.7.0.jar', 'lucene-queries-8.7.0.jar'].filter((jar) => !(missing.jars ?? []).includes(jar)),
  });

  it('are named with what is missing and how to install it', () => {
    expect(missingPrerequisite('lucene', machine())).toBeNull();
    expect(missingPrerequisite('lucene', machine({ commands: ['java'] }))).toBe("'java -version' fails: no Java on PATH (Debian default-jdk-headless): run bench/peers/install.sh");
    expect(missingPrerequisite('lucene', machine({ jars: ['lucene-queries-8.7.0.jar'] }))).toMatch(/^lucene-queries-8\*\.jar not in \/usr\/share\/java/);
    expect(missingPrerequisite('xapian', machine({ commands: ['import xapian'] }))).toMatch(/cannot import xapian.*install\.sh/);
    expect(missingPrerequisite('sqlite-fts5', machine({ commands: ['fts5'] }))).toMatch(/no SQLite with FTS5/);
    expect(missingPrerequisite('orama', machine({ files: true }))).toBe('@orama/orama is not in bench/peers/node_modules: run bench/peers/install.sh');
    expect(missingPrerequisite('engine', machine({ commands: ['java', 'import xapian'], files: true }))).toBeNull();
  });

  it('that cannot start make a call fail with the reason, not crash or hang the harness', async () => {
    const peer = PeerProcess.spawn('lucene', '/nonexistent/java', []);
    await expect(peer.call('versions')).rejects.toThrow(/lucene could not start: spawn \/nonexistent\/java ENOENT: run bench\/peers\/install\.sh/);
    await peer.quit();
  });
});

describe('PEERS_MERGE', () => {
  const config = loadBenchConfig({ PEERS_PARAGRAPHS: '20000', PEERS: 'engine,lucene', PEERS_CORPORA: 'generated' });

  it('names every setting that differs from the earlier run', () => {
    expect(mergeMismatches({ ...config, corpora: ['scifact', 'generated'] }, config)).toEqual([]);
    const earlier: Partial<BenchConfig> = { ...config, paragraphs: 200000, peers: ['engine', 'lucene', 'xapian'] };
    delete earlier.threads;
    expect(mergeMismatches(earlier, config)).toEqual([
      'paragraphs: 200000 → 20000',
      'peers: ["engine","lucene","xapian"] → ["engine","lucene"]',
      'threads: not recorded → ' + config.threads,
    ]);
  });

  it('keeps the earlier figures of the corpora this run did not measure', () => {
    const run = (corpus: 'scifact' | 'generated', date: string) => ({ peer: 'engine', corpus, date }) as unknown as Report['speed'][number];
    const earlier = { date: 'earlier', config, quality: [{ peer: 'engine' }], speed: [run('scifact', 'earlier'), run('generated', 'earlier')] } as unknown as Report;
    const now = { date: 'now', config, quality: [], speed: [run('generated', 'now')] } as unknown as Report;
    const merged = mergeReports(earlier, now);
    expect(merged.speed.map((r) => `${r.corpus} ${(r as unknown as { date: string }).date}`)).toEqual(['scifact earlier', 'generated now']);
    expect(merged.quality).toBe(earlier.quality);
    expect(merged.merged).toEqual({ from: 'earlier', corpora: ['scifact'] });
  });

  it('names what replacing an earlier results file would lose: corpora left out, or another corpus size', () => {
    const run = (corpus: 'scifact' | 'generated') => ({ peer: 'engine', corpus }) as unknown as Report['speed'][number];
    const both = { config: { ...config, paragraphs: 200000 }, quality: [{ peer: 'engine' }] as unknown as Report['quality'], speed: [run('scifact'), run('generated')] };
    expect(replacementLosses(both, config)).toEqual(['its scifact figures, which this run does not measure', "its 200,000-paragraph figures, for this run's 20,000"]);
    const sameSize = { ...both, config, quality: [], speed: [run('generated')] };
    expect(replacementLosses(sameSize, config)).toEqual([]);
    const full = loadBenchConfig({ PEERS_PARAGRAPHS: '200000', PEERS: 'engine,lucene' });
    expect(replacementLosses(both, full)).toEqual([]);
  });
});

describe('settings of the other benchmarks (bench/lib/settings.ts)', () => {
  it('read positive numbers and lists of counts, with the default when unset', () => {
    expect(positiveFromEnv({}, 'PARAGRAPHS', 1_000_000, true)).toBe(1_000_000);
    expect(positiveFromEnv({ PARAGRAPHS: '20000' }, 'PARAGRAPHS', 1_000_000, true)).toBe(20000);
    expect(positiveFromEnv({ STEP_SECONDS: '0.5' }, 'STEP_SECONDS', 60, false)).toBe(0.5);
    expect(countsFromEnv({}, 'LOAD_STEPS', [1, 4])).toEqual([1, 4]);
    expect(countsFromEnv({ LOAD_STEPS: '2, 8' }, 'LOAD_STEPS', [1, 4])).toEqual([2, 8]);
  });

  it('refuse what Number() let through: 0, negatives, fractions, words', () => {
    expect(() => positiveFromEnv({ PARAGRAPHS: '0' }, 'PARAGRAPHS', 1, true)).toThrow('PARAGRAPHS must be a positive whole number, got "0"');
    expect(() => positiveFromEnv({ ROUNDS: '-1' }, 'ROUNDS', 1, true)).toThrow(BenchSettingError);
    expect(() => positiveFromEnv({ PARAGRAPHS: 'abc' }, 'PARAGRAPHS', 1, true)).toThrow(/got "abc"/);
    expect(() => positiveFromEnv({ ROUNDS: '1.5' }, 'ROUNDS', 1, true)).toThrow(/whole number/);
    expect(() => countsFromEnv({ LOAD_STEPS: '1,x' }, 'LOAD_STEPS', [1])).toThrow('LOAD_STEPS must be a positive whole number, got "x"');
    expect(() => countsFromEnv({ LOAD_STEPS: ',' }, 'LOAD_STEPS', [1])).toThrow(/LOAD_STEPS names nothing/);
  });

  it('take decimal digits only: exponents and hexadecimal are refused', () => {
    expect(refused({ PEERS_PARAGRAPHS: '1e3' })).toBe('PEERS_PARAGRAPHS must be a positive whole number, got "1e3"');
    expect(refused({ PEERS_PARAGRAPHS: '0x10' })).toBe('PEERS_PARAGRAPHS must be a positive whole number, got "0x10"');
    expect(() => positiveFromEnv({ STEP_SECONDS: '5e-1' }, 'STEP_SECONDS', 60, false)).toThrow('STEP_SECONDS must be a positive number, got "5e-1"');
    expect(() => positiveFromEnv({ STEP_SECONDS: 'Infinity' }, 'STEP_SECONDS', 60, false)).toThrow(BenchSettingError);
    expect(positiveFromEnv({ STEP_SECONDS: '.5' }, 'STEP_SECONDS', 60, false)).toBe(0.5);
    expect(positiveFromEnv({ STEP_SECONDS: '2.' }, 'STEP_SECONDS', 60, false)).toBe(2);
  });

  it('bench:archive refuses a size that is not a whole number of MiB before any work (a word had kept the old figures)', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'bench/archive.ts'], { env: { ...process.env, ARCHIVE_BENCH_MB: 'abc' }, encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr.trim()).toBe('archive.ts: ARCHIVE_BENCH_MB must be a positive whole number, got "abc"');
    expect(run.status).toBe(2);
  }, 60_000);
});
