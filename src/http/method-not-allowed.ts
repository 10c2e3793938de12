/**
 * The methods a path takes, for answering 405 (with `Allow`) instead of 404 when a path exists
 * but not for the method asked (RFC 9110 §15.5.6). Fastify's router answers "no route" either way,
 * so the routes are recorded as they are added and a refused path is matched against them here.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** The error bodies of one API for a request no route took. */
export interface UnroutedBodies {
  notFound(path: string): unknown;
  /** `allowed`: the methods the path takes, comma-separated as in `Allow`. */
  notAllowed(path: string, allowed: string): unknown;
}

/**
 * A route's path split at '/': a literal segment, a parameter (one segment, empty too: the router takes
 * `/v1/orgs/` for `/v1/orgs/:org` and leaves the empty value to the schema), or a trailing wildcard.
 */
type PatternSegment = { literal: string } | 'parameter' | 'rest';

interface RoutePattern {
  segments: PatternSegment[];
  methods: Set<string>;
}

export class RouteMethods {
  private readonly patterns = new Map<string, RoutePattern>();

  /** Records every route added to `app` and its children from now on: call before registering them. */
  static recordedFrom(app: FastifyInstance): RouteMethods {
    const routes = new RouteMethods();
    app.addHook('onRoute', (route) => {
      for (const method of [route.method].flat()) routes.add(route.url ?? route.path, method);
    });
    return routes;
  }

  private add(url: string, method: string): void {
    const pattern = this.patterns.get(url) ?? { segments: patternOf(url), methods: new Set<string>() };
    pattern.methods.add(method.toUpperCase());
    // Fastify answers HEAD for every GET route.
    if (method.toUpperCase() === 'GET') pattern.methods.add('HEAD');
    this.patterns.set(url, pattern);
  }

  /** Answers a request no route took: 405 with `Allow` when its path takes other methods, else 404. */
  answerUnrouted(request: FastifyRequest, reply: FastifyReply, bodies: UnroutedBodies): FastifyReply {
    const path = request.url.split('?')[0]!;
    const methods = this.allowedAt(path);
    // A method the path takes: a route took the request and found nothing there (a page file not in the folder, say).
    if (methods.length === 0 || methods.includes(request.method)) return reply.code(404).send(bodies.notFound(path));
    const allowed = methods.join(', ');
    return reply.code(405).header('allow', allowed).send(bodies.notAllowed(path, allowed));
  }

  /** The methods some route takes at any path, sorted: the server's methods, for `OPTIONS *` and CONNECT. */
  everyMethod(): string[] {
    const methods = new Set<string>();
    for (const pattern of this.patterns.values()) for (const method of pattern.methods) methods.add(method);
    return [...methods].sort();
  }

  /** The methods some route takes at `path` (no query string), sorted; empty when no route has the path. */
  private allowedAt(path: string): string[] {
    const segments = path.split('/').map(decodedSegment);
    const methods = new Set<string>();
    for (const pattern of this.patterns.values()) {
      if (matches(pattern.segments, segments)) for (const method of pattern.methods) methods.add(method);
    }
    return [...methods].sort();
  }
}

/**
 * A path segment as the router compares it: percent-decoded (`/v1/%6Frgs/x` is routed as `/v1/orgs/x`).
 * An encoded `/` stays inside its segment, as in the router. The router refuses a path that does not
 * decode before this is asked; should one come, it is compared as sent rather than failing the answer.
 */
function decodedSegment(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function patternOf(url: string): PatternSegment[] {
  return url.split('/').map((segment) => {
    if (segment === '*') return 'rest';
    if (segment.startsWith(':')) return 'parameter';
    return { literal: segment };
  });
}

function matches(pattern: readonly PatternSegment[], path: readonly string[]): boolean {
  for (let i = 0; i < pattern.length; i++) {
    const expected = pattern[i]!;
    if (expected === 'rest') return true;
    const actual = path[i];
    if (actual === undefined) return false;
    if (expected !== 'parameter' && actual !== expected.literal) return false;
  }
  return pattern.length === path.length;
}
