/**
 * A resource payload holding a lone surrogate anywhere (a value or a key) is refused: stored as UTF-8,
 * the fields kept apart (the listed `@type`) would read U+FFFD while the payload kept the original.
 */
import { describe, expect, test } from 'vitest';
import { TOKENS, bearer, serverWithProject } from './helpers.js';
import { loneSurrogatePointer } from '../../src/text/unicode.js';

const server = serverWithProject();
const alice = bearer(TOKENS.alice);

const listed = async () => (await server().app.inject({ method: 'GET', url: '/v1/resources/org/proj', headers: alice })).json()._total as number;

describe('lone surrogates in resource payloads', () => {
  test.each([
    ['a @type', { '@type': 'Neu\ud800ron' }, '/@type'],
    ['a nested value', { name: 'n', parts: [{ label: 'ok' }, { label: '\udfff' }] }, '/parts/1/label'],
    ['a key', { 'na\udc00me': 'n' }, '/na\\udc00me'],
  ])('in %s: 400 DecodingFailed naming where, nothing stored', async (_, payload, pointer) => {
    const before = await listed();
    const created = await server().app.inject({ method: 'POST', url: '/v1/resources/org/proj/_', headers: alice, payload });
    expect([created.statusCode, created.json()['@type']]).toEqual([400, 'DecodingFailed']);
    expect(created.json().reason).toContain(`lone surrogate at ${pointer}`);
    expect(await listed()).toBe(before);
  });

  test('an update holding one is refused and the resource keeps its revision', async () => {
    await server().app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/cell', headers: alice, payload: { '@type': 'Neuron' } });
    const updated = await server().app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/cell?rev=1', headers: alice, payload: { '@type': 'Neuron', note: '\ud83d' } });
    expect(updated.statusCode).toBe(400);
    expect((await server().app.inject({ method: 'GET', url: '/v1/resources/org/proj/_/cell', headers: alice })).json()._rev).toBe(1);
  });

  test('well-formed pairs (emoji) pass, and the pointer escapes / and ~ in keys', async () => {
    expect(loneSurrogatePointer({ 'a/b~c': ['😀', { d: '\ud800' }] })).toBe('/a~1b~0c/1/d');
    expect(loneSurrogatePointer({ name: 'Cell 😀' })).toBeNull();
    expect((await server().app.inject({ method: 'POST', url: '/v1/resources/org/proj/_', headers: alice, payload: { name: 'Cell 😀' } })).statusCode).toBe(201);
  });

  test('an organization or project description holding one is refused, and nothing changes', async () => {
    const org = await server().app.inject({ method: 'PUT', url: '/v1/orgs/other', headers: alice, payload: { description: 'lab \ud800' } });
    expect([org.statusCode, org.json()['@type']]).toEqual([400, 'DecodingFailed']);
    expect((await server().app.inject({ method: 'GET', url: '/v1/orgs/other', headers: alice })).statusCode).toBe(404);
    const project = await server().app.inject({ method: 'PUT', url: '/v1/projects/org/proj?rev=1', headers: alice, payload: { description: '\udc00' } });
    expect([project.statusCode, project.json().reason]).toEqual([400, expect.stringContaining('lone surrogate at /description')]);
    expect((await server().app.inject({ method: 'GET', url: '/v1/projects/org/proj', headers: alice })).json()._rev).toBe(1);
  });
});
