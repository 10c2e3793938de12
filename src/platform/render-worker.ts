/**
 * Render worker: turns a resource view into one of its representations off
 * the main thread, so a resource that takes seconds of CPU to expand or to
 * turn into triples never stalls other requests. Failures travel back as data
 * (errors lose their class between threads).
 */
import { PlatformError } from './errors.js';
import { type Format, type ResourceView, renderJson, renderText } from './rendering.js';

export interface RenderTask {
  view: ResourceView;
  format: Format;
  /** `text`: printed for people (archives, RDF); `json`: compact JSON (API answers). */
  as: 'text' | 'json';
  /** Longest representation, in UTF-8 bytes, that may be returned. */
  maxBytes: number;
}

export type RenderOutcome = { output: string } | { refused: { status: number; type: string; reason: string; details?: string } };

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

export default render;
