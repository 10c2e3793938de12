/**
 * Headers that stop a browser from running what users stored: file downloads
 * carry user-chosen media types (text/html, image/svg+xml), and renderings and
 * error messages echo user text. `nosniff` keeps browsers to the declared
 * type; the sandboxing CSP keeps a page served from here from running scripts,
 * loading anything or reaching this origin's cookies. The web page's own
 * documents (src/http/ui) set a policy that lets them run their own scripts;
 * a policy a route set itself is kept.
 */
import type { FastifyInstance } from 'fastify';

export const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; sandbox",
} as const;

export function addSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onSend', async (_request, reply) => {
    reply.header('x-content-type-options', SECURITY_HEADERS['x-content-type-options']);
    if (!reply.hasHeader('content-security-policy')) {
      reply.header('content-security-policy', SECURITY_HEADERS['content-security-policy']);
    }
  });
}
