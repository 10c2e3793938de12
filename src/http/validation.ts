/**
 * How requests are validated against their route schemas: Ajv, through
 * fastify's own compiler, with two corrections.
 *
 * - Query strings, path parameters and headers are text, so their values are
 *   coerced to the schema's types (a single value to an array for the
 *   repeatable filters); a number must be written in decimal (Ajv would read
 *   `0x10` or ` 5`), refused as a type error naming the schema's type, as Ajv's
 *   own are, so that an API words `page=0x10` and `page=1.5` alike. JSON
 *   bodies are typed already and are not coerced: `{"query": 5}` or
 *   `{"tag": true}` is refused, not read as "5" or "true".
 * - Ajv's coercion turns "Infinity" and "1e999" into Infinity after its own
 *   finiteness check, and its minimum and maximum skip non-finite numbers (a
 *   JSON body's 1e999 parses to Infinity too): a value a route receives holds
 *   no such number, or it is refused like any other value out of bounds. In a
 *   query string it is refused naming the schema's type, as a JSON body's is
 *   by Ajv (`retriever_k=1e400` is no whole number, as `retriever_k=1.5`).
 * - Ajv stops at its first error and checks `required` before unknown names: an
 *   unknown parameter of a query string, or key of a JSON body, is reported
 *   before a missing one (`?query[]=cells` or `{"querry": "cells"}` is a
 *   misspelt query, not a missing one).
 */
import { AjvCompiler, type RouteDefinition } from '@fastify/ajv-compiler';
import type { FastifyServerOptions } from 'fastify';

type ValidatorBuilder = NonNullable<NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildValidator']>;

const AJV_OPTIONS = {
  // Unknown parameters and fields are errors (a typo must not silently drop a filter).
  removeAdditional: false,
  useDefaults: true,
  allErrors: false,
} as const;

interface ValidationError {
  keyword: string;
  instancePath: string;
  schemaPath: string;
  params: Record<string, unknown>;
  message: string;
}

type Validate = ((data: unknown) => boolean) & { errors?: ValidationError[] | null };

/**
 * The fastify `schemaController.compilersFactory.buildValidator` of every route. fastify uses what it
 * returns as a FastifyValidationResult (a function and its `errors`); the option's type names Ajv's own.
 */
export const buildValidator = ((externalSchemas: Parameters<ValidatorBuilder>[0]) => {
  const coercing = AjvCompiler()(externalSchemas, { customOptions: { ...AJV_OPTIONS, coerceTypes: 'array' } });
  const typed = AjvCompiler()(externalSchemas, { customOptions: { ...AJV_OPTIONS, coerceTypes: false } });
  return (route: RouteDefinition) =>
    route.httpPart === 'body' ? typedChecked(typed(route) as Validate, route.schema) : coercedChecked(coercing(route) as Validate, route.schema, route.httpPart === 'querystring');
}) as unknown as ValidatorBuilder;

interface Problem {
  path: string;
  message: string;
  /** The type the schema declares for the value, as Ajv's own type errors name it (`params.type`), when it declares one. */
  type?: unknown;
}

/** A JSON body: validated as it is, then refused if it holds a non-finite number. Its unknown key is reported first (see unknownFirst). */
function typedChecked(validate: Validate, schema: unknown): Validate {
  const checked: Validate = (data) => {
    const passed = concluded(checked, validate, data, () => nonFinitePath(data));
    // Not coerced, so its keys are the client's (the defaults Ajv adds for those left out are all known ones).
    if (checked.errors && data !== null && typeof data === 'object') checked.errors = unknownFirst(checked.errors, data as Record<string, unknown>, schema);
    return passed;
  };
  return checked;
}

/** A number as a query string writes one: no hexadecimal, binary or octal, no spaces (Ajv coerces with `+text`, which reads all of them). */
const DECIMAL = /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/;

/**
 * Text values (query string, path, headers): coerced, then refused if a number came from text that does not write one
 * in decimal, or is not finite. A query string's unknown parameter is reported first (see unknownFirst).
 */
function coercedChecked(validate: Validate, schema: unknown, isQueryString: boolean): Validate {
  const checked: Validate = (data) => {
    // What the client sent, before coercion replaces it (a shallow copy: these values are strings or arrays of strings).
    const sent: Record<string, unknown> = data !== null && typeof data === 'object' ? { ...data } : {};
    const passed = concluded(checked, validate, data, () => nonDecimalPath(data, sent, schema) ?? typedNonFinitePath(data, schema));
    if (isQueryString && checked.errors) checked.errors = unknownFirst(checked.errors, sent, schema);
    return passed;
  };
  return checked;
}

/** The first non-finite number of text values, with the type the schema declares for it: their objects are flat (`/name` or `/name/3`). */
function typedNonFinitePath(data: unknown, schema: unknown): Problem | null {
  const found = nonFinitePath(data);
  if (found === null) return null;
  const key = (found.path.split('/')[1] ?? '').replace(/~1/g, '/').replace(/~0/g, '~');
  return { ...found, type: declaredType(schema, key) };
}

/**
 * The errors of a query string or JSON body, its first unknown name (parameter or top-level key) put before a missing
 * one, and one that names a known parameter with `[]` after it (how PHP and Rails write several values) suggesting
 * that one (`params.suggestion`): `?query[]=cells` was told "query is required", `retriever_k[]=2` "unknown parameter"
 * alone, `{"querry": "cells"}` "query is required". (Ajv checks a body's unknown keys before its nested objects.)
 */
function unknownFirst(errors: ValidationError[], sent: Record<string, unknown>, schema: unknown): ValidationError[] {
  const { properties = {}, additionalProperties } = (schema ?? {}) as { properties?: Record<string, unknown>; additionalProperties?: unknown };
  if (additionalProperties !== false) return errors;
  const unknown = Object.keys(sent).find((name) => !Object.hasOwn(properties, name));
  const first = errors[0];
  if (unknown === undefined || (first?.keyword !== 'required' && first?.keyword !== 'additionalProperties')) return errors;
  const bare = unknown.endsWith('[]') ? unknown.slice(0, -2) : null;
  const suggestion = bare !== null && Object.hasOwn(properties, bare) ? { suggestion: bare } : {};
  return [
    {
      keyword: 'additionalProperties',
      instancePath: '',
      schemaPath: '#/additionalProperties',
      params: { additionalProperty: unknown, ...suggestion },
      message: 'must NOT have additional properties',
    },
  ];
}

/** The type `schema` (an object's) declares for its property `key`, or for the items of an array there. */
function declaredType(schema: unknown, key: string): unknown {
  const property = (schema as { properties?: Record<string, { type?: unknown; items?: { type?: unknown } }> } | undefined)?.properties?.[key];
  return property?.type === 'array' ? property.items?.type : property?.type;
}

/** Runs `validate` on `data`, then `problem` once it passed, and leaves what either refused in `checked.errors`. */
function concluded(checked: Validate, validate: Validate, data: unknown, problem: () => Problem | null): boolean {
  if (!validate(data)) {
    checked.errors = validate.errors;
    return false;
  }
  const found = problem();
  const params = found?.type === undefined ? {} : { type: found.type };
  checked.errors = found === null ? null : [{ keyword: 'type', instancePath: found.path, schemaPath: '#', params, message: found.message }];
  return found === null;
}

function nonDecimalPath(data: unknown, texts: Record<string, unknown>, schema: unknown): Problem | null {
  if (data === null || typeof data !== 'object') return null;
  for (const [key, value] of Object.entries(data)) {
    const sent = texts[key];
    const pairs: [unknown, unknown][] = Array.isArray(value) ? value.map((item, i) => [item, Array.isArray(sent) ? sent[i] : sent]) : [[value, sent]];
    for (const [coerced, text] of pairs) {
      if (typeof coerced === 'number' && typeof text === 'string' && !DECIMAL.test(text)) {
        return { path: `/${key}`, message: 'must be a decimal number', type: declaredType(schema, key) };
      }
    }
  }
  return null;
}

/**
 * The first non-finite number in `value`, or null; iterative, as a body may nest deeper than the stack.
 * Nearly every body holds none: a walk that only looks (holdsNonFinite) answers for those, and only a body
 * refused is walked again, naming paths, to say where.
 */
function nonFinitePath(value: unknown): Problem | null {
  return holdsNonFinite(value) ? firstNonFinitePath(value) : null;
}

/**
 * Whether `value` holds a non-finite number. Keys read by index, no path written: the path-naming walk
 * took 46 ms of the main thread for a body of 85,000 keys, this one 16 ms (docs/DESIGN.md).
 */
function holdsNonFinite(value: unknown): boolean {
  const pending: unknown[] = [value];
  const look = (child: unknown) => {
    if (typeof child === 'object' || typeof child === 'number') pending.push(child);
  };
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === 'number') {
      if (!Number.isFinite(item)) return true;
    } else if (Array.isArray(item)) {
      for (let i = 0; i < item.length; i++) look(item[i]);
    } else if (item !== null && typeof item === 'object') {
      const keys = Object.keys(item);
      for (let i = 0; i < keys.length; i++) look((item as Record<string, unknown>)[keys[i]!]);
    }
  }
  return false;
}

function firstNonFinitePath(value: unknown): Problem | null {
  const pending: [unknown, string][] = [[value, '']];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, path] = next;
    if (typeof item === 'number' && !Number.isFinite(item)) return { path, message: 'must be a finite number' };
    if (item === null || typeof item !== 'object') continue;
    for (const [key, child] of Object.entries(item)) {
      if (typeof child === 'object' || typeof child === 'number') pending.push([child, `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`]);
    }
  }
  return null;
}
