/**
 * The literature routes that take a JSON body refuse every other media type with 415 code 8, plain
 * text included: fastify's text parser read it as a string, which the body schema then refused as
 * 422 "body must be object", as if the JSON inside had been wrong.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureApp, type Fixture } from './app-fixture.js';

let fixture: Fixture;
beforeAll(async () => {
  fixture = await fixtureApp();
});
afterAll(() => fixture.close());

const JSON_BODY_ROUTES = ['/qa/generative', '/qa/streamed_generative'];
const QUESTION = '{"query":"Which cells fire in CA1?"}';

describe('media types of literature bodies', () => {
  it.each(JSON_BODY_ROUTES)('%s answers a JSON question', async (url) => {
    const answer = await fixture.app.inject({ method: 'POST', url, payload: QUESTION, headers: { 'content-type': 'application/json' } });
    expect(answer.statusCode).toBe(200);
  });

  it.each(JSON_BODY_ROUTES)('%s refuses a body that is not JSON with 415 code 8, whatever its type', async (url) => {
    for (const contentType of ['text/plain', 'text/plain; charset=utf-8', 'application/xml', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const answer = await fixture.app.inject({ method: 'POST', url, payload: QUESTION, headers: { 'content-type': contentType } });
      expect([contentType, answer.statusCode, answer.json().detail]).toEqual([
        contentType,
        415,
        { code: 8, detail: `the body must be application/json, got Content-Type ${contentType}` },
      ]);
    }
  });

  it.each(JSON_BODY_ROUTES)('%s refuses a body without a Content-Type with 415 code 8', async (url) => {
    const answer = await fixture.app.inject({ method: 'POST', url, payload: QUESTION, headers: { 'content-length': String(QUESTION.length) } });
    expect([answer.statusCode, answer.json().detail]).toEqual([415, { code: 8, detail: 'the body must be application/json, got Content-Type none' }]);
  });
});
