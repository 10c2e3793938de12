/**
 * Where representations are rendered: on a small pool of worker threads
 * (Piscina), or, with no threads, inline on the calling thread (tests of
 * the inline path and the benchmark's "before" use it). Either way the
 * output of one representation is bounded. Payloads cross to the threads as
 * JSON written in slices, archive entries come back as one transferred buffer
 * read in slices (render-transfer.ts), so the main thread never holds the CPU
 * long for them. Jobs wait for the threads in a queue fair between callers
 * (render-queue.ts): each names whom it renders for.
 */
import type { Readable } from 'node:stream';
import { Piscina } from 'piscina';
import { workerExecArgv, workerModule } from '../runtime/worker-module.js';
import { PlatformError } from './errors.js';
import { type RenderCaller, UNATTRIBUTED, fairQueue } from './render-queue.js';
import { localSlices, slicedJson } from './render-transfer.js';
import { rememberPayloadJson, sourceJsonOf } from './stored-json.js';
import { type BytesOutcome, type Refusal, type RenderOutcome, type RenderTask, type ThreadTask, render } from './render-worker.js';
import type { Format, ResourceView } from './rendering.js';

type JsonFormat = 'source' | 'annotated-source' | 'compacted' | 'expanded';

/** A rendered archive entry: its size, known before its first byte is read, and its bytes in slices. */
interface RenderedEntry {
  bytes: number;
  content: Readable;
}

/** `caller`: whom the job is done for (renderCallerOf), its turn in the threads' queue; unnamed, the job shares one turn with all others unnamed. */
export interface Renderer {
  /** The representation as text: JSON printed for people (archive entries) or RDF. */
  text(view: ResourceView, format: Format, caller?: RenderCaller): Promise<string>;
  /** A JSON representation, serialised compactly (API answers). */
  json(view: ResourceView, format: JsonFormat, caller?: RenderCaller): Promise<string>;
  /**
   * The `@type` IRIs the expanded representation gives the node `view.id` (none when it has none), worked out
   * where it is rendered; refused as the representation would be (a processing error, past the size bound).
   */
  expandedTypes(view: ResourceView, caller?: RenderCaller): Promise<string[]>;
  /** The `text` representation as UTF-8 bytes, streamed in slices (archive entries). */
  entry(view: ResourceView, format: Format, caller?: RenderCaller): Promise<RenderedEntry>;
  close(): Promise<void>;
}

interface RendererOptions {
  /** Worker threads; 0 renders inline on the calling thread. */
  threads: number;
  /** Longest representation of one resource, in bytes. */
  maxBytes: number;
}

/** 64 MiB: a 2 MiB payload under a long base and vocab can print to far more as triples. */
export const DEFAULT_MAX_RENDERED_BYTES = 64 * 1024 ** 2;

export function createRenderer(options: RendererOptions): Renderer {
  const pool = options.threads > 0 ? workerPool(options.threads) : null;
  // In front of Piscina's own queue, which is first come first served: this one never gives it more jobs than threads.
  const queue = fairQueue(options.threads);
  // An archive renders one payload (never changed once read) in several formats, one entry at a time: it is written
  // as JSON once, and kept as a write's payload is (stored-json.ts).
  const threadTask = async (task: RenderTask, reuse = false): Promise<ThreadTask> => {
    // Picked by name: reading `source` of a view made from a stored payload would parse it here.
    const { id, metadata, base, vocab } = task.view;
    const view = { id, metadata, base, vocab };
    const known = sourceJsonOf(task.view);
    if (known !== undefined) return { ...task, view, sourceJson: known };
    const sourceJson = await slicedJson(task.view.source);
    if (reuse) rememberPayloadJson(task.view.source, sourceJson);
    return { ...task, view, sourceJson };
  };
  const onThread = <Outcome>(caller: RenderCaller, task: ThreadTask) => queue.run(caller, () => pool!.run(task) as Promise<Outcome>);
  const run = async (task: RenderTask, caller: RenderCaller): Promise<string> => {
    const outcome: RenderOutcome = pool ? await onThread(caller, await threadTask(task)) : await render(task);
    return 'refused' in outcome ? refuse(outcome) : outcome.output;
  };
  const entry = async (view: ResourceView, format: Format, caller: RenderCaller = UNATTRIBUTED): Promise<RenderedEntry> => {
    const task: RenderTask = { view, format, as: 'text', maxBytes: options.maxBytes };
    if (!pool) {
      const bytes = Buffer.from(await run(task, caller));
      return { bytes: bytes.length, content: localSlices(bytes) };
    }
    const outcome: BytesOutcome = await onThread(caller, { ...(await threadTask(task, true)), asBytes: true });
    if ('refused' in outcome) return refuse(outcome);
    return { bytes: outcome.byteLength, content: localSlices(Buffer.from(outcome.buffer, outcome.byteOffset, outcome.byteLength)) };
  };
  return {
    text: (view, format, caller = UNATTRIBUTED) => run({ view, format, as: 'text', maxBytes: options.maxBytes }, caller),
    json: (view, format, caller = UNATTRIBUTED) => run({ view, format, as: 'json', maxBytes: options.maxBytes }, caller),
    expandedTypes: async (view, caller = UNATTRIBUTED) => JSON.parse(await run({ view, format: 'expanded', as: 'types', maxBytes: options.maxBytes }, caller)) as string[],
    entry,
    close: async () => {
      await pool?.destroy();
    },
  };
}

function refuse({ refused }: Refusal): never {
  throw new PlatformError(refused.status, refused.type, refused.reason, refused.details);
}

function workerPool(threads: number): Piscina {
  const workerFile = workerModule('render-worker', import.meta.url, 'render-worker.cjs');
  return new Piscina({
    filename: workerFile,
    minThreads: 1,
    maxThreads: threads,
    // Idle threads give their memory (a loaded JSON-LD processor) back.
    idleTimeout: 30_000,
    // Workers load TypeScript sources through tsx when the server runs from source.
    execArgv: workerExecArgv(workerFile),
  });
}
