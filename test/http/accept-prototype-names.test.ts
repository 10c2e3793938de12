/**
 * `GET /`, always open, with an Accept naming a property of every object (`constructor`, `__proto__`): the ZIP
 * aliases had been looked up in an object, whose prototype answered, and the server answered 500 to anyone.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { fixtureApp, type Fixture } from './app-fixture.js';

let fixture: Fixture;
beforeAll(async () => {
  fixture = await fixtureApp(undefined, {}, { auth: null });
});
afterAll(() => fixture.close());

test.each(['constructor', '__proto__', 'hasOwnProperty, text/html'])('Accept: %s on / is answered as any other', async (accept) => {
  const response = await fixture.app.inject({ method: 'GET', url: '/', headers: { accept } });
  if (accept.includes('text/html')) expect([response.statusCode, response.headers.location]).toEqual([302, 'ui/']);
  else expect([response.statusCode, response.json()]).toEqual([200, { status: 'ok' }]);
});
