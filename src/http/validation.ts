/**
 * How requests are validated against their route schemas: Ajv, through
 * fastify's own compiler, with two corrections.
 *
 * - Query strings, path parameters and headers are text, so their values are
 *   coerced to the schema's types (a single value to an array for the
 *   repeatable filters). JSON bodies are typed already and are not coerced:
 *   `{"query": 5}` or `{"tag": true}` is refused, not read as "5" or "true".
 * - Ajv's coercion turns "Infinity" and "1e999" into Infinity after its own
 *   finiteness check, and its minimum and maximum skip non-finite numbers (a
 *   JSON body's 1e999 parses to Infinity too): a value a route receives holds
 *   no such number, or it is refused like any other value out of bounds.
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
  return (route: RouteDefinition) => finiteOnly((route.httpPart === 'body' ? typed : coercing)(route) as Validate);
}) as unknown as ValidatorBuilder;

function finiteOnly(validate: Validate): Validate {
  const checked: Validate = (data) => {
    if (!validate(data)) {
      checked.errors = validate.errors;
      return false;
    }
    const path = nonFinitePath(data);
    checked.errors = path === null ? null : [{ keyword: 'type', instancePath: path, schemaPath: '#', params: {}, message: 'must be a finite number' }];
    return path === null;
  };
  return checked;
}

/** The JSON pointer of the first non-finite number in `value`, or null; iterative, as a body may nest deeper than the stack. */
function nonFinitePath(value: unknown): string | null {
  const pending: [unknown, string][] = [[value, '']];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, path] = next;
    if (typeof item === 'number' && !Number.isFinite(item)) return path;
    if (item === null || typeof item !== 'object') continue;
    for (const [key, child] of Object.entries(item)) {
      if (typeof child === 'object' || typeof child === 'number') pending.push([child, `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`]);
    }
  }
  return null;
}
