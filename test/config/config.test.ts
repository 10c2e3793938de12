import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { ConfigError, helpText, loadConfig, parseDuration, publicSettings } from '../../src/config.js';

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

  it('refuses a request timeout under 1 s, which would cut requests with 408 before they could arrive', () => {
    for (const raw of ['0', '1ms', '999ms', '0.5s']) {
      expect(() => loadConfig(['--request-timeout', raw], {})).toThrow(
        `--request-timeout / REQUEST_TIMEOUT must be from 1s to 30m, got "${raw}"`,
      );
    }
    expect(() => loadConfig([], { REQUEST_TIMEOUT: '1ms' })).toThrow(/--request-timeout \/ REQUEST_TIMEOUT must be from 1s to 30m/);
    expect(loadConfig(['--request-timeout', '1s'], {}).requestTimeout).toBe(1000);
  });

  it('refuses a request timeout over 30 minutes, past which an upload still arriving could be collected as abandoned', () => {
    for (const raw of ['31m', '30m1s', '1h', '1801', '25d']) {
      expect(() => loadConfig(['--request-timeout', raw], {})).toThrow(
        `--request-timeout / REQUEST_TIMEOUT must be from 1s to 30m, got "${raw}"`,
      );
    }
    expect(() => loadConfig([], { REQUEST_TIMEOUT: '2h' })).toThrow(/--request-timeout \/ REQUEST_TIMEOUT must be from 1s to 30m/);
    expect(() => loadConfig(['--request-timeout', 'soon'], {})).toThrow('--request-timeout / REQUEST_TIMEOUT must be a duration such as 5h, 30m or 90s, got "soon"');
    expect(loadConfig(['--request-timeout', '30m'], {}).requestTimeout).toBe(30 * 60_000);
    expect(loadConfig(['--request-timeout', '1800'], {}).requestTimeout).toBe(30 * 60_000);
    expect(loadConfig([], {}).requestTimeout).toBe(300_000);
    expect(helpText()).toContain('--request-timeout / REQUEST_TIMEOUT  (default: 300s; 1s to 30m)');
  });

  it('refuses blank numbers instead of reading them as 0 (an empty PORT a random port, an empty RATE_LIMIT no limit), and non-decimal notations', () => {
    for (const env of [{ PORT: '' }, { PORT: '  ' }, { RATE_LIMIT: '' }, { MAX_IN_FLIGHT: ' ' }, { BM25_K1: ' ' }]) {
      const [variable] = Object.keys(env);
      expect(() => loadConfig([], env)).toThrow(new RegExp(`/ ${variable} must be (an integer|a number) between`));
    }
    expect(() => loadConfig(['--port='], {})).toThrow(/--port \/ PORT must be an integer between 0 and 65535, got ""/);
    for (const raw of ['0x50', '1e3', '80.0', '0b1']) expect(() => loadConfig(['--port', raw], {})).toThrow(ConfigError);
    expect(() => loadConfig(['--bm25-k1', '0x1'], {})).toThrow(ConfigError);
    // Nor exponents or signs, which decimal settings had taken (the README refuses 1e3).
    for (const raw of ['1e1', '5e-1', '+1.5', '-0.5']) {
      expect(() => loadConfig(['--bm25-k1', raw], {})).toThrow(`--bm25-k1 / BM25_K1 must be a number between 0 and 10, got "${raw}"`);
    }
    expect(() => loadConfig(['--port', '+80'], {})).toThrow('--port / PORT must be an integer between 0 and 65535, got "+80"');
    // The merge factor's own parser (0 means never merge, so a blank one would have turned merging off).
    for (const raw of ['', ' ', '0x2', '1e1']) {
      expect(() => loadConfig([`--merge-factor=${raw}`, '--index', '/tmp/index'], {}, 'ingest')).toThrow(/--merge-factor \/ MERGE_FACTOR must be 0 \(never merge automatically\)/);
    }
    expect(loadConfig([], { PORT: ' 8081 ', BM25_K1: '1.2', TITLE_WEIGHT: '.5' })).toMatchObject({ port: 8081, bm25K1: 1.2, titleWeight: 0.5 });
  });

  it('refuses an empty host (it listened on every interface), data directory, demo corpus or input', () => {
    expect(() => loadConfig([], { HOST: '' })).toThrow('--host / HOST must not be empty');
    expect(() => loadConfig(['--host', ' '], {})).toThrow('--host / HOST must not be empty');
    expect(() => loadConfig([], { DATA_DIR: '' })).toThrow('--data / DATA_DIR must not be empty');
    expect(() => loadConfig(['--demo-corpus='], {})).toThrow('--demo-corpus / DEMO_CORPUS must not be empty');
    expect(() => loadConfig(['--index', 'i', '--input', ''], {}, 'ingest')).toThrow('--input / INGEST_INPUT must not be empty');
  });

  it('refuses a path of only white space, naming the setting, instead of failing when the path is first used', () => {
    expect(() => loadConfig(['--data', '  '], {})).toThrow('--data / DATA_DIR must not be empty');
    for (const flag of ['llm-model', 'reranker-model', 'auth-file', 'blob-dir', 'index', 'cache-dir']) {
      expect(() => loadConfig([`--${flag}`, ' '], {})).toThrow(new RegExp(`^--${flag} / [A-Z_]+ must not be only white space \\(leave it empty to unset it\\)$`));
    }
    expect(() => loadConfig([], { LLM_MODEL: '\t ' })).toThrow('--llm-model / LLM_MODEL must not be only white space');
    expect(() => loadConfig(['--index', '  ', '--input', 'a.jsonl'], {}, 'ingest')).toThrow('--index / INDEX_DIR must not be only white space');
    expect(() => loadConfig(['--queries', ' ', '--qrels', 'r', '--corpus', 'c'], {}, 'eval')).toThrow('--queries / EVAL_QUERIES must not be only white space');
    // Spaces inside a path are a path; an empty value still unsets.
    expect(loadConfig(['--llm-model', 'models/my model.gguf', '--data', 'my data', '--auth-file='], {})).toMatchObject({ llmModel: 'models/my model.gguf', data: 'my data', authFile: null });
  });

  it('takes -p for --port, checked and listed as --port is', () => {
    expect(loadConfig(['-p', '9000'], { PORT: '7000' }).port).toBe(9000);
    expect(loadConfig(['--host', '0.0.0.0', '-p', '0'], {})).toMatchObject({ host: '0.0.0.0', port: 0 });
    expect(() => loadConfig(['-p', '70000'], {})).toThrow('--port / PORT must be an integer between 0 and 65535, got "70000"');
    expect(() => loadConfig(['-p'], {})).toThrow('option --port needs a value');
    expect(loadConfig(['-p=9001'], {}).port).toBe(9001);
    expect(() => loadConfig(['-p='], {})).toThrow('--port / PORT must be an integer between 0 and 65535, got ""');
    expect(() => loadConfig(['--host', '-p=9000'], {})).toThrow('option --host needs a value');
    expect(() => loadConfig(['-x=1'], {})).toThrow('unknown option -x=1 for serve; see --help');
    expect(() => loadConfig(['--host', '-p', '9000'], {})).toThrow('option --host needs a value');
    expect(() => loadConfig(['--index', 'i', '-p', '1'], {}, 'ingest')).toThrow('unknown option --port for ingest (an option of serve)');
    expect(helpText()).toContain('\n  -p, --port / PORT  (default: 8080; 0 to 65535)\n');
  });

  it('takes a public URL with a path, and refuses one that would put a query, a fragment, credentials or another scheme into every id', () => {
    for (const raw of ['https://literature.example.org', 'https://literature.example.org/', 'http://proxy.example:8443/lit']) {
      expect(loadConfig(['--public-url', raw], {}).publicUrl).toBe(raw);
    }
    for (const raw of ['ftp://files.example', 'literature.example.org', 'https://x.example/?a=1', 'https://x.example/#top', 'https://x.example?', 'https://user:secret@x.example', ' https://x.example', 'not a url']) {
      expect(() => loadConfig([], { PUBLIC_URL: raw })).toThrow(/--public-url \/ PUBLIC_URL must be an http:\/\/ or https:\/\/ URL/);
    }
    expect(loadConfig([], { PUBLIC_URL: '' }).publicUrl).toBeNull();
  });

  it('checks the literature project at parse time, naming the setting', () => {
    for (const raw of ['', 'articles', 'a/b/c', 'lit/art icles']) {
      expect(() => loadConfig(['--literature-project', raw], {})).toThrow(/--literature-project \/ LITERATURE_PROJECT must be org\/project/);
    }
    expect(loadConfig([], { LITERATURE_PROJECT: 'lit/papers' }).literatureProject).toBe('lit/papers');
  });

  it('takes byte sizes with the units --help shows their defaults in', () => {
    expect(helpText()).toContain('--max-upload-bytes / MAX_UPLOAD_BYTES  (default: 10GiB; at least 1 byte)');
    expect(loadConfig(['--max-upload-bytes', '10GiB', '--max-archive-store-bytes', '512 MiB'], {})).toMatchObject({ maxUploadBytes: 10 * 1024 ** 3, maxArchiveStoreBytes: 512 * 1024 ** 2 });
    expect(loadConfig([], { MAX_UPLOAD_BYTES: '1.5KiB' }).maxUploadBytes).toBe(1536);
    expect(loadConfig([], { MAX_UPLOAD_BYTES: '1000' }).maxUploadBytes).toBe(1000);
    for (const raw of ['', '1GB', '1.5', '-1', '1e9', '0']) expect(() => loadConfig([], { MAX_UPLOAD_BYTES: raw })).toThrow(/--max-upload-bytes \/ MAX_UPLOAD_BYTES must be a size of at least 1 byte/);
    expect(() => loadConfig(['--max-archive-store-bytes', '1023KiB'], {})).toThrow(/must be a size of at least 1MiB/);
    // A size no number holds exactly names the maximum, not the minimum.
    expect(() => loadConfig(['--max-upload-bytes', '100000TiB'], {})).toThrow('--max-upload-bytes / MAX_UPLOAD_BYTES must be a size of at most 8191TiB, got "100000TiB"');
    expect(loadConfig(['--max-upload-bytes', '8191TiB'], {}).maxUploadBytes).toBe(8191 * 1024 ** 4);
  });

  it('suggests the option meant, and names the command an option belongs to', () => {
    expect(() => loadConfig(['--prot', '1'], {})).toThrow('unknown option --prot for serve (did you mean --port?); see --help');
    expect(() => loadConfig(['--Port', '1'], {})).toThrow('unknown option --Port for serve (did you mean --port?)');
    expect(() => loadConfig(['--llm_model', 'm.gguf'], {})).toThrow('unknown option --llm_model for serve (did you mean --llm-model?)');
    expect(() => loadConfig(['--public-ur', 'https://x.example'], {})).toThrow('(did you mean --public-url?)');
    expect(() => loadConfig(['--frobnicate'], {})).toThrow(/^unknown option --frobnicate for serve; see --help$/);
    // Names of every object's prototype are no settings either (they had been taken, and ignored).
    for (const name of ['constructor', 'to-string', 'has-own-property', '__proto__']) {
      expect(() => loadConfig([`--${name}`, '1'], {})).toThrow(new RegExp(`^unknown option --${name} for serve[ ;]`));
    }
    expect(() => loadConfig(['--input', 'a.jsonl'], {})).toThrow('unknown option --input for serve (an option of ingest); see --help');
    expect(() => loadConfig(['--index', 'i', '--port', '1'], {}, 'ingest')).toThrow('unknown option --port for ingest (an option of serve); see --help');
  });

  it('shows unset defaults as such in --help, and the defaults the README gives', () => {
    const help = helpText();
    expect(help).not.toContain('null');
    expect(help).toContain('--index / INDEX_DIR  (default: <data>/index)');
    expect(help).toContain('--public-url / PUBLIC_URL  (default: http://<host>:<port>)');
    expect(help).toContain('--blob-dir / BLOB_DIR  (default: <data>/platform/files)');
    expect(help).toContain('--llm-model / LLM_MODEL  (default: unset)');
  });

  it('states the bounds of each bounded setting in --help, from the parser that enforces them', () => {
    const help = helpText();
    expect(help).toContain('--port / PORT  (default: 8080; 0 to 65535)');
    expect(help).toContain('--bm25-b / BM25_B  (default: 0.75; 0 to 1)');
    expect(help).toContain('--index-poll-interval / INDEX_POLL_INTERVAL  (default: 2s; 100ms to 24d)');
    expect(help).toContain('--max-archive-store-bytes / MAX_ARCHIVE_STORE_BYTES  (default: 1GiB; at least 1MiB)');
    expect(helpText('ingest')).toContain('--merge-factor / MERGE_FACTOR  (default: 10; 0, or 2 to 1000)');
  });

  it('names the form browsers send when a CORS origin differs from it only in case or default port', () => {
    expect(() => loadConfig(['--cors-origins', 'HTTPS://App.Example'], {})).toThrow(/got "HTTPS:\/\/App.Example"; browsers send it as https:\/\/app.example$/);
    expect(() => loadConfig(['--cors-origins', 'https://app.example:443'], {})).toThrow(/; browsers send it as https:\/\/app.example$/);
    expect(() => loadConfig(['--cors-origins', 'https://app.example/path'], {})).toThrow(/no path\), got "https:\/\/app.example\/path"$/);
  });

  it('takes the proxies to trust as addresses, CIDR ranges or range names, each as fastify accepts it; none by default', () => {
    expect(loadConfig([], {}).trustProxy).toEqual([]);
    expect(loadConfig([], { TRUST_PROXY: '' }).trustProxy).toEqual([]);
    expect(loadConfig(['--trust-proxy', 'false'], {}).trustProxy).toEqual([]);
    const list = loadConfig(['--trust-proxy', '10.0.0.7, 10.0.0.0/8,::1,fd00::/8,::ffff:10.1.2.3,loopback,uniquelocal,'], {}).trustProxy;
    expect(list).toEqual(['10.0.0.7', '10.0.0.0/8', '::1', 'fd00::/8', '::ffff:10.1.2.3', 'loopback', 'uniquelocal']);
    expect(() => Fastify({ trustProxy: list })).not.toThrow();
    expect(helpText()).toContain('--trust-proxy / TRUST_PROXY  (default: none)');
  });

  it('refuses a proxy list that would trust every sender, a hop count, or what is no address or range, naming the setting', () => {
    for (const raw of ['true', '*', '10.0.0.1, 0.0.0.0/0', '::/0']) {
      expect(() => loadConfig(['--trust-proxy', raw], {})).toThrow(/^--trust-proxy \/ TRUST_PROXY must name the proxies to trust: "[^"]+" trusts every sender/);
    }
    expect(() => loadConfig([], { TRUST_PROXY: '1' })).toThrow('--trust-proxy / TRUST_PROXY takes the proxies\' addresses, not a hop count ("1")');
    for (const raw of ['proxy.example', '10.0.0.0/33', '::1/129', '10.0.0.0/255.0.0.0', '10.0.0', '127.1', '10.0.0.0/8/1', '10.0.0.0/']) {
      expect(() => loadConfig(['--trust-proxy', raw], {})).toThrow(`--trust-proxy / TRUST_PROXY must list proxy addresses or CIDR ranges, comma-separated (e.g. 10.0.0.7, 10.0.0.0/8, ::1, or loopback, linklocal, uniquelocal), got "${raw}"`);
    }
  });

  it('takes the in-flight share of one client, by default half of --max-in-flight', () => {
    expect(loadConfig([], {}).maxInFlightPerClient).toBeNull();
    expect(loadConfig([], { MAX_IN_FLIGHT_PER_CLIENT: '0' }).maxInFlightPerClient).toBe(0);
    expect(loadConfig(['--max-in-flight-per-client', '32'], {}).maxInFlightPerClient).toBe(32);
    for (const raw of ['-1', 'half', '', '1.5']) {
      expect(() => loadConfig(['--max-in-flight-per-client', raw], {})).toThrow(`--max-in-flight-per-client / MAX_IN_FLIGHT_PER_CLIENT must be an integer between 0 and 1000000, got "${raw}"`);
    }
    expect(helpText()).toContain('--max-in-flight-per-client / MAX_IN_FLIGHT_PER_CLIENT  (default: half of --max-in-flight; 0 to 1000000)');
  });

  it('lists every setting in /settings', () => {
    const settings = publicSettings(loadConfig([], {}));
    expect(Object.keys(settings)).toEqual(expect.arrayContaining(['port', 'bm25K1', 'llmModel', 'authFile', 'archiveTtl']));
  });
});
