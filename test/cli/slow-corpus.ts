/** A BEIR corpus large enough to keep an ingestion going for a few seconds after it took its write lock (signal tests). */
import { writeFile } from 'node:fs/promises';

export async function writeSlowCorpus(file: string, documents: number): Promise<void> {
  const words = ['place', 'grid', 'cell', 'neuron', 'cortex', 'spike', 'theta', 'memory'];
  const lines = Array.from({ length: documents }, (_, i) => {
    const text = Array.from({ length: 40 }, (_, w) => `${words[(i + w) % words.length]}${(i * 31 + w * 7) % 499}`).join(' ');
    return JSON.stringify({ _id: `d${i}`, title: `Document ${i}`, text });
  });
  await writeFile(file, lines.join('\n'));
}
