/**
 * A /v1 payload number a 64-bit float cannot keep is refused (400 DecodingFailed, nothing stored):
 * before, `/source` read such numbers back as other values (a 20-digit id rounded, 1e400 as null).
 */
import { describe, expect, test } from 'vitest';
import { TOKENS, bearer, serverWithProject } from './helpers.js';
import { firstInexactNumber } from '../../src/http/platform/inexact-numbers.js';

const server = serverWithProject();
const alice = bearer(TOKENS.alice);
const json = { ...alice, 'content-type': 'application/json' };

const listed = async () => (await server().app.inject({ method: 'GET', url: '/v1/resources/org/proj', headers: alice })).json()._total as number;

describe('numbers a float cannot keep', () => {
  test.each([
    ['an integer past 2^53', '{"count": 12345678901234567891}', '12345678901234567891', '12345678901234567000'],
    ['2^53 + 1', '{"n": 9007199254740993}', '9007199254740993', '9007199254740992'],
    ['a decimal of 34 digits', '{"x": [1, {"y": 0.1000000000000000055511151231257827}]}', '0.1000000000000000055511151231257827', '0.1'],
    ['one out of range', '{"big": -1e400}', '-1e400', 'null'],
    ['one that underflows', '{"tiny": 1e-400}', '1e-400', '0'],
  ])('%s: 400 DecodingFailed naming it and what it would read back as, nothing stored', async (_, payload, literal, readBack) => {
    const before = await listed();
    const created = await server().app.inject({ method: 'POST', url: '/v1/resources/org/proj/_', headers: json, payload });
    expect([created.statusCode, created.json()['@type']]).toEqual([400, 'DecodingFailed']);
    expect(created.json().reason).toContain(`The number ${literal} cannot be kept as written`);
    expect(created.json().reason).toContain(`read back as ${readBack}. Send it as a string`);
    expect(await listed()).toBe(before);
  });

  test('numbers whose value survives are accepted, written any way, and read back by value', async () => {
    const payload = '{"@id": "https://example.org/n", "a": 1.0, "b": 1E2, "c": 0.50, "d": -0, "e": 9007199254740991, "f": 0.1, "g": 1.7976931348623157e308, "h": "12345678901234567891", "i": 123456789012345, "j": 0e400}';
    const created = await server().app.inject({ method: 'POST', url: '/v1/resources/org/proj/_', headers: json, payload });
    expect(created.statusCode).toBe(201);
    const source = await server().app.inject({ method: 'GET', url: `/v1/resources/org/proj/_/${encodeURIComponent('https://example.org/n')}/source`, headers: alice });
    expect(source.json()).toMatchObject({ a: 1, b: 100, c: 0.5, d: 0, e: 9007199254740991, f: 0.1, g: 1.7976931348623157e308, h: '12345678901234567891', i: 123456789012345, j: 0 });
  });

  test('digits inside strings and keys are not numbers', () => {
    expect(firstInexactNumber('{"12345678901234567891": "1e400", "s\\"99999999999999999999": [1]}')).toBeNull();
    expect(firstInexactNumber('["\\\\", 99999999999999999999]')).toBe('99999999999999999999');
  });

  test('the message shortens a literal of thousands of digits', async () => {
    const created = await server().app.inject({ method: 'POST', url: '/v1/resources/org/proj/_', headers: json, payload: `{"n": ${'7'.repeat(5000)}}` });
    expect(created.statusCode).toBe(400);
    expect(created.json().reason).toContain(`The number ${'7'.repeat(40)}… (5000 characters) cannot be kept`);
  });
});
