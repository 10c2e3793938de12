/**
 * --trust-proxy: behind the proxies it names, request.ip is the client X-Forwarded-For names, so the
 * rate limit and the in-flight share count each client; anyone else's X-Forwarded-For is ignored.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fixtureApp, type Fixture } from './app-fixture.js';
import { capturingLogger } from './captured-log.js';
import { heldGenerator } from './held-generator.js';

let fixture: Fixture | null = null;
afterEach(async () => {
  await fixture?.close();
  fixture = null;
});

/** GET /retrieval/article_count as sent by `sender`, carrying `forwardedFor` when given; its status. */
async function countFrom(sender: string, forwardedFor?: string): Promise<number> {
  const headers = forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor };
  return (await fixture!.app.inject({ method: 'GET', url: '/retrieval/article_count', remoteAddress: sender, headers })).statusCode;
}

describe('--trust-proxy', () => {
  it('gives each client behind a trusted proxy its own rate limit; the X-Forwarded-For of anyone else is ignored', async () => {
    fixture = await fixtureApp(undefined, {}, { auth: null, flags: ['--rate-limit', '1', '--trust-proxy', '10.0.0.1'] });
    expect(await countFrom('10.0.0.1', '203.0.113.1')).toBe(200);
    expect(await countFrom('10.0.0.1', '203.0.113.2')).toBe(200);
    expect(await countFrom('10.0.0.1', '203.0.113.1')).toBe(429);
    // A client that writes its own X-Forwarded-For through the proxy is still the address the proxy added.
    expect(await countFrom('10.0.0.1', '198.51.100.7, 203.0.113.2')).toBe(429);
    // Sent directly: the sender's address is counted, whatever the header says.
    expect(await countFrom('192.0.2.9', '203.0.113.3')).toBe(200);
    expect(await countFrom('192.0.2.9', '203.0.113.4')).toBe(429);
  });

  it('is off by default: every request a proxy sends counts as the proxy, and the log says so once', async () => {
    const { lines, logger } = capturingLogger();
    fixture = await fixtureApp(undefined, {}, { auth: null, logger, flags: ['--rate-limit', '1'] });
    expect(await countFrom('10.0.0.1', '203.0.113.1')).toBe(200);
    expect(await countFrom('10.0.0.1', '203.0.113.2')).toBe(429);
    expect(lines.filter((line) => line.msg.includes('not in --trust-proxy'))).toEqual([expect.objectContaining({ level: 40, sender: '10.0.0.1' })]);
  });

  it('counts the in-flight share per client behind the proxies of a trusted range', async () => {
    const held = heldGenerator();
    fixture = await fixtureApp(undefined, { generator: () => held.generator }, {
      auth: null,
      flags: ['--max-in-flight', '4', '--max-in-flight-per-client', '1', '--trust-proxy', '10.0.0.0/8'],
    });
    const question = { query: 'place cells CA1', use_reranker: false };
    const slow = fixture.app.inject({ method: 'POST', url: '/qa/generative', payload: question, remoteAddress: '10.0.0.1', headers: { 'x-forwarded-for': '203.0.113.1' } });
    await held.started;

    expect(await countFrom('10.0.0.1', '203.0.113.2')).toBe(200);
    // The same client through another proxy of the range.
    expect(await countFrom('10.0.0.2', '203.0.113.1')).toBe(503);
    // An untrusted sender naming that client is only itself.
    expect(await countFrom('192.0.2.9', '203.0.113.1')).toBe(200);

    held.release();
    expect((await slow).statusCode).toBe(200);
    expect(await countFrom('10.0.0.2', '203.0.113.1')).toBe(200);
  });

  it('logs once that X-Forwarded-For came from a sender not trusted, naming the setting; not for a trusted proxy', async () => {
    const untrustedWarnings = (lines: { msg: string }[]) => lines.filter((line) => line.msg.includes('not in --trust-proxy'));
    const { lines, logger } = capturingLogger();
    fixture = await fixtureApp(undefined, {}, { auth: null, logger, flags: ['--trust-proxy', '10.0.0.1'] });
    expect(await countFrom('10.0.0.1', '203.0.113.1')).toBe(200);
    expect(await countFrom('192.0.2.9')).toBe(200);
    expect(untrustedWarnings(lines)).toEqual([]);
    expect(await countFrom('10.0.0.2', '203.0.113.1')).toBe(200);
    expect(await countFrom('10.0.0.3', '203.0.113.1')).toBe(200);
    expect(untrustedWarnings(lines)).toEqual([expect.objectContaining({ level: 40, sender: '10.0.0.2' })]);
  });
});
