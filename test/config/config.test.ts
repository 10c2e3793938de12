import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseDuration, publicSettings } from '../../src/config.js';

describe('configuration', () => {
  it('takes flags over environment variables over defaults', () => {
    const config = loadConfig(['--port', '9000', '--llm-gpu', '--index=/srv/idx'], { PORT: '7000', BM25_K1: '1.1', DATA_DIR: '/srv/data' });
    expect(config).toMatchObject({ port: 9000, llmGpu: true, index: '/srv/idx', bm25K1: 1.1, data: '/srv/data', indexIsDefault: false });
    expect(loadConfig([], {})).toMatchObject({ port: 8080, host: '127.0.0.1', index: 'var/index', indexIsDefault: true });
  });

  it('rejects unknown options and out-of-range values with the setting named', () => {
    expect(() => loadConfig(['--prot', '1'], {})).toThrow(/unknown option --prot/);
    expect(() => loadConfig(['--port', '70000'], {})).toThrow(ConfigError);
    expect(() => loadConfig([], { BM25_B: '2' })).toThrow(/--bm25-b \/ BM25_B/);
    expect(() => loadConfig(['--port'], {})).toThrow(/needs a value/);
  });

  it('parses durations', () => {
    expect(parseDuration('5h')).toBe(5 * 3_600_000);
    expect(parseDuration('1h30m')).toBe(90 * 60_000);
    expect(parseDuration('90')).toBe(90_000);
    expect(() => parseDuration('5 hours')).toThrow(ConfigError);
    expect(loadConfig([], { ARCHIVE_TTL: '30m' }).archiveTtl).toBe(1_800_000);
  });

  it('refuses durations of zero, past what a timer holds (Node fires those after 1 ms), and polls faster than 100 ms', () => {
    for (const raw of ['0', '0s', '0ms', '25d', '1000h']) expect(() => parseDuration(raw, '--archive-ttl')).toThrow(/--archive-ttl must be from 1ms to 24d/);
    expect(parseDuration('24d')).toBe(24 * 86_400_000);
    expect(() => loadConfig(['--index-poll-interval', '0'], {})).toThrow(/--index-poll-interval .* must be from 100ms to 24d, got "0"/);
    expect(() => loadConfig(['--index-poll-interval', '50ms'], {})).toThrow(ConfigError);
    expect(() => loadConfig(['--index-poll-interval', '1000h'], {})).toThrow(ConfigError);
    expect(loadConfig(['--index-poll-interval', '100ms'], {}).indexPollInterval).toBe(100);
  });

  it('lists every setting in /settings', () => {
    const settings = publicSettings(loadConfig([], {}));
    expect(Object.keys(settings)).toEqual(expect.arrayContaining(['port', 'bm25K1', 'llmModel', 'authFile', 'archiveTtl']));
  });
});
