/**
 * The walk that surveys a /v1 payload for its checks before anything processes it (depth, JSON-LD context
 * cost, prototype keys, key count, lone surrogates) is written for speed on bodies of 100,000 keys:
 * containers stacked apart from scalars, keys read by index. Each answer must still be exactly what its
 * plain recursive definition answers, on payloads shaped as JSON.parse gives them (own `__proto__` keys included).
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { firstRepeatedKey } from '../../src/http/json-body.js';
import { writtenKeyCount } from '../../src/text/repeated-keys.js';
import { contextCost } from '../../src/platform/context-bound.js';
import { jsonDepth } from '../../src/platform/json-depth.js';
import { surveyPayload } from '../../src/platform/payload-survey.js';
import { loneSurrogatePointer } from '../../src/text/unicode.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const isObject = (value: Json): value is Json[] | { [key: string]: Json } => typeof value === 'object' && value !== null;
const childrenOf = (value: Json): Json[] => (!isObject(value) ? [] : Array.isArray(value) ? value : Object.values(value));

function depthOf(value: Json): number {
  return isObject(value) ? 1 + Math.max(0, ...childrenOf(value).map(depthOf)) : 0;
}

/** contextCost as its documentation defines it, recursively. */
function contextCostOf(root: Json): { definitions: number; terms: number; processings: number } {
  let definitions = 0;
  let terms = 0;
  let values = 0;
  let scoped = false;
  const visit = (value: Json, inContext: boolean): void => {
    if (!inContext) values++;
    if (!isObject(value)) return;
    if (Array.isArray(value)) return value.forEach((item) => visit(item, inContext));
    for (const [key, child] of Object.entries(value)) {
      if (key === '@context') {
        const contexts = Array.isArray(child) ? child : [child];
        definitions += contexts.length;
        for (const context of contexts) if (isObject(context) && !Array.isArray(context)) terms += Object.keys(context).length;
        if (inContext) scoped = true;
      }
      visit(child, inContext || key === '@context');
    }
  };
  visit(root, false);
  return { definitions, terms, processings: definitions + (scoped ? values : 0) };
}

/** The first prototype key: an object's own keys in order, then its children from the last to the first. */
function prototypeKeyOf(value: Json): string | null {
  if (!isObject(value)) return null;
  if (!Array.isArray(value)) {
    for (const [key, child] of Object.entries(value)) {
      if (key === '__proto__' || (key === 'constructor' && isObject(child) && Object.hasOwn(child, 'prototype'))) return key;
    }
  }
  for (const child of childrenOf(value).reverse()) {
    const found = prototypeKeyOf(child);
    if (found !== null) return found;
  }
  return null;
}

const KEYS = ['@context', '@id', '@type', '__proto__', 'constructor', 'prototype', 'name', 'a', 'b', 'lone\udc00'];
const { json } = fc.letrec<{ json: Json }>((tie) => ({
  json: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.oneof(fc.constant(null), fc.boolean(), fc.integer(), fc.constantFrom('', 'x:1', 'http://example.org/', '\ud800', 'pair \ud83d\ude00')),
    // What makes a `constructor` key a prototype key.
    fc.constant({ prototype: {} }),
    fc.array(tie('json'), { maxLength: 4 }),
    fc.array(fc.tuple(fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 3 })), tie('json')), { maxLength: 5 }).map((entries) => {
      // Written out as JSON text, as a body comes: JSON.parse keeps `__proto__` as an own key.
      const text = `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`).join(',')}}`;
      return JSON.parse(text) as Json;
    }),
  ),
}));
const runs = { numRuns: 2000 };

describe('the payload checks answer as their recursive definitions', () => {
  test('jsonDepth: the depth, counted up to limit + 1', () => {
    fc.assert(
      fc.property(json, fc.integer({ min: 0, max: 6 }), (value, limit) => {
        expect(jsonDepth(value, limit)).toBe(Math.min(depthOf(value), limit + 1));
      }),
      runs,
    );
  });

  test('contextCost: definitions, terms and processings', () => {
    fc.assert(
      fc.property(json, (value) => {
        expect(contextCost(value)).toEqual(contextCostOf(value));
      }),
      runs,
    );
  });

  test('contextCost on the shapes it bounds: scoped contexts, context lists, nested lists', () => {
    const payload = JSON.parse(
      '{"@context":[{"a":{"@id":"x:a","@context":{"b":"x:b"}},"c":"x:c"},"http://example.org/ctx",[{"d":1}],null],"a":[{"b":1},2,"three"],"e":{"f":null}}',
    ) as Json;
    expect(contextCost(payload)).toEqual(contextCostOf(payload));
    expect(contextCost(payload)).toEqual({ definitions: 5, terms: 3, processings: 5 + 8 });
    expect(contextCost('x')).toEqual({ definitions: 0, terms: 0, processings: 0 });
  });

  test('prototypeKey: the same key first found', () => {
    const prototypeKeyIn = (value: unknown) => surveyPayload(value).prototypeKey;
    expect(prototypeKeyIn(JSON.parse('{"a":{"__proto__":1},"b":{"constructor":{"prototype":1}}}'))).toBe('constructor');
    expect(prototypeKeyIn(JSON.parse('[{"constructor":{"prototype":1}},{"__proto__":1}]'))).toBe('__proto__');
    expect(prototypeKeyIn(JSON.parse('{"constructor":{"prototype":1},"__proto__":1}'))).toBe('constructor');
    fc.assert(
      fc.property(json, (value) => {
        expect(prototypeKeyIn(value)).toBe(prototypeKeyOf(value));
      }),
      runs,
    );
  });

  test('holdsLoneSurrogate: whether loneSurrogatePointer finds one', () => {
    fc.assert(
      fc.property(json, (value) => {
        expect(surveyPayload(value).holdsLoneSurrogate).toBe(loneSurrogatePointer(value) !== null);
      }),
      runs,
    );
  });

  test('keys counts the keys the parse holds, and firstRepeatedKey given that count names the same key as without it', () => {
    fc.assert(
      fc.property(jsonText, ({ text, keys }) => {
        expect(writtenKeyCount(text)).toBe(keys);
        expect(firstRepeatedKey(text, surveyPayload(JSON.parse(text)).keys)).toBe(firstRepeatedKey(text));
      }),
      runs,
    );
  });
});

/** JSON text as a client may write it, with the number of keys written: keys repeated, escaped (`"\u0061"` is `"a"`), spaced. */
const space = fc.constantFrom('', ' ', '\n  ', '\t', '\r\n');
const { jsonText } = fc.letrec<{ jsonText: { text: string; keys: number } }>((tie) => ({
  jsonText: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('null', '1', '"a"', '"a:"', String.raw`"\\"`, String.raw`"\\\":"`, String.raw`"\u0061"`).map((text) => ({ text, keys: 0 })),
    fc.array(fc.tuple(space, tie('jsonText')), { maxLength: 4 }).map((items) => ({
      text: `[${items.map(([before, item]) => before + item.text).join(',')}]`,
      keys: items.reduce((sum, [, item]) => sum + item.keys, 0),
    })),
    fc.array(fc.tuple(fc.constantFrom('"a"', String.raw`"\u0061"`, '"b"', String.raw`"a\"b"`, String.raw`"\\"`, '":"', '""'), space, space, tie('jsonText')), { maxLength: 5 }).map((entries) => ({
      text: `{${entries.map(([key, before, after, value]) => `${before}${key}${after}:${before}${value.text}${after}`).join(',')}}`,
      keys: entries.reduce((sum, [, , , value]) => sum + 1 + value.keys, 0),
    })),
  ),
}));
