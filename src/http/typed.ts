/**
 * Route types inferred from the routes' JSON schemas (json-schema-to-ts):
 * `request.params`, `request.query`, `request.body` and `request.headers`
 * have the types their schemas validate, so no route restates them by hand.
 * Schemas must be literal (`as const`) for the inference to see them.
 * Replies are not typed from the response schemas: several routes send bytes
 * or JSON text they assembled themselves (stored fragments, rendered
 * JSON-LD), which the response schema documents but does not serialise.
 */
import type { FastifyInstance, FastifyTypeProvider } from 'fastify';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';

interface SchemaTypes extends FastifyTypeProvider {
  validator: this['schema'] extends JSONSchema ? FromSchema<this['schema']> : unknown;
  serializer: unknown;
}

export function typed(app: FastifyInstance) {
  return app.withTypeProvider<SchemaTypes>();
}

/** The type a schema validates, for helpers that take a route's params, query or body. */
export type SchemaType<Schema extends JSONSchema> = FromSchema<Schema>;
