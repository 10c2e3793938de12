/**
 * clientKey: the key the per-client bounds count a caller under. IPv4 as it is, an IPv4-mapped IPv6
 * address as its IPv4, any other IPv6 address as its /64 whatever its spelling, anything else unchanged.
 * The in-flight share, the rate limit and the connection cap all count by it: an IPv6 client rotating
 * addresses inside its /64 takes no fresh allowance.
 */
import { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { clientKey } from '../../src/http/client-address.js';
import { limitConnections } from '../../src/http/connection-limits.js';
import { fixtureApp, type Fixture } from './app-fixture.js';
import { capturingLogger } from './captured-log.js';
import { heldGenerator } from './held-generator.js';

let fixture: Fixture | null = null;
afterEach(async () => {
  await fixture?.close();
  fixture = null;
});

describe('clientKey', () => {
  it('keeps an IPv4 address as it is', () => {
    expect(clientKey('192.0.2.1')).toBe('192.0.2.1');
    expect(clientKey('127.0.0.1')).toBe('127.0.0.1');
  });

  it('counts an IPv4-mapped IPv6 address, in any spelling, as its IPv4 address', () => {
    for (const mapped of ['::ffff:192.0.2.1', '::FFFF:192.0.2.1', '0:0:0:0:0:ffff:192.0.2.1', '::ffff:c000:201', '0000:0000:0000:0000:0000:FFFF:C000:0201']) {
      expect(clientKey(mapped)).toBe('192.0.2.1');
    }
    expect(clientKey('::ffff:0.0.0.0')).toBe('0.0.0.0');
    expect(clientKey('::ffff:255.255.255.255')).toBe('255.255.255.255');
  });

  it('gives every spelling of one IPv6 address, and every address of its /64, one key', () => {
    const spellings = [
      '2001:db8:1:2::1',
      '2001:DB8:1:2::1',
      '2001:0db8:0001:0002:0000:0000:0000:0001',
      '2001:db8:1:2:0:0:0:1',
      '2001:db8:1:2::0.0.0.1',
      '2001:db8:1:2:ffff:ffff:ffff:ffff',
      '2001:db8:1:2:abcd::',
      '2001:db8:1:2::',
    ];
    expect(new Set(spellings.map(clientKey))).toEqual(new Set(['2001:db8:1:2::/64']));
  });

  it('tells different /64s apart', () => {
    expect(clientKey('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(clientKey('2001:db8:0:1::1')).toBe('2001:db8:0:1::/64');
    expect(clientKey('2001:db8:1::1')).toBe('2001:db8:1::/64');
    expect(clientKey('2001:db8:1:2::1')).not.toBe(clientKey('2001:db8:1:3::1'));
    // A mapped address is not the /64 ::ffff:0:0 falls in.
    expect(clientKey('::ffff:192.0.2.1')).not.toBe(clientKey('::ffff:192.0.2.2'));
  });

  it('writes the prefix as RFC 5952 text: lower case, no leading zeros, the longest run of zeros shortened', () => {
    expect(clientKey('::1')).toBe('::/64');
    expect(clientKey('0:0:0:0:0:0:0:1')).toBe('::/64');
    expect(clientKey('2001:0:0:1:2:3:4:5')).toBe('2001:0:0:1::/64');
    expect(clientKey('ABCD:EF01:2345:6789:1::')).toBe('abcd:ef01:2345:6789::/64');
    expect(clientKey('0:0:1:0::1')).toBe('0:0:1::/64');
    expect(clientKey('fd00:0:0:a::')).toBe('fd00:0:0:a::/64');
  });

  it('ignores a zone id: it names the server\'s interface, not the client', () => {
    expect(clientKey('fe80::1%eth0')).toBe('fe80::/64');
    expect(clientKey('FE80::abcd%2')).toBe('fe80::/64');
    expect(clientKey('fe80::1')).toBe('fe80::/64');
  });

  it('keeps anything that is no address as it is', () => {
    for (const invalid of ['', 'localhost', '2001:db8::1::2', '2001:db8:1:2:3:4:5:6:7', '192.0.2', '192.0.2.256', '1.2.3.4%eth0', 'gggg::1', '[2001:db8::1]', '2001:db8::1/64', 'unknown']) {
      expect(clientKey(invalid)).toBe(invalid);
    }
    // The address of a socket closed before it was read.
    expect(clientKey(undefined)).toBe('');
  });
});

/** GET /retrieval/article_count as sent from `remoteAddress`, with `headers`; its status. */
async function countFrom(remoteAddress: string, headers: Record<string, string> = {}): Promise<number> {
  return (await fixture!.app.inject({ method: 'GET', url: '/retrieval/article_count', remoteAddress, headers })).statusCode;
}

describe('the in-flight share', () => {
  const QUESTION = { query: 'place cells CA1', use_reranker: false };
  const heldFrom = async (remoteAddress: string) => {
    const held = heldGenerator();
    fixture = await fixtureApp(undefined, { generator: () => held.generator }, { auth: null, flags: ['--max-in-flight', '8', '--max-in-flight-per-client', '1'] });
    const slow = fixture.app.inject({ method: 'POST', url: '/qa/generative', payload: QUESTION, remoteAddress });
    await held.started;
    return async () => {
      held.release();
      expect((await slow).statusCode).toBe(200);
    };
  };

  it('is one for the addresses of one /64; another /64 has its own', async () => {
    const finish = await heldFrom('2001:db8:1:2::1');
    expect(await countFrom('2001:db8:1:2::beef')).toBe(503);
    expect(await countFrom('2001:DB8:1:2:0:0:0:1')).toBe(503);
    expect(await countFrom('2001:db8:1:3::1')).toBe(200);
    await finish();
    expect(await countFrom('2001:db8:1:2::beef')).toBe(200);
  });

  it('is one for an IPv4 address and its IPv4-mapped form', async () => {
    const finish = await heldFrom('::ffff:192.0.2.1');
    expect(await countFrom('192.0.2.1')).toBe(503);
    expect(await countFrom('192.0.2.2')).toBe(200);
    await finish();
  });
});

describe('the rate limit', () => {
  it('is one for the addresses of one /64, made-up tokens included; another /64 has its own', async () => {
    fixture = await fixtureApp(undefined, {}, { auth: null, flags: ['--rate-limit', '2'] });
    expect(await countFrom('2001:db8:1:2::1')).toBe(200);
    expect(await countFrom('2001:db8:1:2::2')).toBe(200);
    expect(await countFrom('2001:db8:1:2:a:b:c:d')).toBe(429);
    // An unknown token counts against the address it comes from: here its /64.
    expect(await countFrom('2001:db8:1:2::3', { authorization: 'Bearer made-up' })).toBe(429);
    expect(await countFrom('2001:db8:1:3::1')).toBe(200);
  });

  it('counts the client a trusted proxy names by its /64 too, however the header spells it', async () => {
    fixture = await fixtureApp(undefined, {}, { auth: null, flags: ['--rate-limit', '1', '--trust-proxy', '10.0.0.1'] });
    expect(await countFrom('10.0.0.1', { 'x-forwarded-for': '2001:DB8:5:6::1' })).toBe(200);
    expect(await countFrom('10.0.0.1', { 'x-forwarded-for': '2001:db8:5:6:0:0:0:9' })).toBe(429);
    expect(await countFrom('10.0.0.1', { 'x-forwarded-for': '2001:db8:5:7::1' })).toBe(200);
  });
});

describe('the connection cap', () => {
  /** Stands in for a connection: only what limitConnections reads of it. */
  class FakeSocket extends EventEmitter {
    destroyed = false;
    constructor(readonly remoteAddress: string) {
      super();
    }
    destroy(): this {
      if (!this.destroyed) {
        this.destroyed = true;
        this.emit('close');
      }
      return this;
    }
  }

  it('is per /64 and per IPv4 address however it arrives, and its refusal log names that key', () => {
    const { lines, logger } = capturingLogger();
    const server = new EventEmitter() as unknown as Server;
    limitConnections(server, { total: null, perClient: 2 }, logger);
    const connect = (address: string) => {
      const socket = new FakeSocket(address);
      server.emit('connection', socket);
      return socket;
    };

    const first = connect('2001:db8:1:2::1');
    expect(connect('2001:db8:1:2::2').destroyed).toBe(false);
    expect(connect('2001:db8:1:2:ffff::3').destroyed).toBe(true);
    expect(lines.filter((line) => line.msg.startsWith('connections refused'))).toEqual([
      expect.objectContaining({ level: 40, address: '2001:db8:1:2::/64', msg: expect.stringContaining('2001:db8:1:2::/64 already holds 2') }),
    ]);
    expect(connect('2001:db8:1:3::1').destroyed).toBe(false);
    // A place given back is taken again, from any address of the /64.
    first.destroy();
    expect(connect('2001:db8:1:2::4').destroyed).toBe(false);

    expect(connect('192.0.2.1').destroyed).toBe(false);
    expect(connect('::ffff:192.0.2.1').destroyed).toBe(false);
    expect(connect('::ffff:c000:201').destroyed).toBe(true);
  });
});
