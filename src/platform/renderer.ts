/**
 * Where representations are rendered: on a small pool of worker threads
 * (Piscina), or, with no threads, inline on the calling thread (tests of
 * the inline path and the benchmark's "before" use it). Either way the
 * output of one representation is bounded.
 */
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { carriedFile } from '../runtime/carried.js';
import { PlatformError } from './errors.js';
import { type RenderOutcome, type RenderTask, render } from './render-worker.js';
import type { Format, ResourceView } from './rendering.js';

export type JsonFormat = 'source' | 'annotated-source' | 'compacted' | 'expanded';

export interface Renderer {
  /** The representation as text: JSON printed for people (archive entries) or RDF. */
  text(view: ResourceView, format: Format): Promise<string>;
  /** A JSON representation, serialised compactly (API answers). */
  json(view: ResourceView, format: JsonFormat): Promise<string>;
  close(): Promise<void>;
}

export interface RendererOptions {
  /** Worker threads; 0 renders inline on the calling thread. */
  threads: number;
  /** Longest representation of one resource, in bytes. */
  maxBytes: number;
}

/** 64 MiB: a 2 MiB payload under a long base and vocab can print to far more as triples. */
export const DEFAULT_MAX_RENDERED_BYTES = 64 * 1024 ** 2;

export function createRenderer(options: RendererOptions): Renderer {
  const pool = options.threads > 0 ? workerPool(options.threads) : null;
  const run = async (task: RenderTask): Promise<string> => {
    const outcome: RenderOutcome = pool ? await pool.run(task) : await render(task);
    if ('refused' in outcome) throw new PlatformError(outcome.refused.status, outcome.refused.type, outcome.refused.reason, outcome.refused.details);
    return outcome.output;
  };
  return {
    text: (view, format) => run({ view, format, as: 'text', maxBytes: options.maxBytes }),
    json: (view, format) => run({ view, format, as: 'json', maxBytes: options.maxBytes }),
    close: async () => {
      await pool?.destroy();
    },
  };
}

function workerPool(threads: number): Piscina {
  // Inside the single executable the worker is a file it extracted; otherwise it sits beside this module.
  const workerFile =
    carriedFile('render-worker.cjs') ?? fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? './render-worker.ts' : './render-worker.js', import.meta.url));
  return new Piscina({
    filename: workerFile,
    minThreads: 1,
    maxThreads: threads,
    // Idle threads give their memory (a loaded JSON-LD processor) back.
    idleTimeout: 30_000,
    // Workers load TypeScript sources through tsx when the server runs from source.
    execArgv: workerFile.endsWith('.ts') ? ['--import', 'tsx'] : undefined,
  });
}
