/**
 * Render worker: turns a resource view into one of its representations off
 * the main thread, so a resource that takes seconds of CPU to expand or to
 * turn into triples never stalls other requests. Failures travel back as data
 * (errors lose their class between threads). Archive entries go back as
 * UTF-8 bytes in one transferred buffer, read in slices on the main thread
 * (see render-transfer.ts); render threads run at a lower
 * priority than the main thread, so on a busy machine the event loop (and
 * health checks) gets the CPU first.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { isMainThread } from 'node:worker_threads';
import { move } from 'piscina';
import { PlatformError } from './errors.js';
import { type Format, type ResourceView, nodeTypes, renderJson, renderText } from './rendering.js';

export interface RenderTask {
  view: ResourceView;
  format: Format;
  /**
   * `text`: printed for people (archives, RDF); `json`: compact JSON (API answers); `types`: the `@type`s the
   * (expanded) representation gives the resource's own node, as a JSON array, the representation itself bounded
   * as any is: what a write records for the listings, without the main thread parsing the whole expanded form.
   */
  as: 'text' | 'json' | 'types';
  /** Longest representation, in UTF-8 bytes, that may be returned. */
  maxBytes: number;
}

/** A task as it crosses to a render thread: the payload as JSON text; `asBytes`, the output goes back as UTF-8 bytes. */
export interface ThreadTask extends Omit<RenderTask, 'view'> {
  view: Omit<ResourceView, 'source'>;
  sourceJson: string;
  asBytes?: boolean;
}

export type Refusal = { refused: { status: number; type: string; reason: string; details?: string } };
export type RenderOutcome = { output: string } | Refusal;
/** The output as UTF-8 bytes, their buffer transferred to the calling thread (no copy). */
export type BytesOutcome = Uint8Array | Refusal;

/** Nice value of render threads: below the main thread's (0), above nothing else of ours. */
const RENDER_THREAD_NICE = 10;

export async function render(task: RenderTask): Promise<RenderOutcome> {
  try {
    const json = task.as === 'text' ? undefined : await renderJson(task.view, task.format as Exclude<Format, 'n-triples' | 'n-quads' | 'dot'>);
    const output = json === undefined ? await renderText(task.view, task.format) : JSON.stringify(json);
    if (Buffer.byteLength(output) > task.maxBytes) {
      return { refused: { status: 413, type: 'RepresentationTooLarge', reason: `The ${task.format} representation of '${task.view.id}' exceeds ${task.maxBytes} bytes.` } };
    }
    return { output: task.as === 'types' ? JSON.stringify(nodeTypes(json, task.view.id)) : output };
  } catch (error) {
    if (error instanceof PlatformError) {
      return { refused: { status: error.status, type: error.type, reason: error.reason, ...(error.details !== undefined && { details: error.details }) } };
    }
    // A stack overflow or an allocation failure inside the JSON-LD processor: the payload cannot be processed.
    return { refused: { status: 400, type: 'InvalidJsonLdFormat', reason: 'The resource could not be processed.', details: (error as Error).message } };
  }
}

/** The entry point of a render thread. */
export default async function renderOnThread(task: ThreadTask): Promise<RenderOutcome | BytesOutcome> {
  priorityLowered ||= lowerThisThreadsPriority();
  const { sourceJson, asBytes, ...rest } = task;
  const outcome = await render({ ...rest, view: { ...task.view, source: JSON.parse(sourceJson) } });
  if (!asBytes || 'refused' in outcome) return outcome;
  // A buffer of its own (a small Buffer.from shares Node's pool, which must not be transferred). One buffer per
  // entry: a MessageChannel per entry, its slices posted on it, would keep about 3 KB of native memory per entry in
  // the render threads for good (5 MiB per download of 2,000 entries).
  return move(new TextEncoder().encode(outcome.output)) as Uint8Array;
}

let priorityLowered = false;

/** On Linux a thread has its own nice value, set through its thread id (read from /proc). */
function lowerThisThreadsPriority(): true {
  if (isMainThread) return true;
  try {
    setPriority(Number(readlinkSync('/proc/thread-self').split('/').at(-1)), RENDER_THREAD_NICE);
  } catch {
    // Elsewhere render threads keep the process's priority.
  }
  return true;
}
