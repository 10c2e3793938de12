/** Archive creation as the archive tests do it, in org/proj as alice (startServer's DEFAULT_AUTH). */
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { TOKENS, bearer } from '../platform/helpers.js';

/** Creates archive `id` of `resources` in org/proj and gives its path (that of its `_self`). */
export async function createArchive(app: FastifyInstance, id: string, resources: object[]): Promise<string> {
  const created = await app.inject({ method: 'PUT', url: `/v1/archives/org/proj/${id}`, headers: { ...bearer(TOKENS.alice), accept: 'application/json' }, payload: { resources } });
  expect(created.statusCode).toBe(201);
  return new URL(created.json()._self).pathname;
}
