/**
 * Spare memory handed from one segment builder to the next: a builder
 * growing into buffers full of an earlier segment's bytes must write exactly
 * the files a builder on fresh memory writes, and the buffers must really be
 * reused (else the page faults it exists to save are back).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { SpareMemory } from '../../../src/search/segment/spare-memory.js';
import { GrowableBytes, GrowableUint32 } from '../../../src/search/segment/growable.js';
import { SegmentBuilder } from '../../../src/search/segment/writer.js';
import { randomArticles, tempDir } from '../helpers.js';

describe('SpareMemory', () => {
  it('gives an array the buffer its namesake had in the builder before, when large enough', () => {
    const memory = new SpareMemory();
    const docs = new GrowableUint32(4, memory.for('docs'));
    for (let i = 0; i < 100; i++) docs.push(i);
    const bytes = new GrowableBytes(64, memory.for('bytes'));
    const [docsBuffer, bytesBuffer] = [docs.view().buffer, bytes.view().buffer];
    memory.reclaim();
    expect(memory.for('docs').take(16)).toBe(docsBuffer);
    expect(memory.for('bytes').take(128)).not.toBe(bytesBuffer);
    expect(memory.for('other').take(16)).not.toBe(docsBuffer);
  });

  it('hands a buffer out once, and drops buffers nobody took at the next reclaim', () => {
    const memory = new SpareMemory();
    const first = memory.for('a').take(64);
    memory.reclaim();
    expect(memory.for('a').take(64)).toBe(first);
    expect(memory.for('a').take(64)).not.toBe(first);
    const second = memory.for('b').take(64);
    memory.reclaim();
    memory.reclaim();
    expect(memory.for('b').take(64)).not.toBe(second);
  });

  it('keeps, of an array that grew, the last buffer it took', () => {
    const memory = new SpareMemory();
    const values = new GrowableUint32(2, memory.for('values'));
    for (let i = 0; i < 50; i++) values.push(i);
    const grown = values.view().buffer;
    memory.reclaim();
    expect(memory.for('values').take(8)).toBe(grown);
  });

  it('gives a growable only what it wrote, though the reused buffer holds older values', () => {
    const memory = new SpareMemory();
    const before = new GrowableUint32(4, memory.for('values'));
    for (let i = 0; i < 100; i++) before.push(1000 + i);
    const buffer = before.view().buffer;
    memory.reclaim();
    const after = new GrowableUint32(4, memory.for('values'));
    after.push(1);
    after.push(2);
    expect(after.view().buffer).toBe(buffer);
    expect([...after.view()]).toEqual([1, 2]);
  });
});

describe('segment builders on reused memory', () => {
  // Larger, then smaller (stale bytes past every array's end), then larger again (growth into spares).
  const batches = [randomArticles(400, 1, 'a'), randomArticles(60, 2, 'b'), randomArticles(900, 3, 'c')];
  let dir: { dir: string; cleanup: () => Promise<void> };
  const reusedPerBuilder: number[] = [];

  async function writeAll(prefix: string, memory?: SpareMemory): Promise<void> {
    let previous = new Set<ArrayBuffer>();
    for (const [i, articles] of batches.entries()) {
      const taken: ArrayBuffer[] = [];
      if (memory) {
        const named = memory.for.bind(memory);
        vi.spyOn(memory, 'for').mockImplementation((name) => ({ take: (bytes) => taken[taken.push(named(name).take(bytes)) - 1]! }));
      }
      const builder = new SegmentBuilder(memory);
      for (const each of articles) builder.addArticle(each);
      await builder.write(path.join(dir.dir, `${prefix}-${i}.seg`));
      await builder.stored.write(path.join(dir.dir, `${prefix}-${i}.stored`));
      if (memory) {
        vi.restoreAllMocks();
        reusedPerBuilder.push(new Set(taken.filter((buffer) => previous.has(buffer))).size);
        previous = new Set(taken);
        memory.reclaim();
      }
    }
  }

  beforeAll(async () => {
    dir = await tempDir();
    await writeAll('fresh');
    await writeAll('reused', new SpareMemory());
  });
  afterAll(() => dir.cleanup());

  it('writes byte-identical segment and stored-fields files', async () => {
    for (let i = 0; i < batches.length; i++) {
      for (const extension of ['seg', 'stored']) {
        const fresh = await readFile(path.join(dir.dir, `fresh-${i}.${extension}`));
        const reused = await readFile(path.join(dir.dir, `reused-${i}.${extension}`));
        expect(reused.equals(fresh), `segment ${i}, .${extension}`).toBe(true);
      }
    }
  });

  it('takes the earlier builder’s buffers rather than new ones', () => {
    // Into a smaller segment and into a larger one, every array filled while articles are added:
    // the five postings arrays of both fields and the stored fragments.
    expect(reusedPerBuilder).toEqual([0, 11, 11]);
  });
});
