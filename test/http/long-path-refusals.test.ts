/**
 * A refusal quoting the request's path quotes at most 256 of its characters and says how long it was: a 4 KB
 * unknown path had been echoed whole in its 404, and a bad percent-escape's 400 quoted the whole URL (the docs
 * round's finding), on the literature routes and under /v1 alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureApp, type Fixture } from './app-fixture.js';

let fixture: Fixture;
beforeAll(async () => {
  fixture = await fixtureApp(undefined, {}, { auth: null });
});
afterAll(() => fixture.close());

const long = `/${'x'.repeat(4096)}`;

describe('a refusal of a long path', () => {
  it.each([
    ['an unknown literature path', long, 'detail'],
    ['an unknown /v1 path', `/v1${long}`, 'reason'],
    ['an undecodable literature path', `${long}%zz`, 'detail'],
    ['an undecodable /v1 path', `/v1${long}%zz`, 'reason'],
  ])('quotes the start of %s and its length', async (_kind, url, field) => {
    const response = await fixture.app.inject({ url });
    expect(response.statusCode).toBeGreaterThanOrEqual(400);
    const message = String((field === 'detail' ? response.json().detail.detail : response.json().reason) ?? '');
    expect(message).toContain(`${url.slice(0, 256)}… (${url.length} characters)`);
    expect(message.length).toBeLessThan(400);
  });
});

it('a /v1 path segment over the router bound names the bound', async () => {
  const response = await fixture.app.inject({ method: 'GET', url: `/v1/resources/org/proj/_/${'x'.repeat(5000)}` });
  expect(response.statusCode).toBe(400);
  expect(response.json().reason).toMatch(/^A segment of the path '\/v1\/resources\/org\/proj\/_\/x+… \(\d+ characters\)' is longer than the 4096 characters a route takes\.$/);
});
