/**
 * Render worker: turns a resource view into one of its representations off
 * the main thread, so a resource that takes seconds of CPU to expand or to
 * turn into triples never stalls other requests. Failures travel back as data
 * (errors lose their class between threads). Archive entries go back in
 * slices over a port (see render-transfer.ts); render threads run at a lower
 * priority than the main thread, so on a busy machine the event loop (and
 * health checks) gets the CPU first.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { type MessagePort, isMainThread } from 'node:worker_threads';
import { PlatformError } from './errors.js';
import { postSlices } from './render-transfer.js';
import { type Format, type ResourceView, renderJson, renderText } from './rendering.js';

export interface RenderTask {
  view: ResourceView;
  format: Format;
  /** `text`: printed for people (archives, RDF); `json`: compact JSON (API answers). */
  as: 'text' | 'json';
  /** Longest representation, in UTF-8 bytes, that may be returned. */
  maxBytes: number;
}

/** A task as it crosses to a render thread: the payload as JSON text; with a port, the output goes back over it in slices. */
export interface ThreadTask extends Omit<RenderTask, 'view'> {
  view: Omit<ResourceView, 'source'>;
  sourceJson: string;
  port?: MessagePort;
}

export type Refusal = { refused: { status: number; type: string; reason: string; details?: string } };
export type RenderOutcome = { output: string } | Refusal;
/** The output was posted on the task's port: `slices` pieces, `bytes` in all. */
export type SlicedOutcome = { sliced: { bytes: number; slices: number } } | Refusal;

/** Nice value of render threads: below the main thread's (0), above nothing else of ours. */
const RENDER_THREAD_NICE = 10;

export async function render(task: RenderTask): Promise<RenderOutcome> {
  try {
    const output =
      task.as === 'text' ? await renderText(task.view, task.format) : JSON.stringify(await renderJson(task.view, task.format as Exclude<Format, 'n-triples' | 'n-quads' | 'dot'>));
    if (Buffer.byteLength(output) > task.maxBytes) {
      return { refused: { status: 413, type: 'RepresentationTooLarge', reason: `The ${task.format} representation of '${task.view.id}' exceeds ${task.maxBytes} bytes.` } };
    }
    return { output };
  } catch (error) {
    if (error instanceof PlatformError) return { refused: { status: error.status, type: error.type, reason: error.reason, ...(error.details !== undefined && { details: error.details }) } };
    // A stack overflow or an allocation failure inside the JSON-LD processor: the payload cannot be processed.
    return { refused: { status: 400, type: 'InvalidJsonLdFormat', reason: 'The resource could not be processed.', details: (error as Error).message } };
  }
}

/** The entry point of a render thread. */
export default async function renderOnThread(task: ThreadTask): Promise<RenderOutcome | SlicedOutcome> {
  priorityLowered ||= lowerThisThreadsPriority();
  const { sourceJson, port, ...rest } = task;
  const outcome = await render({ ...rest, view: { ...task.view, source: JSON.parse(sourceJson) } });
  if (port === undefined || 'refused' in outcome) return outcome;
  const bytes = Buffer.from(outcome.output);
  return { sliced: { bytes: bytes.length, slices: postSlices(port, bytes) } };
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
