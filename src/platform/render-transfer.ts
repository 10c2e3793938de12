/**
 * What crosses between the main thread and the render threads, in pieces
 * small enough that the main thread never stalls on one: a resource's payload
 * goes out as JSON text written in slices (the event loop runs between them;
 * a structured clone of a 100k-key payload is one uninterruptible copy of a
 * tenth of a second or more), and a rendered archive entry comes back as one
 * transferred buffer (no copy), read in slices of at most RENDER_SLICE_BYTES,
 * one per turn of the event loop (the ZIP writer checksums each in JavaScript).
 */
import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Largest piece of rendered output handed to the main thread at once. */
export const RENDER_SLICE_BYTES = 64 * 1024;

/** JSON values written before the event loop gets a turn. */
const VALUES_PER_SLICE = 4096;

/** An array or object being written: its keys (null for an array), the next member, how many were written. */
interface Open {
  container: unknown[] | Record<string, unknown>;
  keys: string[] | null;
  next: number;
  written: number;
}

/**
 * JSON.stringify's output for JSON data, written a few thousand values at a
 * time with an explicit stack (payloads are JSON data whose depth is bounded
 * at write time).
 */
export async function slicedJson(value: unknown): Promise<string> {
  const parts: string[] = [];
  const stack: Open[] = [];
  const write = (prefix: string, member: unknown) => {
    if (Array.isArray(member)) {
      parts.push(`${prefix}[`);
      stack.push({ container: member, keys: null, next: 0, written: 0 });
    } else if (typeof member === 'object' && member !== null) {
      parts.push(`${prefix}{`);
      stack.push({ container: member as Record<string, unknown>, keys: Object.keys(member), next: 0, written: 0 });
    } else {
      parts.push(`${prefix}${JSON.stringify(member) ?? 'null'}`);
    }
  };
  write('', value);
  let budget = VALUES_PER_SLICE;
  while (stack.length > 0) {
    if (--budget === 0) {
      await nextTurn();
      budget = VALUES_PER_SLICE;
    }
    const open = stack.at(-1)!;
    if (open.keys === null) {
      const array = open.container as unknown[];
      if (open.next === array.length) {
        parts.push(']');
        stack.pop();
      } else {
        write(open.written++ > 0 ? ',' : '', array[open.next++] ?? null);
      }
    } else if (open.next === open.keys.length) {
      parts.push('}');
      stack.pop();
    } else {
      const key = open.keys[open.next++]!;
      const member = (open.container as Record<string, unknown>)[key];
      if (member !== undefined) write(`${open.written++ > 0 ? ',' : ''}${JSON.stringify(key)}:`, member);
    }
  }
  return parts.join('');
}

/**
 * A stream of `count` slices taken one at a time from `take` (undefined: the
 * slice is missing), one per turn of the event loop; `release` runs once when
 * the stream ends or is destroyed.
 */
function sliceStream(count: number, take: () => Uint8Array | ArrayBuffer | undefined, release: () => void): Readable {
  let taken = 0;
  return new Readable({
    read() {
      setImmediate(() => {
        if (this.destroyed) return;
        if (taken === count) return void this.push(null);
        const slice = take();
        if (slice === undefined) return void this.destroy(new Error(`rendered entry cut short: ${taken} of ${count} slices arrived`));
        taken++;
        this.push(slice instanceof ArrayBuffer ? Buffer.from(slice) : slice);
      });
    },
    destroy(error, callback) {
      release();
      callback(error);
    },
  });
}

/** Bytes on this thread (rendered inline, or transferred from a render thread) as a stream of slices. */
export function localSlices(bytes: Buffer): Readable {
  let start = 0;
  const count = Math.ceil(bytes.length / RENDER_SLICE_BYTES);
  return sliceStream(
    count,
    () => {
      const slice = bytes.subarray(start, start + RENDER_SLICE_BYTES);
      start += RENDER_SLICE_BYTES;
      return slice;
    },
    () => {},
  );
}
